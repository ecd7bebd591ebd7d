import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { admin, buy, newPlayer, newProvider, onChain, type Player, type Provider } from './contentSupport.js';

interface SpendReport {
  limits: { app_daily_gas: number; user_daily_gas: number };
  apps: { client_id: string; gas: number; operations: number }[];
  users: { user_id: string; gas: number; operations: number }[];
}

/**
 * The per-app daily gas budget (decisions §7) end to end: every user's sponsored operations in an app (the
 * operator creating their slots, their content purchases) draw on one budget per app and UTC day, so
 * once an app has spent it, no user of that app is sponsored in it; the users' own budgets are untouched.
 */
describe('per-app daily sponsorship budget', () => {
  const APP_DAILY_GAS = 2_500_000;
  let server: TestServer;
  let provider: Provider;
  let players: Player[];

  beforeAll(async () => {
    server = await startTestServer({ env: { SPONSOR_APP_DAILY_GAS: String(APP_DAILY_GAS) } });
    provider = await newProvider(server);
    players = [await newPlayer(server, provider), await newPlayer(server, provider)];
  });
  afterAll(() => server?.close());

  const report = async (): Promise<SpendReport> =>
    (await (
      await fetch(`${server.url}/v1/admin/sponsorship`, {
        headers: { authorization: `Bearer ${admin(server)}` },
      })
    ).json()) as SpendReport;

  it("charges the operator's slot creation and both users' purchases to the app, and stops the app, not the users", async () => {
    const start = await report();
    const app = start.apps.find((a) => a.client_id === provider.clientId);
    // Each player's slot was created by the operator, on the app's budget.
    expect(app?.operations).toBe(2);

    let bought = 0;
    let refused: Awaited<ReturnType<typeof buy>> | undefined;
    for (let i = 0; i < 40 && !refused; i++) {
      const res = await buy(server, provider, players[i % 2]!, '1000');
      if (res.status === 200) bought++;
      else refused = res;
    }
    expect(bought).toBeGreaterThan(1);
    expect(refused?.status).toBe(429);
    expect(refused?.body).toMatchObject({ success: false, error: 'sponsorship_quota_exceeded' });

    // Spent for the app, so refused for either user — and nothing moved.
    const balances = await Promise.all(players.map((p) => onChain(server, provider.cuid, p.slot)));
    for (const player of players) {
      expect((await buy(server, provider, player, '1000')).status).toBe(429);
    }
    expect(await Promise.all(players.map((p) => onChain(server, provider.cuid, p.slot)))).toEqual(balances);

    const end = await report();
    const spent = end.apps.find((a) => a.client_id === provider.clientId)!;
    expect(spent.operations).toBe(2 + bought);
    expect(spent.gas).toBeLessThanOrEqual(APP_DAILY_GAS);
    // The users' own budgets were far from spent: the app's budget is what stopped them.
    for (const player of players) {
      const user = end.users.find((u) => u.user_id === String(player.user.uuid))!;
      expect(user.gas).toBeLessThan(end.limits.user_daily_gas / 10);
    }
    expect(balances.reduce((sum, b) => sum + b.balance, 0n)).toBe(BigInt(bought) * 1000n);
  });
});
