import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, newUser, type User } from '../content/contentSupport.js';
import { appActivityFlows, type AppActivityFlows } from '../helpers/appActivityFlows.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

interface Report {
  success: boolean;
  client_id: string;
  days: {
    date: string;
    sign_ins: number;
    active_players: number;
    sponsored_gas: number;
    sponsored_operations: number;
    purchases: number;
    purchased_tokens: string;
    consumptions: number;
    consumed_tokens: string;
    market_sales: number;
    market_volume_wei: string;
  }[];
  budget: { daily_gas: number };
  content: { cuid: string; bought: string; consumed: string }[];
}

/**
 * `GET /v1/dev-user/clients/{id}/activity` (docs/console.md) after real flows on a real dauth and chain:
 * two sign-ins, a sponsored purchase, a consumption and a market sale show up in today's figures.
 */
describe('app activity report', () => {
  const APP_DAILY_GAS = 400_000_000;
  let server: TestServer;
  let flows: AppActivityFlows;
  let stranger: User;

  beforeAll(async () => {
    server = await startTestServer({ env: { SPONSOR_APP_DAILY_GAS: String(APP_DAILY_GAS) } });
    flows = await appActivityFlows(server);
    stranger = await newUser(server, 'stranger');
  });
  afterAll(() => server?.close());

  const report = (clientId: string, token: string | undefined, query = '') =>
    get<Report>(server, `/v1/dev-user/clients/${clientId}/activity${query}`, token);

  it("shows today's sign-ins, players, sponsored gas, content and sale to the app's owner", async () => {
    const { provider, bought, consumed, salePrice } = flows;
    const answer = await report(provider.clientId, provider.developer.token);
    expect(answer.status).toBe(200);
    const { days, budget, content } = answer.body;
    expect(days).toHaveLength(30);
    const today = new Date().toISOString().slice(0, 10);
    expect(days.at(-1)!.date).toBe(today);
    expect(days[0]!.date).toBe(new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10));
    expect(days.at(-1)).toMatchObject({
      sign_ins: 2,
      active_players: 2,
      purchases: 1,
      purchased_tokens: bought.toString(),
      consumptions: 1,
      consumed_tokens: consumed.toString(),
      market_sales: 1,
      market_volume_wei: salePrice.toString(),
    });
    // The operator made both slots, the buyer's purchase and the sale: sponsored, on the app's budget.
    const spend = await server.services.sponsorship.subjectOn(today, 'app', provider.clientId);
    expect(spend.operations).toBeGreaterThanOrEqual(3);
    expect(days.at(-1)).toMatchObject({ sponsored_gas: spend.gas, sponsored_operations: spend.operations });
    expect(spend.gas).toBeGreaterThan(0);
    expect(budget).toEqual({ daily_gas: APP_DAILY_GAS });
    expect(content).toEqual([
      { cuid: provider.cuid, bought: bought.toString(), consumed: consumed.toString() },
    ]);
    // Every earlier day is empty.
    for (const day of days.slice(0, -1)) {
      expect(day).toMatchObject({ sign_ins: 0, active_players: 0, purchases: 0, market_sales: 0 });
    }
  });

  it('answers the asked number of days, 30 at most, and refuses anything else without reading', async () => {
    const { provider } = flows;
    const week = await report(provider.clientId, provider.developer.token, '?days=7');
    expect(week.status).toBe(200);
    expect(week.body.days).toHaveLength(7);
    expect(week.body.days.at(-1)!.sign_ins).toBe(2);
    for (const query of ['?days=31', '?days=0', '?days=week']) {
      const refused = await report(provider.clientId, provider.developer.token, query);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ success: false, error: 'invalid_request' });
    }
  });

  it("is the owner's alone: another developer's app is client_not_found, and a bearer is required", async () => {
    const { provider, players } = flows;
    for (const token of [stranger.token, players[0].user.token]) {
      const other = await report(provider.clientId, token);
      expect(other.status).toBe(404);
      expect(other.body).toMatchObject({ success: false, error: 'client_not_found' });
    }
    expect((await report('no-such-app', provider.developer.token)).status).toBe(404);
    expect((await report(provider.clientId, undefined)).status).toBe(401);
  });
});
