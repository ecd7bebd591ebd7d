/**
 * Session keys (issue 27, docs/session-keys.md) on a real chain (the embedded anvil): an app's wallet policy, the
 * player's grant with the PIN, session operations with the app's access token, the limits (off chain 403 and on
 * chain a direct EntryPoint submission), the next day, the attacks, revocation by the player (the key signs its
 * own revocation) and by the app grant's end, expiry, and an owner flow after the wallet's upgrade.
 */
import { dauthAccountAbi, dauthSessionAccountAbi } from '@dauth/contracts';
import { type Address, encodeFunctionData, getAddress, zeroAddress } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import type { TestClient, TestUser } from '../helpers/http.js';
import { chainClient } from '../pin/pinHelpers.js';
import { authorizeUrl } from '../oauth/support.js';
import { PageBrowser } from '../oauth/pageBrowser.js';
import { createUser } from '../helpers/http.js';
import {
  advanceTime,
  DAY,
  directSessionOp,
  executeCall,
  grant,
  newApp,
  newPlayer,
  type Player,
  pinTrio,
  request,
  sessionState,
  tokenBalanceOf,
  transferData,
  TRANSFER,
  unsealedKey,
} from './support.js';

/** The consent page's date in English (`{until, date, medium}`): "Dec 24, 2026". */
const englishDay = (ms: number) =>
  new Intl.DateTimeFormat('en', { year: 'numeric', month: 'short', day: 'numeric' }).format(ms);

const recipient = getAddress(`0x${'cd'.repeat(20)}`);

