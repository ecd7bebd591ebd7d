/**
 * Issue 39 on two replicas: the per-app sponsorship policy (docs/sponsorship.md) set on replica A holds over
 * A and B together — one PostgreSQL schema, one Redis, one external anvil. One player fires sponsored session
 * operations at both replicas at once: exactly the budget's worth is sponsored over both, every other one is
 * refused 429 `app_sponsorship_exhausted` by whichever replica it reached, nothing more moves on chain, B
 * reports what A and B charged, and the day's `sponsorship.exhausted` webhook is written once. The same for
 * `ops_per_player_per_minute`, counted over both replicas.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { entryPointAbi } from '@dauth/contracts';
import { type Address, createPublicClient, erc20Abi, getAddress, http as viemHttp, parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Replicas, startReplicas } from '../chain/replicaSupport.js';
import { postgresAvailable, redisAvailable } from '../helpers/environment.js';
import { bearer } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import {
  grantedPlayer,
  type Player,
  request,
  tokenTransferApp,
  transferData,
} from '../sessionKeys/support.js';

const recipient = getAddress(`0x${'ce'.repeat(20)}`);

describe.skipIf(!postgresAvailable || !redisAvailable)(
  'per-app sponsorship policy over two replicas (PostgreSQL, Redis, one chain)',
  () => {
    let r: Replicas;
    let a: TestServer;
    let b: TestServer;
    let token: Address;
    let events: http.Server;
    let eventsUrl: string;

    beforeAll(async () => {
      r = await startReplicas({ count: 2, redis: true });
      const funded = await r.fund(0, {
        paymaster_deposit: parseEther('20').toString(),
        relayer: parseEther('10').toString(),
      });
      expect(funded.status, await funded.clone().text()).toBe(200);
      // The session-key helpers need only `url` and `services` of a server.
      const asTest = (i: number) =>
        ({ ...r.servers[i]!, config: r.servers[i]!.services.config, dataDir: '' }) as TestServer;
      [a, b] = [asTest(0), asTest(1)];
      token = a.services.chainInfo.contracts.token;
      // The studio's webhook endpoint: takes every delivery.
      events = http.createServer((req, res) => {
        req.resume();
        req.on('end', () => res.writeHead(204).end());
      });
      await new Promise<void>((resolve) => events.listen(0, '127.0.0.1', resolve));
      eventsUrl = `http://127.0.0.1:${(events.address() as AddressInfo).port}/events`;
    }, 180_000);
    afterAll(async () => {
      events?.closeAllConnections();
      await new Promise<void>((resolve) => (events ? events.close(() => resolve()) : resolve()));
      await r?.close();
    }, 60_000);

    const getPolicy = (server: TestServer, devToken: string, clientId: string) =>
      request(server, 'GET', `/v1/dev-user/clients/${clientId}/sponsorship`, devToken);
    const sessionOp = (server: TestServer, p: Player) =>
      fetch(`${server.url}/v1/wallet/session-operations`, {
        method: 'POST',
        headers: { ...bearer(p.accessToken), 'content-type': 'application/json' },
        body: JSON.stringify({ calls: [{ to: token, data: transferData(recipient, 1n) }] }),
      }).then(async (res) => ({
        via: server === a ? 'A' : 'B',
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        body: (await res.json()) as Record<string, unknown>,
      }));
    // The shared chain, read directly (an external chain's replicas do not publish its RPC URL).
    const chain = () => createPublicClient({ transport: viemHttp(r.node.rpcUrl) });
    const tokenBalanceOf = (address: Address) =>
      chain().readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [address] });

    it('a player’s daily budget set on A: a burst at A and B sponsors exactly two operations, refuses the rest on both', async () => {
      const { dev, client } = await tokenTransferApp(a);
      const hook = await request(
        a,
        'POST',
        `/v1/dev-user/clients/${client.clientId}/webhooks`,
        dev.loginToken,
        {
          url: eventsUrl,
          events: ['sponsorship.exhausted'],
        },
      );
      expect(hook.status, JSON.stringify(hook.body)).toBe(201);
      const player = await grantedPlayer(a, client);

      // One operation's charge, measured as the burst's will be (the recipient already holds tokens, and the
      // wallet's nonce lane of each replica is in use: a replica's first operation of a wallet opens its
      // lane, docs/chain.md "Nonce lanes per replica"): the first two warm up, the third is measured, on B.
      expect((await sessionOp(a, player)).status).toBe(200);
      expect((await sessionOp(b, player)).status).toBe(200);
      const warm = (await getPolicy(b, dev.loginToken, client.clientId)).body.today.gas as number;
      expect(warm).toBeGreaterThan(0);
      expect((await sessionOp(b, player)).status).toBe(200);
      const used = (await getPolicy(a, dev.loginToken, client.clientId)).body.today.gas as number;
      const charge = used - warm;
      expect(charge).toBeGreaterThan(0);
      expect(charge).toBeLessThanOrEqual(warm);

      // Room for two more operations, not three, set on A.
      const budget = used + 2 * charge + Math.floor(charge / 2);
      const put = await request(
        a,
        'PUT',
        `/v1/dev-user/clients/${client.clientId}/sponsorship`,
        dev.loginToken,
        {
          daily_gas_per_player: budget,
        },
      );
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      expect(put.body.daily_gas_per_player).toBe(budget);

      const sender = player.wallet.address;
      const balance = await tokenBalanceOf(sender);
      const received = await tokenBalanceOf(recipient);
      const fromBlock = (await chain().getBlockNumber()) + 1n;

      // Six at once, three at each replica.
      const burst = await Promise.all([a, b, a, b, a, b].map((server) => sessionOp(server, player)));
      const summary = JSON.stringify(burst.map((x) => [x.via, x.status, x.body.error]));
      const sponsored = burst.filter((x) => x.status === 200);
      const refused = burst.filter((x) => x.status !== 200);
      expect(sponsored, summary).toHaveLength(2);
      expect(refused, summary).toHaveLength(4);
      // Each replica refused some: A and B both saw the shared budget spent.
      expect(new Set(refused.map((x) => x.via)), summary).toEqual(new Set(['A', 'B']));
      for (const x of refused) {
        expect(x.status, summary).toBe(429);
        expect(x.body).toMatchObject({ error: 'app_sponsorship_exhausted', budget: 'daily_gas_per_player' });
        const retryAfter = x.body.retry_after as number;
        expect(retryAfter).toBeGreaterThan(0);
        expect(retryAfter).toBeLessThanOrEqual(86_400);
        expect(Number(x.retryAfter)).toBe(retryAfter);
      }

      // On chain: since the burst began, exactly the two sponsored operations (the chain is this file's alone).
      expect(await tokenBalanceOf(sender)).toBe(balance - 2n);
      expect(await tokenBalanceOf(recipient)).toBe(received + 2n);
      const operations = await chain().getContractEvents({
        address: a.services.chainInfo.contracts.entry_point,
        abi: entryPointAbi,
        eventName: 'UserOperationEvent',
        fromBlock,
      });
      expect(operations.map((e) => e.args.success)).toEqual([true, true]);
      expect(operations.map((e) => e.args.userOpHash).sort()).toEqual(
        sponsored.map((x) => x.body.user_op_hash).sort(),
      );

      // B reports what A and B charged: five operations, the two of the burst within the budget, four refusals.
      const report = await getPolicy(b, dev.loginToken, client.clientId);
      expect(report.status).toBe(200);
      expect(report.body.daily_gas_per_player).toBe(budget);
      const today = report.body.today;
      const mine = today.top_players.find((row: { user_id: string }) => row.user_id === player.user.uuid);
      expect(mine.operations).toBe(5);
      expect(mine.gas).toBeGreaterThan(used + charge);
      expect(mine.gas).toBeLessThanOrEqual(budget);
      expect(today.gas).toBe(mine.gas);
      expect(today.operations).toBe(5);
      expect(today.refused).toBe(4);

      // Both replicas refused, one webhook of the day for the app.
      const deliveries = await b.services.database.db
        .selectFrom('webhook_deliveries')
        .select(['payload'])
        .where('client_id', '=', client.clientId)
        .where('type', '=', 'sponsorship.exhausted')
        .execute();
      expect(deliveries).toHaveLength(1);
      expect(JSON.parse(deliveries[0]!.payload).data).toMatchObject({
        client_id: client.clientId,
        budget: 'daily_gas_per_player',
      });
    }, 120_000);

    it('a per-minute rate set on A: a burst at A and B inside one UTC minute sponsors exactly the rate', async () => {
      const { dev, client } = await tokenTransferApp(a);
      const player = await grantedPlayer(b, client);
      const put = await request(
        a,
        'PUT',
        `/v1/dev-user/clients/${client.clientId}/sponsorship`,
        dev.loginToken,
        {
          ops_per_player_per_minute: 2,
        },
      );
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      const balance = await tokenBalanceOf(player.wallet.address);
      // The whole burst inside one UTC minute.
      if (new Date().getUTCSeconds() > 45)
        await new Promise((resolve) => setTimeout(resolve, (61 - new Date().getUTCSeconds()) * 1000));

      const burst = await Promise.all([b, a, b, a, b, a].map((server) => sessionOp(server, player)));
      const summary = JSON.stringify(burst.map((x) => [x.via, x.status, x.body.error]));
      const refused = burst.filter((x) => x.status !== 200);
      expect(
        burst.filter((x) => x.status === 200),
        summary,
      ).toHaveLength(2);
      expect(refused, summary).toHaveLength(4);
      expect(new Set(refused.map((x) => x.via)), summary).toEqual(new Set(['A', 'B']));
      for (const x of refused) {
        expect(x.status, summary).toBe(429);
        expect(x.body).toMatchObject({
          error: 'app_sponsorship_exhausted',
          budget: 'ops_per_player_per_minute',
        });
        expect(x.body.retry_after).toBeGreaterThan(0);
        expect(x.body.retry_after).toBeLessThanOrEqual(60);
        expect(x.retryAfter).toBe(String(x.body.retry_after));
      }
      expect(await tokenBalanceOf(player.wallet.address)).toBe(balance - 2n);
      const today = (await getPolicy(a, dev.loginToken, client.clientId)).body.today;
      expect(today.operations).toBe(2);
      expect(today.refused).toBe(4);
    }, 120_000);
  },
);
