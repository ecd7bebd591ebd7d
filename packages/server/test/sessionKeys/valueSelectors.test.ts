/**
 * Wallet policies and value-moving selectors (issue 36, decisions §9, docs/session-keys.md "Approvals") on the
 * embedded chain: `approve`, `transferFrom`, `setApprovalForAll`, every `safeTransferFrom`, `permit`, … are refused
 * at `PUT` unless the target is a capped token (where only `approve` is allowed); a policy stored before that rule
 * is refused at the grant before the PIN is used; an approval made under a token's daily cap must end within its
 * operation, so it cannot be spent on a later day on top of that day's cap.
 */
import { type Address, encodeFunctionData, erc20Abi, getAddress, toFunctionSelector } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SessionKeyStore } from '../../src/stores/sessionKeyStore.js';
import type { TestClient, TestUser } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { chainClient } from '../pin/pinHelpers.js';
import {
  advanceTime,
  DAY,
  grant,
  newApp,
  newPlayer,
  type Player,
  request,
  tokenBalanceOf,
  TRANSFER,
  transferData,
} from './support.js';

/** Every selector of decisions §9 (and DAI's permit, callback transfers, ERC-777 and Permit2), by its signature. */
const VALUE_MOVING = [
  'approve(address,uint256)',
  'increaseAllowance(address,uint256)',
  'transferFrom(address,address,uint256)',
  'setApprovalForAll(address,bool)',
  'safeTransferFrom(address,address,uint256)',
  'safeTransferFrom(address,address,uint256,bytes)',
  'safeTransferFrom(address,address,uint256,uint256,bytes)',
  'safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)',
  'permit(address,address,uint256,uint256,uint8,bytes32,bytes32)',
  'permit(address,address,uint256,uint256,bool,uint8,bytes32,bytes32)',
  // Callback transfers and approvals, ERC-777 sends, Permit2.
  'transferAndCall(address,uint256,bytes)',
  'approveAndCall(address,uint256,bytes)',
  'send(address,uint256,bytes)',
  'operatorSend(address,address,uint256,bytes,bytes)',
  'permit(address,((address,uint160,uint48,uint48),address,uint256),bytes)',
  'permit(address,((address,uint160,uint48,uint48)[],address,uint256),bytes)',
  'transferFrom(address,address,uint160,address)',
  'permitTransferFrom(((address,uint256),uint256,uint256),(address,uint256),address,bytes)',
].map((signature) => ({ signature, selector: toFunctionSelector(signature) }));
const APPROVE = toFunctionSelector('approve(address,uint256)');
const SET_APPROVAL_FOR_ALL = toFunctionSelector('setApprovalForAll(address,bool)');
/** A game's NFT collection (no code needed: the policy only names it). */
const NFT = getAddress(`0x${'ab'.repeat(20)}`);
const GAME = getAddress(`0x${'bc'.repeat(20)}`);
const SPENDER = getAddress(`0x${'5e'.repeat(20)}`);
const RECIPIENT = getAddress(`0x${'cd'.repeat(20)}`);
const CAP = 100n;

const approveData = (spender: Address, amount: bigint) =>
  encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, amount] });

