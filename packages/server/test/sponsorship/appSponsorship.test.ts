/**
 * Per-app sponsorship policies (decisions §9 "Launch-day defenses", docs/sponsorship.md) on a real dauth and
 * chain: each of the app's budgets exhausted by its real flow — session operations and PIN operations under a
 * login JWT bound to the app — answers 429 `app_sponsorship_exhausted` with `retry_after` and nothing moves on
 * chain; one `sponsorship.exhausted` webhook a day; the approval hook approving, refusing and timing out (both
 * modes), its signature checked by the `standardwebhooks` package in a real receiver. Once on SQLite, once on
 * PostgreSQL (where the replicas of a deployment share the accounting).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { type Address, getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createUser, post, type TestClient, type TestUser } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call, chainClient, registerPin, type RegisteredPin } from '../pin/pinHelpers.js';
import {
  grantedPlayer,
  newApp,
  type Player,
  request,
  tokenBalanceOf,
  tokenTransferApp,
  transferData,
} from '../sessionKeys/support.js';

const recipient = getAddress(`0x${'cd'.repeat(20)}`);

type HookMode = 'approve' | 'refuse' | 'hang';

/** The studio's backend: answers the approval hook as told and checks every signature it gets. */
async function startApprovalReceiver() {
  const state = {
    mode: 'approve' as HookMode,
    secret: '',
    received: [] as { verified: boolean; body: Record<string, unknown> }[],
  };
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let verified = false;
      try {
        new Webhook(state.secret).verify(raw, req.headers as Record<string, string>);
        verified = true;
      } catch {
        verified = false;
      }
      state.received.push({ verified, body: JSON.parse(raw) as Record<string, unknown> });
      if (state.mode === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ approve: state.mode === 'approve' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    state,
    url: `http://127.0.0.1:${port}/approve`,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe.each([{ postgres: false }, { postgres: true }])(
  'per-app sponsorship policy (postgres: $postgres)',
  ({ postgres }) => {
    let server: TestServer;
    let token: Address;
    let receiver: Awaited<ReturnType<typeof startApprovalReceiver>>;

    beforeAll(async () => {
      // The suites' studio backends listen on loopback; production refuses such targets.
      server = await startTestServer({ postgres, env: { CALLBACK_ALLOW_PRIVATE: 'true' } });
      token = server.services.chainInfo.contracts.token;
      receiver = await startApprovalReceiver();
    }, 120_000);
    afterAll(async () => {
      await receiver?.close();
      await server?.close();
    });

    const setPolicy = (dev: TestUser, clientId: string, body: Record<string, unknown>) =>
      request(server, 'PUT', `/v1/dev-user/clients/${clientId}/sponsorship`, dev.loginToken, body);
    const getPolicy = (dev: TestUser, clientId: string) =>
      request(server, 'GET', `/v1/dev-user/clients/${clientId}/sponsorship`, dev.loginToken);
    const sessionOp = (p: Player, amount = 1n) =>
      fetch(`${server.url}/v1/wallet/session-operations`, {
        method: 'POST',
        headers: { ...bearer(p.accessToken), 'content-type': 'application/json' },
        body: JSON.stringify({ calls: [{ to: token, data: transferData(recipient, amount) }] }),
      }).then(async (res) => ({
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        body: (await res.json()) as Record<string, unknown>,
      }));
    const exhaustedDeliveries = async (clientId: string) =>
      server.services.database.db
        .selectFrom('webhook_deliveries')
        .select(['payload'])
        .where('client_id', '=', clientId)
        .where('type', '=', 'sponsorship.exhausted')
        .execute();

    it('is set and read by the app’s owner only, with today’s use; budgets are safe integers', async () => {
      const { dev, client } = await tokenTransferApp(server);
      const empty = await getPolicy(dev, client.clientId);
      expect(empty.status).toBe(200);
      expect(empty.body).toMatchObject({
        daily_gas_per_player: null,
        daily_gas_app: null,
        approval_url: null,
        platform_daily_gas_app: server.config.sponsorship.appDailyGas,
        today: { gas: 0, operations: 0, refused: 0, hours: [], top_players: [] },
      });
      const put = await setPolicy(dev, client.clientId, {
        daily_gas_per_player: 2_000_000,
        daily_gas_app: null,
      });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      expect(put.body.daily_gas_per_player).toBe(2_000_000);
      expect(put.body.approval_secret).toBeUndefined();
      expect((await setPolicy(dev, client.clientId, { daily_gas_app: 2 ** 53 })).status).toBe(400);
      expect((await setPolicy(dev, client.clientId, { daily_gas_app: -1 })).status).toBe(400);
      expect((await setPolicy(dev, client.clientId, { daily_gas_app: '5' })).status).toBe(400);
      const other = await createUser(server.url);
      const foreign = await setPolicy(other, client.clientId, { daily_gas_app: 1 });
      expect(foreign.status).toBe(404);
      expect(foreign.body.error).toBe('client_not_found');
      expect((await getPolicy(other, client.clientId)).status).toBe(404);
      const metadata = await setPolicy(dev, client.clientId, {
        approval_url: 'http://169.254.169.254/latest',
      });
      expect(metadata.status).toBe(400);
      expect(metadata.body.error).toBe('invalid_approval_url');
    });

    it('refuses a session operation over the player’s daily budget with 429 and moves nothing on chain', async () => {
      const { dev, client } = await tokenTransferApp(server);
      const webhook = await request(
        server,
        'POST',
        `/v1/dev-user/clients/${client.clientId}/webhooks`,
        dev.loginToken,
        {
          url: receiver.url.replace('/approve', '/events'),
          events: ['sponsorship.exhausted'],
        },
      );
      expect(webhook.status, JSON.stringify(webhook.body)).toBe(201);
      const p1 = await grantedPlayer(server, client);
      const p2 = await grantedPlayer(server, client);
      expect((await sessionOp(p1)).status).toBe(200);
      const used = await getPolicy(dev, client.clientId);
      const spent = used.body.today.top_players[0];
      expect(spent.user_id).toBe(p1.user.uuid);
      expect(spent.operations).toBe(1);
      expect(used.body.today.hours).toHaveLength(1);
      expect(used.body.today.gas).toBe(spent.gas);
      expect((await setPolicy(dev, client.clientId, { daily_gas_per_player: spent.gas + 1 })).status).toBe(
        200,
      );

      const balance = await tokenBalanceOf(server, p1.wallet.address);
      const refused = await sessionOp(p1);
      expect(refused.status, JSON.stringify(refused.body)).toBe(429);
      expect(refused.body).toMatchObject({
        error: 'app_sponsorship_exhausted',
        budget: 'daily_gas_per_player',
      });
      const retryAfter = refused.body.retry_after as number;
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(86_400);
      expect(Number(refused.retryAfter)).toBe(retryAfter);
      expect((await sessionOp(p1)).status).toBe(429);
      expect(await tokenBalanceOf(server, p1.wallet.address)).toBe(balance);
      // Another player of the same app has a budget of their own.
      expect((await sessionOp(p2)).status).toBe(200);
      const after = await getPolicy(dev, client.clientId);
      expect(
        after.body.today.top_players.find((r: { user_id: string }) => r.user_id === p1.user.uuid).gas,
      ).toBe(spent.gas);
      expect(after.body.today.refused).toBe(2);
      // Two refusals, one webhook of the day, naming the budget.
      const deliveries = await exhaustedDeliveries(client.clientId);
      expect(deliveries).toHaveLength(1);
      expect(JSON.parse(deliveries[0]!.payload).data).toMatchObject({
        client_id: client.clientId,
        budget: 'daily_gas_per_player',
      });
    });

    it('refuses every player once the app’s own daily budget is spent', async () => {
      const { dev, client } = await tokenTransferApp(server);
      const p1 = await grantedPlayer(server, client);
      const p2 = await grantedPlayer(server, client);
      expect((await sessionOp(p1)).status).toBe(200);
      const used = (await getPolicy(dev, client.clientId)).body.today.gas as number;
      expect((await setPolicy(dev, client.clientId, { daily_gas_app: used + 1 })).status).toBe(200);
      const balance = await tokenBalanceOf(server, p2.wallet.address);
      const refused = await sessionOp(p2);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ error: 'app_sponsorship_exhausted', budget: 'daily_gas_app' });
      expect(await tokenBalanceOf(server, p2.wallet.address)).toBe(balance);
      expect((await getPolicy(dev, client.clientId)).body.today.gas).toBe(used);
    });

    it('refuses a player’s operations past the per-minute rate, retry_after pointing at the next minute', async () => {
      const { dev, client } = await tokenTransferApp(server);
      const p = await grantedPlayer(server, client);
      expect((await setPolicy(dev, client.clientId, { ops_per_player_per_minute: 1 })).status).toBe(200);
      // Both operations inside one UTC minute.
      if (new Date().getUTCSeconds() > 45)
        await new Promise((r) => setTimeout(r, (61 - new Date().getUTCSeconds()) * 1000));
      expect((await sessionOp(p)).status).toBe(200);
      const balance = await tokenBalanceOf(server, p.wallet.address);
      const refused = await sessionOp(p);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({
        error: 'app_sponsorship_exhausted',
        budget: 'ops_per_player_per_minute',
      });
      expect(refused.body.retry_after).toBeLessThanOrEqual(60);
      expect(refused.retryAfter).toBe(String(refused.body.retry_after));
      expect(await tokenBalanceOf(server, p.wallet.address)).toBe(balance);
    }, 60_000);

    describe('PIN operations under a login JWT bound to the app', () => {
      const pinOp = (user: { uuid: number; token: string }, wallet: RegisteredPin) =>
        call<Record<string, unknown>>(
          server,
          '/v1/pin/verify',
          {
            user_uuid: user.uuid,
            ...wallet.pin,
            key_share_user: wallet.key_share_user,
            calls: [{ to: token, data: transferData(recipient, 1n) }],
          },
          user.token,
        );
      const fund = async (address: Address) =>
        expect(
          (
            await post(
              `${server.url}/v1/admin/faucet`,
              { address, token: '1000' },
              bearer(server.services.secrets.adminApiKey),
            )
          ).status,
        ).toBe(200);

      it('a player’s budget: the app-bound JWT is refused, the same player unbound is not the app’s', async () => {
        const { dev, client } = await newApp(server);
        expect((await setPolicy(dev, client.clientId, { daily_gas_per_player: 1 })).status).toBe(200);
        const bound = await createUser(server.url, undefined, { clientId: client.clientId });
        const user = { uuid: Number(bound.uuid), token: bound.loginToken };
        const wallet = await registerPin(server, { ...user, email: bound.email });
        await fund(wallet.address);
        const refused = await pinOp(user, wallet);
        expect(refused.status, JSON.stringify(refused.body)).toBe(429);
        expect(refused.body).toMatchObject({
          error: 'app_sponsorship_exhausted',
          budget: 'daily_gas_per_player',
        });
        // Nothing on chain: the wallet was not even deployed, its tokens did not move.
        expect(await chainClient(server).getCode({ address: wallet.address })).toBeUndefined();
        expect(await tokenBalanceOf(server, wallet.address)).toBe(1000n);
        expect((await getPolicy(dev, client.clientId)).body.today.gas).toBe(0);
        // The same player signed in to the console (an unbound JWT): not an operation for the app.
        const login = await post(`${server.url}/v1/dev-user/login_devuser`, {
          email: bound.email,
          password: bound.password,
        });
        const unbound = { uuid: user.uuid, token: ((await login.json()) as { token: string }).token };
        expect((await pinOp(unbound, wallet)).status).toBe(200);
        expect(await tokenBalanceOf(server, wallet.address)).toBe(999n);
      });

      it('a guest’s budget: the guest’s PIN operation is refused, nothing moves', async () => {
        const { dev, client } = await newApp(server);
        expect(
          (
            await setPolicy(dev, client.clientId, {
              daily_gas_per_player: 50_000_000,
              daily_gas_per_guest: 1,
            })
          ).status,
        ).toBe(200);
        const guest = await post(`${server.url}/v1/dev-user/guest`, { client_id: client.clientId });
        expect(guest.status).toBe(201);
        const g = (await guest.json()) as { token: string; uuid: string };
        const user = { uuid: Number(g.uuid), token: g.token };
        const wallet = await registerPin(server, { ...user, email: '' });
        await fund(wallet.address);
        const refused = await pinOp(user, wallet);
        expect(refused.status, JSON.stringify(refused.body)).toBe(429);
        expect(refused.body).toMatchObject({
          error: 'app_sponsorship_exhausted',
          budget: 'daily_gas_per_guest',
        });
        expect(await chainClient(server).getCode({ address: wallet.address })).toBeUndefined();
        expect(await tokenBalanceOf(server, wallet.address)).toBe(1000n);
      });
    });

    describe('approval hook', () => {
      let dev: TestUser;
      let client: TestClient;
      let player: Player;

      beforeAll(async () => {
        ({ dev, client } = await tokenTransferApp(server));
        player = await grantedPlayer(server, client);
        const put = await setPolicy(dev, client.clientId, { approval_url: receiver.url });
        expect(put.status, JSON.stringify(put.body)).toBe(200);
        expect(put.body.approval_secret).toMatch(/^whsec_/);
        receiver.state.secret = put.body.approval_secret as string;
        // The same URL again keeps the secret (not shown again).
        const again = await setPolicy(dev, client.clientId, { approval_url: receiver.url });
        expect(again.body.approval_secret).toBeUndefined();
      }, 60_000);

      const lastAsk = () => receiver.state.received.at(-1)!;

      it('sponsors on a signed request answered {approve: true}', async () => {
        receiver.state.mode = 'approve';
        const before = await tokenBalanceOf(server, player.wallet.address);
        const res = await sessionOp(player, 2n);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(await tokenBalanceOf(server, player.wallet.address)).toBe(before - 2n);
        const ask = lastAsk();
        expect(ask.verified).toBe(true);
        expect(ask.body).toMatchObject({ user_id: player.user.uuid, client_id: client.clientId });
        expect(ask.body.gas).toBeGreaterThan(0);
        expect(ask.body.calls).toEqual([{ to: token, value: '0', data: transferData(recipient, 2n) }]);
      });

      it('refuses with 403 sponsorship_not_approved, nothing signed, nothing charged', async () => {
        receiver.state.mode = 'refuse';
        const before = await tokenBalanceOf(server, player.wallet.address);
        const gas = (await getPolicy(dev, client.clientId)).body.today.gas;
        const res = await sessionOp(player);
        expect(res.status).toBe(403);
        expect(res.body.error).toBe('sponsorship_not_approved');
        expect(lastAsk().verified).toBe(true);
        expect(await tokenBalanceOf(server, player.wallet.address)).toBe(before);
        expect((await getPolicy(dev, client.clientId)).body.today.gas).toBe(gas);
      });

      it('a hook that does not answer within 2 s: fail-closed refuses, fail-open sponsors', async () => {
        receiver.state.mode = 'hang';
        const before = await tokenBalanceOf(server, player.wallet.address);
        const started = Date.now();
        const closed = await sessionOp(player);
        expect(closed.status).toBe(403);
        expect(closed.body.error).toBe('sponsorship_not_approved');
        expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
        expect(await tokenBalanceOf(server, player.wallet.address)).toBe(before);

        const open = await setPolicy(dev, client.clientId, {
          approval_url: receiver.url,
          approval_fail_open: true,
        });
        expect(open.status).toBe(200);
        const sponsored = await sessionOp(player);
        expect(sponsored.status, JSON.stringify(sponsored.body)).toBe(200);
        expect(await tokenBalanceOf(server, player.wallet.address)).toBe(before - 1n);
      });

      it('records each decision and its latency in the audit log and the metrics', async () => {
        const entries = await server.services.database.db
          .selectFrom('audit_log')
          .select(['outcome', 'details'])
          .where('action', '=', 'sponsorship.approval')
          .where('client_id', '=', client.clientId)
          .execute();
        const outcomes = entries.map((e) => JSON.parse(e.details).outcome as string).sort();
        expect(outcomes).toEqual(['approved', 'refused', 'timeout', 'timeout']);
        const timeouts = entries.filter((e) => JSON.parse(e.details).outcome === 'timeout');
        expect(timeouts.map((e) => e.outcome).sort()).toEqual(['denied', 'success']);
        expect(timeouts.every((e) => JSON.parse(e.details).latency_ms >= 1_900)).toBe(true);
        const { body } = await server.services.metrics.render();
        expect(body).toMatch(/dauth_sponsorship_approvals_total\{outcome="refused",approved="false"\} 1/);
        expect(body).toMatch(/dauth_sponsorship_approval_seconds_count\{outcome="timeout"\} 2/);
      });
    });
  },
);