describe.each([{ postgres: false }, { postgres: true }])(
  'session keys on a real chain (postgres: $postgres)',
  (opts) => {
    let server: TestServer;
    let dev: TestUser;
    let client: TestClient;
    let player: Player;
    let token: Address;
    let account: Address;
    let sessionKey: Address;

    const policy = () => ({
      calls: [{ to: token, selectors: [TRANSFER] }],
      max_value_per_call_wei: '0',
      max_value_per_day_wei: '0',
      token_limits: [{ token, per_day: '300' }],
      valid_for_seconds: 3 * DAY,
    });
    const sessionOp = (calls: unknown[], accessToken = player.accessToken) =>
      request(server, 'POST', '/v1/wallet/session-operations', accessToken, { calls });
    const send = (amount: bigint) => ({ to: token, data: transferData(recipient, amount) });
    const nonceOf = (sender: Address) => server.services.chain.gateway.getNonce(sender);

    beforeAll(async () => {
      const { postgresAvailable } = await import('../helpers/environment.js');
      if (opts.postgres && !postgresAvailable) return;
      server = await startTestServer({ ...opts, env: { CALLBACK_ALLOW_PRIVATE: 'true' } });
      token = server.services.chainInfo.contracts.token;
      ({ dev, client } = await newApp(server));
      player = await newPlayer(server, client);
    }, 120_000);
    afterAll(() => server?.close());
    beforeEach((ctx) => {
      if (!server) ctx.skip();
    });

    it('refuses a policy naming a platform contract or an uncapped transfer, and stores a valid one', async () => {
      const contracts = server.services.chainInfo.contracts;
      const put = (body: unknown) =>
        request(server, 'PUT', `/v1/dev-user/clients/${client.clientId}/wallet-policy`, dev.loginToken, body);
      for (const [to, field] of [
        [contracts.paymaster, 'calls.0.to'],
        [contracts.entry_point, 'calls.0.to'],
        [contracts.account_factory, 'calls.0.to'],
        [contracts.dex, 'calls.0.to'],
        [zeroAddress, 'calls.0.to'],
      ] as const) {
        const res = await put({ ...policy(), calls: [{ to, selectors: ['0x12345678'] }] });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ error: 'invalid_wallet_policy', details: { field } });
      }
      const uncapped = await put({ ...policy(), token_limits: [] });
      expect(uncapped.status).toBe(400);
      expect(uncapped.body).toMatchObject({
        field: 'calls.0.selectors.0',
        details: { field: 'calls.0.selectors.0' },
      });
      const tooLong = await put({ ...policy(), valid_for_seconds: 31 * DAY });
      expect(tooLong.status).toBe(400);
      expect(
        (
          await request(
            server,
            'GET',
            `/v1/dev-user/clients/${client.clientId}/wallet-policy`,
            dev.loginToken,
          )
        ).status,
      ).toBe(404);

      // Another developer cannot set it.
      const other = await newApp(server, 'Other');
      expect(
        (
          await request(
            server,
            'PUT',
            `/v1/dev-user/clients/${client.clientId}/wallet-policy`,
            other.dev.loginToken,
            policy(),
          )
        ).status,
      ).toBe(404);

      const ok = await put(policy());
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({
        ...policy(),
        calls: [{ to: getAddress(token), selectors: [TRANSFER] }],
        token_limits: [{ token: getAddress(token), per_day: '300' }],
      });
      expect(ok.body.updated_at).toMatch(/Z$/);
      const got = await request(
        server,
        'GET',
        `/v1/dev-user/clients/${client.clientId}/wallet-policy`,
        dev.loginToken,
      );
      expect(got.body).toEqual(ok.body);
      const path = `/v1/dev-user/clients/${client.clientId}/wallet-policy`;
      expect((await request(server, 'DELETE', path, dev.loginToken)).body).toEqual({ success: true });
      expect((await request(server, 'GET', path, dev.loginToken)).body).toMatchObject({
        error: 'wallet_policy_not_found',
      });
      expect((await request(server, 'DELETE', path, dev.loginToken)).status).toBe(404);
      expect((await put(policy())).status).toBe(200);
    });

    it('the consent page states the wallet policy in words', async () => {
      const symbol = await chainClient(server).readContract({
        address: token,
        abi: [
          {
            type: 'function',
            name: 'symbol',
            inputs: [],
            outputs: [{ type: 'string' }],
            stateMutability: 'view',
          },
        ],
        functionName: 'symbol',
      });
      const browser = new PageBrowser(server.url);
      const page = await browser.signIn(
        authorizeUrl(server.url, {
          client_id: client.clientId,
          redirect_uri: client.redirectUri,
          response_type: 'code',
          state: 's',
        }),
        await createUser(server.url),
      );
      const text = await page.text();
      expect(text).toContain('id="wallet-policy"');
      expect(text).toContain(
        `may spend up to 0.0000000000000003 ${symbol} a day from your wallet until ${englishDay(Date.now() + 3 * DAY * 1000)}`,
      );
    });

    it('grants with the PIN: the wallet keeps its address and is owned by its session account; the key is never returned', async () => {
      const res = await grant(server, player, client.clientId);
      expect(res.status).toBe(201);
      expect(res.body.session_key).toMatch(/^0x[0-9a-fA-F]{40}$/);
      expect(Object.keys(res.body).sort()).toEqual([
        'policy',
        'session_key',
        'tx_hash',
        'user_op_hash',
        'valid_until',
      ]);
      expect(res.body.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(Date.parse(res.body.valid_until)).toBeGreaterThan(Date.now() + 2.9 * DAY * 1000);
      sessionKey = res.body.session_key as Address;

      const chain = chainClient(server);
      account = (await chain.readContract({
        address: player.wallet.address,
        abi: dauthAccountAbi,
        functionName: 'owner',
      })) as Address;
      expect(
        await chain.readContract({ address: account, abi: dauthSessionAccountAbi, functionName: 'vault' }),
      ).toBe(getAddress(player.wallet.address));
      expect((await sessionState(server, account, sessionKey)).active).toBe(true);
      // Sealed in the database, never in clear.
      const row = await server.services.database.db
        .selectFrom('session_keys')
        .selectAll()
        .where('key_address', '=', sessionKey.toLowerCase())
        .executeTakeFirstOrThrow();
      expect(row.key_sealed).toMatch(/^v1\./);
      expect(row.state).toBe('active');

      const wrongPin = await request(server, 'POST', '/v1/wallet/session-keys', player.user.loginToken, {
        client_id: client.clientId,
        ...pinTrio(player),
        pin_hash: 'f'.repeat(64),
      });
      expect(wrongPin.status).toBe(401);
    });

    it('three session operations without a PIN, then the daily cap: 403 off chain and a failing direct EntryPoint submission', async () => {
      const before = await tokenBalanceOf(server, player.wallet.address);
      for (let i = 0; i < 3; i++) {
        const res = await sessionOp([send(100n)]);
        expect(res.status).toBe(200);
        expect(res.body.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
        expect(res.body.results).toEqual([{ call_index: 0, to: getAddress(token), success: true }]);
      }
      expect(await tokenBalanceOf(server, player.wallet.address)).toBe(before - 300n);
      const list = await request(server, 'GET', '/v1/wallet/session-keys', player.user.loginToken);
      expect(list.body.session_keys).toEqual([
        expect.objectContaining({
          client_id: client.clientId,
          client_name: 'Gem game',
          session_key: sessionKey,
          spent_today: { value_wei: '0', tokens: [{ token: getAddress(token), amount: '300' }] },
        }),
      ]);

      const nonce = await nonceOf(account);
      const over = await sessionOp([send(1n)]);
      expect(over.status).toBe(403);
      expect(over.body).toMatchObject({
        error: 'outside_session_policy',
        details: { call_index: 0, reason: 'token_per_day' },
      });
      expect(await nonceOf(account)).toBe(nonce);

      // A compromised service signs the same over-limit call with the key and sends it straight to the EntryPoint.
      const key = await unsealedKey(server, sessionKey);
      const refused = await directSessionOp(
        server,
        account,
        key,
        executeCall(token, 0n, transferData(recipient, 1n)),
      );
      expect(refused).toMatch(/session: token per day/);
      expect(await tokenBalanceOf(server, player.wallet.address)).toBe(before - 300n);
      expect(await nonceOf(account)).toBe(nonce);
    });

    it('refuses the attacks with nothing changed: forbidden targets, a hidden call in a batch, other apps and players', async () => {
      const contracts = server.services.chainInfo.contracts;
      const balance = await tokenBalanceOf(server, player.wallet.address);
      const nonce = await nonceOf(account);
      const changeOwner = encodeFunctionData({
        abi: dauthAccountAbi,
        functionName: 'changeOwner',
        args: [recipient],
      });
      const addKey = encodeFunctionData({
        abi: dauthSessionAccountAbi,
        functionName: 'addSessionKey',
        args: [
          recipient,
          {
            targets: [],
            selectors: [],
            maxValuePerCall: 0n,
            maxValuePerDay: 0n,
            tokens: [],
            tokenLimitsPerDay: [],
            validUntil: 2 ** 40,
          },
        ],
      });
      const cases: [unknown[], number, string][] = [
        [[{ to: contracts.paymaster, data: '0x' }], 0, 'forbidden_target'],
        [[{ to: contracts.entry_point, data: '0x' }], 0, 'forbidden_target'],
        [[{ to: player.wallet.address, data: changeOwner }], 0, 'forbidden_target'],
        [[{ to: account, data: addKey }], 0, 'forbidden_target'],
        // The delegatecall-like path: the wallet's own execute, reached through the session account.
        [
          [
            {
              to: player.wallet.address,
              data: encodeFunctionData({
                abi: dauthAccountAbi,
                functionName: 'execute',
                args: [recipient, 0n, '0x'],
              }),
            },
          ],
          0,
          'forbidden_target',
        ],
        [[{ to: contracts.dex, data: '0x12345678' }], 0, 'call_not_allowed'],
        [[{ to: recipient, value: '1' }], 0, 'call_not_allowed'],
        // One forbidden call hidden among allowed ones.
        [[send(0n), { to: player.wallet.address, data: changeOwner }, send(0n)], 1, 'forbidden_target'],
      ];
      for (const [calls, index, reason] of cases) {
        const res = await sessionOp(calls);
        expect(res.status, JSON.stringify(calls)).toBe(403);
        expect(res.body.details).toEqual({ call_index: index, reason });
      }
      // And on chain, the same calls signed by the key are refused by the wallet contract itself.
      const key = await unsealedKey(server, sessionKey);
      for (const callData of [
        executeCall(player.wallet.address, 0n, changeOwner),
        executeCall(account, 0n, addKey),
        executeCall(contracts.entry_point, 0n, '0x'),
        executeCall(contracts.paymaster, 0n, '0x'),
        // The delegatecall-like path: have the wallet's own execute run an arbitrary call.
        executeCall(
          player.wallet.address,
          0n,
          encodeFunctionData({
            abi: dauthAccountAbi,
            functionName: 'execute',
            args: [token, 0n, transferData(recipient, 1n)],
          }),
        ),
        encodeFunctionData({
          abi: dauthSessionAccountAbi,
          functionName: 'executeBatch',
          args: [[token, player.wallet.address], [], [transferData(recipient, 0n), changeOwner]],
        }),
        encodeFunctionData({ abi: dauthSessionAccountAbi, functionName: 'changeOwner', args: [recipient] }),
      ]) {
        expect(await directSessionOp(server, account, key, callData)).toMatch(/AA2\d/);
      }

      // Another app's access token for the same player (no grant of that app): no session key.
      const other = await newApp(server, 'Other game');
      const { token: otherToken } = await server.services.tokens.issueAccessToken({
        userId: player.user.uuid,
        clientId: other.client.clientId,
        grantId: 'grant-other',
      });
      expect((await sessionOp([send(1n)], otherToken)).body).toMatchObject({
        error: 'session_key_not_found',
      });
      // A login JWT is not an app's access token.
      expect((await sessionOp([send(1n)], player.user.loginToken)).status).toBe(401);
      // Another player of the same app has no grant: their token does not reach this key.
      const second = await newPlayer(server, client);
      expect((await sessionOp([send(1n)], second.accessToken)).status).toBe(404);
      // The key signing for another player's wallet is refused on chain (not a key of that wallet).
      expect(await grant(server, second, client.clientId)).toMatchObject({ status: 201 });
      const secondAccount = (await chainClient(server).readContract({
        address: second.wallet.address,
        abi: dauthAccountAbi,
        functionName: 'owner',
      })) as Address;
      expect(
        await directSessionOp(
          server,
          secondAccount,
          key,
          executeCall(token, 0n, transferData(recipient, 1n)),
        ),
      ).toMatch(/AA2\d/);

      expect(await tokenBalanceOf(server, player.wallet.address)).toBe(balance);
      expect(await nonceOf(account)).toBe(nonce);
    });

    it('an owner flow after the grant still works with the PIN (sent through the session account)', async () => {
      const before = await tokenBalanceOf(server, player.wallet.address);
      const res = await request(server, 'POST', '/v1/token/transfer', player.user.loginToken, {
        from_address: player.wallet.address,
        to_address: recipient,
        amount: '7',
        contract_address: token,
        ...pinTrio(player),
      });
      expect(res.status).toBe(200);
      expect(await tokenBalanceOf(server, player.wallet.address)).toBe(before - 7n);
    });

    it('the next day (anvil time) the cap is fresh again', async () => {
      await advanceTime(server, DAY);
      const res = await sessionOp([send(100n)]);
      expect(res.status).toBe(200);
      const list = await request(server, 'GET', '/v1/wallet/session-keys', player.user.loginToken);
      expect(list.body.session_keys[0].spent_today.tokens).toEqual([
        { token: getAddress(token), amount: '100' },
      ]);
    });

    it('revoked by the player: the key signs its own revocation; refused on and off chain afterwards', async () => {
      const res = await request(
        server,
        'DELETE',
        `/v1/wallet/session-keys/${client.clientId}`,
        player.user.loginToken,
      );
      expect(res.status).toBe(200);
      expect(res.body.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
      expect((await sessionState(server, account, sessionKey)).active).toBe(false);
      expect((await sessionOp([send(1n)])).status).toBe(404);
      const key = await unsealedKey(server, sessionKey);
      expect(
        await directSessionOp(server, account, key, executeCall(token, 0n, transferData(recipient, 1n))),
      ).toMatch(/session: unknown or revoked key/);
      expect(
        (await request(server, 'GET', '/v1/wallet/session-keys', player.user.loginToken)).body.session_keys,
      ).toEqual([]);

      // The player's wallet history shows the grant, every session operation and the revocation
      // (issue 41: tokens left the wallet with no record), the answered ones with their hashes.
      type Operation = {
        action: string;
        outcome: string;
        status: number;
        client_id: string | null;
        details: Record<string, unknown>;
      };
      const readHistory = async () =>
        (await request(server, 'GET', '/v1/dev-user/operations', player.user.loginToken)).body
          .operations as Operation[];
      // The trail is written once the answer has gone (the route's onResponse): wait for the revocation.
      let history = await readHistory();
      for (let tries = 0; !history.some((o) => o.action === 'session_key.revoke') && tries < 40; tries++) {
        await new Promise((r) => setTimeout(r, 100));
        history = await readHistory();
      }
      const revoked = history.find((o) => o.action === 'session_key.revoke');
      expect(revoked).toMatchObject({
        outcome: 'success',
        status: 200,
        details: { client_id: client.clientId, tx_hash: res.body.tx_hash },
      });
      // (a refused second grant is there too: `denied`, newer than the one that took)
      expect(history.find((o) => o.action === 'session_key.grant' && o.outcome === 'success')).toMatchObject({
        outcome: 'success',
        details: {
          client_id: client.clientId,
          session_key: sessionKey,
          tx_hash: expect.stringMatching(/^0x/),
        },
      });
      const operations = history.filter((o) => o.action === 'session_key.operation');
      const done = operations.filter((o) => o.outcome === 'success');
      expect(done.length).toBeGreaterThanOrEqual(3);
      expect(done[0]!.client_id).toBe(client.clientId);
      expect(done[0]!.details).toMatchObject({
        calls: [{ to: token, value: '0', selector: TRANSFER }],
        user_op_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      });
      // The refused ones (the daily cap, the attacks) are there too, with their status.
      expect(operations.some((o) => o.outcome !== 'success' && o.status === 403)).toBe(true);
    });

    it('revoking the app grant revokes its session key on chain in the background; events are in the outbox', async () => {
      const hook = await request(
        server,
        'POST',
        `/v1/dev-user/clients/${client.clientId}/webhooks`,
        dev.loginToken,
        {
          url: 'http://127.0.0.1:9/hook',
          events: ['session_key.granted', 'session_key.revoked'],
        },
      );
      expect(hook.status).toBe(201);
      const again = await grant(server, player, client.clientId);
      expect(again.status).toBe(201);
      const key = again.body.session_key as Address;
      expect((await sessionOp([send(1n)])).status).toBe(200);
      const revoked = await request(
        server,
        'DELETE',
        `/v1/dev-user/consents/${client.clientId}`,
        player.user.loginToken,
      );
      expect(revoked.status).toBe(200);
      const keyRow = () =>
        server.services.database.db
          .selectFrom('session_keys')
          .select(['state', 'revoke_tx_hash'])
          .where('key_address', '=', key.toLowerCase())
          .executeTakeFirstOrThrow();
      // The chain says revoked as soon as the transaction is mined; the row follows when the worker
      // has read the receipt, a moment later: wait for both.
      const deadline = Date.now() + 30_000;
      while (
        ((await sessionState(server, account, key)).active || (await keyRow()).state !== 'revoked') &&
        Date.now() < deadline
      ) {
        await new Promise((r) => setTimeout(r, 250));
      }
      expect((await sessionState(server, account, key)).active).toBe(false);
      const row = await keyRow();
      expect(row.state).toBe('revoked');
      expect(row.revoke_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
      const events = await server.services.database.db
        .selectFrom('webhook_deliveries')
        .select(['type', 'payload'])
        .where('client_id', '=', client.clientId)
        .orderBy('msg_id')
        .execute();
      expect(events.map((e) => [e.type, JSON.parse(e.payload).data])).toEqual([
        [
          'session_key.granted',
          {
            client_id: client.clientId,
            user_uuid: player.user.uuid,
            session_key: key,
            valid_until: again.body.valid_until,
            tx_hash: again.body.tx_hash,
          },
        ],
        [
          'session_key.revoked',
          {
            client_id: client.clientId,
            user_uuid: player.user.uuid,
            session_key: key,
            valid_until: again.body.valid_until,
            tx_hash: row.revoke_tx_hash,
          },
        ],
      ]);
    });

    it('expires: refused off chain (403 expired) and on chain (AA22) after valid_until', async () => {
      const p = await newPlayer(server, client);
      const res = await grant(server, p, client.clientId);
      expect(res.status).toBe(201);
      const key = res.body.session_key as Address;
      const acct = (await chainClient(server).readContract({
        address: p.wallet.address,
        abi: dauthAccountAbi,
        functionName: 'owner',
      })) as Address;
      await advanceTime(server, 3 * DAY + 60);
      const over = await sessionOp([send(1n)], p.accessToken);
      expect(over.status).toBe(403);
      expect(over.body.details).toEqual({ call_index: 0, reason: 'expired' });
      expect(
        await directSessionOp(
          server,
          acct,
          await unsealedKey(server, key),
          executeCall(token, 0n, transferData(recipient, 1n)),
        ),
      ).toMatch(/AA22/);
    });
  },
);