describe.each([{ postgres: false }, { postgres: true }])(
  'wallet policies and value-moving selectors (postgres: $postgres)',
  (opts) => {
    let server: TestServer;
    let dev: TestUser;
    let client: TestClient;
    let player: Player;
    let token: Address;

    const path = () => `/v1/dev-user/clients/${client.clientId}/wallet-policy`;
    const put = (body: unknown) => request(server, 'PUT', path(), dev.loginToken, body);
    const base = () => ({
      max_value_per_call_wei: '0',
      max_value_per_day_wei: '0',
      token_limits: [{ token, per_day: CAP.toString() }],
      valid_for_seconds: 3 * DAY,
    });
    const sessionOp = (calls: unknown[]) =>
      request(server, 'POST', '/v1/wallet/session-operations', player.accessToken, { calls });
    const allowance = () =>
      chainClient(server).readContract({
        address: token,
        abi: erc20Abi,
        functionName: 'allowance',
        args: [player.wallet.address as Address, SPENDER],
      });
    /** The spender's `transferFrom` of the player's tokens, simulated: undefined when it would go through. */
    const spenderPull = async (amount: bigint) => {
      try {
        await chainClient(server).simulateContract({
          account: SPENDER,
          address: token,
          abi: erc20Abi,
          functionName: 'transferFrom',
          args: [player.wallet.address as Address, SPENDER, amount],
        });
        return undefined;
      } catch (err) {
        return String((err as Error).message);
      }
    };

    beforeAll(async () => {
      const { postgresAvailable } = await import('../helpers/environment.js');
      if (opts.postgres && !postgresAvailable) return;
      server = await startTestServer({
        ...opts,
        env: { CALLBACK_ALLOW_PRIVATE: 'true', RATE_LIMITS: 'login_address=1000/1m,wallet_policy=1000/1m' },
      });
      token = server.services.chainInfo.contracts.token;
      ({ dev, client } = await newApp(server));
      player = await newPlayer(server, client);
    }, 120_000);
    afterAll(() => server?.close());
    beforeEach((ctx) => {
      if (!server) ctx.skip();
    });

    it('refuses at PUT each value-moving selector on a target without a token cap, naming the field; stores nothing', async () => {
      for (const { signature, selector } of VALUE_MOVING) {
        const res = await put({
          ...base(),
          calls: [
            { to: GAME, selectors: ['0x12345678'] },
            { to: NFT, selectors: ['0x12345679', selector] },
          ],
        });
        expect(res.status, signature).toBe(400);
        expect(res.body, signature).toEqual({
          success: false,
          error: 'invalid_wallet_policy',
          message: expect.stringContaining('calls.1.selectors.1') as string,
          field: 'calls.1.selectors.1',
          details: { field: 'calls.1.selectors.1' },
        });
      }
      // Upper-case hex is the same selector.
      const upper = await put({
        ...base(),
        calls: [{ to: NFT, selectors: [SET_APPROVAL_FOR_ALL.toUpperCase().replace('0X', '0x')] }],
      });
      expect(upper.body).toMatchObject({ error: 'invalid_wallet_policy', field: 'calls.0.selectors.0' });
      expect((await request(server, 'GET', path(), dev.loginToken)).status).toBe(404);
    });

    it('on a capped token accepts approve (the cap counts it) and refuses the selectors the cap does not bound', async () => {
      for (const { signature, selector } of VALUE_MOVING.filter((v) => v.selector !== APPROVE)) {
        const res = await put({ ...base(), calls: [{ to: token, selectors: [TRANSFER, selector] }] });
        expect(res.status, signature).toBe(400);
        expect(res.body, signature).toMatchObject({
          error: 'invalid_wallet_policy',
          field: 'calls.0.selectors.1',
        });
      }
      expect((await request(server, 'GET', path(), dev.loginToken)).status).toBe(404);
      const ok = await put({ ...base(), calls: [{ to: token, selectors: [TRANSFER, APPROVE] }] });
      expect(ok.status).toBe(200);
      expect(ok.body.calls).toEqual([{ to: getAddress(token), selectors: [TRANSFER, APPROVE] }]);
    });

    it('refuses the grant of a policy stored before the rule, before the PIN is used or anything is sent', async () => {
      // Written straight to the store, as a policy accepted before decisions §9.
      await new SessionKeyStore(server.services.database.db).putPolicy(
        client.clientId,
        {
          ...base(),
          calls: [
            { to: token, selectors: [TRANSFER] },
            { to: NFT, selectors: [SET_APPROVAL_FOR_ALL] },
          ],
        },
        Date.now(),
      );
      const wallet = player.wallet.address as Address;
      const codeBefore = await chainClient(server).getCode({ address: wallet });
      const nonce = await server.services.chain.gateway.getNonce(wallet);
      const res = await grant(server, player, client.clientId);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        success: false,
        error: 'invalid_wallet_policy',
        message: expect.stringContaining('setApprovalForAll') as string,
        field: 'calls.1.selectors.0',
        details: { field: 'calls.1.selectors.0' },
      });
      // Nothing sent (the wallet was not handed to a session account), no key recorded.
      expect(await server.services.chain.gateway.getNonce(wallet)).toBe(nonce);
      expect(await chainClient(server).getCode({ address: wallet })).toBe(codeBefore);
      const db = server.services.database.db;
      expect(await db.selectFrom('session_accounts').selectAll().execute()).toEqual([]);
      expect(await db.selectFrom('session_keys').selectAll().execute()).toEqual([]);
    });

    it('an approval under the cap ends with its operation: it cannot be spent on a later day on top of that day’s cap', async () => {
      expect((await put({ ...base(), calls: [{ to: token, selectors: [TRANSFER, APPROVE] }] })).status).toBe(
        200,
      );
      const granted = await grant(server, player, client.clientId);
      expect(granted.status).toBe(201);
      const account = getAddress(
        (
          await server.services.database.db
            .selectFrom('session_accounts')
            .select('account_address')
            .executeTakeFirstOrThrow()
        ).account_address,
      );
      const nonce = () => server.services.chain.gateway.getNonce(account);

      // Day 1: an approval of the whole cap left standing is refused, nothing signed.
      const before = await nonce();
      const standing = await sessionOp([{ to: token, data: approveData(SPENDER, CAP) }]);
      expect(standing.status).toBe(403);
      expect(standing.body).toMatchObject({
        error: 'outside_session_policy',
        details: { call_index: 0, reason: 'approval_not_reset' },
      });
      // A reset to another spender, or before the approval, does not end it.
      for (const calls of [
        [approveData(SPENDER, CAP), approveData(RECIPIENT, 0n)],
        [approveData(SPENDER, 0n), approveData(SPENDER, CAP)],
      ]) {
        const res = await sessionOp(calls.map((data) => ({ to: token, data })));
        expect(res.status).toBe(403);
        expect(res.body.details.reason).toBe('approval_not_reset');
      }
      expect(await nonce()).toBe(before);
      expect(await allowance()).toBe(0n);

      // Approved and set back to 0 in one operation: accepted, the whole amount counted on the day.
      const paired = await sessionOp([
        { to: token, data: approveData(SPENDER, CAP) },
        { to: token, data: approveData(SPENDER, 0n) },
      ]);
      expect(paired.status).toBe(200);
      expect(await allowance()).toBe(0n);
      const list = await request(server, 'GET', '/v1/wallet/session-keys', player.user.loginToken);
      expect(list.body.session_keys[0].spent_today.tokens).toEqual([
        { token: getAddress(token), amount: CAP.toString() },
      ]);

      // Day 2: the spender holds nothing from day 1; the key moves the day's cap and not one unit more.
      await advanceTime(server, DAY);
      expect(await spenderPull(1n)).toMatch(/allowance/i);
      const wallet = player.wallet.address as Address;
      const balance = await tokenBalanceOf(server, wallet);
      const spend = await sessionOp([{ to: token, data: transferData(RECIPIENT, CAP) }]);
      expect(spend.status).toBe(200);
      const over = await sessionOp([{ to: token, data: transferData(RECIPIENT, 1n) }]);
      expect(over.status).toBe(403);
      expect(over.body.details.reason).toBe('token_per_day');
      expect(await tokenBalanceOf(server, wallet)).toBe(balance - CAP);
    });
  },
);
