/**
 * A wallet policy at its limits on the embedded chain (docs/session-keys.md, "Limits"): the largest policy the API
 * accepts is granted with the PIN within the sponsorship cap of one operation, a session operation of
 * `MAX_SESSION_CALLS` calls spends from 16 different capped tokens and validates within its verification gas, one
 * call more is refused, and a policy too large to grant (the former 32 calls × 16 selectors plus 16 token caps) is
 * refused at `PUT`, never at the grant.
 */
import {
  dauthAccountAbi,
  dauthSessionAccountAbi,
  dauthTokenAbi,
  dauthTokenBytecode,
  entryPointAbi,
} from '@dauth/contracts';
import {
  type Address,
  createWalletClient,
  decodeFunctionData,
  erc20Abi,
  getAddress,
  type Hash,
  type Hex,
  http,
  toFunctionSelector,
  toHex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { encodeWalletCalls } from '../../src/chain/contractCalls.js';
import {
  grantGasAsk,
  SESSION_VERIFICATION_GAS,
  SESSION_VERIFICATION_GAS_PER_CALL,
  SessionAccountGateway,
} from '../../src/chain/sessionAccountGateway.js';
import { OPERATION_GAS } from '../../src/chain/operations/operationSigner.js';
import { MAX_SESSION_CALLS, onChainPolicy } from '../../src/services/sessionKeys/sessionKeyService.js';
import {
  MAX_POLICY_CALLS,
  MAX_POLICY_ENTRIES,
  MAX_SELECTORS_PER_CALL,
  MAX_TOKEN_LIMITS,
} from '../../src/services/sessionKeys/walletPolicy.js';
import { SessionKeyStore } from '../../src/stores/sessionKeyStore.js';
import type { TestClient, TestUser } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { chainClient } from '../pin/pinHelpers.js';
import {
  DAY,
  grant,
  newApp,
  newPlayer,
  type Player,
  request,
  rpc,
  TRANSFER,
  transferData,
} from './support.js';

/** anvil's tenth dev account: deploys the test tokens (the relayer and the other suites use other accounts). */
const TOKEN_DEPLOYER_KEY = '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6';
const CAP = 1_000n;
const SPONSOR_MAX_OPERATION_GAS = 1_500_000n;
const VALIDATE_USER_OP = toFunctionSelector(
  'validateUserOp((address,uint256,bytes,bytes,uint256,uint256,uint256,uint256,uint256,bytes,bytes),bytes32,uint256)',
);

const target = (i: number) => getAddress(`0x${(0xa000 + i).toString(16).padStart(40, '0')}`);
const recipient = (i: number) => getAddress(`0x${(0xb000 + i).toString(16).padStart(40, '0')}`);
const selector = (i: number, j: number) => toHex(0x10000000 + i * 256 + j, { size: 4 });

describe('a wallet policy at its limits, on the embedded chain', () => {
  let server: TestServer;
  let dev: TestUser;
  let client: TestClient;
  let player: Player;
  let account: Address;
  let sessionKey: Address;
  const tokens: Address[] = [];

  const put = (body: unknown) =>
    request(server, 'PUT', `/v1/dev-user/clients/${client.clientId}/wallet-policy`, dev.loginToken, body);
  const sessionOp = (calls: unknown[]) =>
    request(server, 'POST', '/v1/wallet/session-operations', player.accessToken, { calls });
  const basePolicy = {
    max_value_per_call_wei: '0',
    max_value_per_day_wei: '0',
    valid_for_seconds: 3 * DAY,
  };
  /** Every token capped and callable by transfer: 16 pairs + 16 caps = the largest policy that can be granted. */
  const largest = () => ({
    ...basePolicy,
    calls: tokens.map((t) => ({ to: t, selectors: [TRANSFER] })),
    token_limits: tokens.map((t) => ({ token: t, per_day: CAP.toString() })),
  });
  /** The former maximum: 32 calls × 16 selectors and 16 token caps (528 storage entries). */
  const formerMaximum = () => ({
    ...basePolicy,
    calls: Array.from({ length: MAX_POLICY_CALLS }, (_, i) => ({
      to: target(i),
      selectors: Array.from({ length: MAX_SELECTORS_PER_CALL }, (_, j) => selector(i, j)),
    })),
    token_limits: tokens.map((t) => ({ token: t, per_day: CAP.toString() })),
  });

  /** The one operation of `account` in the bundle `txHash` mined, with the gas its receipt used. */
  async function operationOf(txHash: Hash) {
    const chain = chainClient(server);
    const [tx, receipt] = await Promise.all([
      chain.getTransaction({ hash: txHash }),
      chain.getTransactionReceipt({ hash: txHash }),
    ]);
    const decoded = decodeFunctionData({ abi: entryPointAbi, data: tx.input });
    if (decoded.functionName !== 'handleOps') throw new Error(`not a bundle: ${decoded.functionName}`);
    const ops = decoded.args[0];
    const op = ops.find((o) => getAddress(o.sender) === account);
    expect(op).toBeDefined();
    return {
      ops: ops.length,
      callGasLimit: op!.callGasLimit,
      verificationGasLimit: op!.verificationGasLimit,
      /** What the paymaster is asked for: the sponsorship cap's measure. */
      ask: op!.callGasLimit + op!.verificationGasLimit + op!.preVerificationGas,
      gasUsed: receipt.gasUsed,
    };
  }

  /** Gas the session account's `validateUserOp` used in `txHash` (a call trace of the bundle). */
  async function validationGasOf(txHash: Hash): Promise<bigint> {
    interface Frame {
      to: string;
      input: string;
      gasUsed: string;
      calls?: Frame[];
    }
    const trace = (await rpc(server, 'debug_traceTransaction', [txHash, { tracer: 'callTracer' }])) as Frame;
    const found: Frame[] = [];
    const walk = (f: Frame) => {
      if (f.to.toLowerCase() === account.toLowerCase() && f.input.startsWith(VALIDATE_USER_OP)) found.push(f);
      f.calls?.forEach(walk);
    };
    walk(trace);
    expect(found).toHaveLength(1);
    return BigInt(found[0]!.gasUsed);
  }

  beforeAll(async () => {
    server = await startTestServer({ env: { CALLBACK_ALLOW_PRIVATE: 'true' } });
    expect(BigInt(server.services.config.sponsorship.maxOperationGas)).toBe(SPONSOR_MAX_OPERATION_GAS);
    ({ dev, client } = await newApp(server));
    player = await newPlayer(server, client);
    const deployer = privateKeyToAccount(TOKEN_DEPLOYER_KEY);
    const wallet = createWalletClient({
      account: deployer,
      chain: foundry,
      transport: http(server.services.chain.info.rpcUrl!),
    });
    const chain = chainClient(server);
    for (let i = 0; i < MAX_TOKEN_LIMITS; i++) {
      const deployed = await chain.waitForTransactionReceipt({
        hash: await wallet.deployContract({ abi: dauthTokenAbi, bytecode: dauthTokenBytecode }),
      });
      const token = getAddress(deployed.contractAddress!);
      await chain.waitForTransactionReceipt({
        hash: await wallet.writeContract({
          address: token,
          abi: dauthTokenAbi,
          functionName: 'mint',
          args: [player.wallet.address as Address, 10n ** 21n],
        }),
      });
      tokens.push(token);
    }
  }, 180_000);
  afterAll(() => server?.close());
  beforeEach((ctx) => {
    if (!server) ctx.skip();
  });

  it('refuses at PUT, with 400 invalid_wallet_policy, every policy too large to grant', async () => {
    expect(MAX_POLICY_ENTRIES).toBe(32);
    const former = await put(formerMaximum());
    expect(former.status).toBe(400);
    expect(former.body).toEqual({
      success: false,
      error: 'invalid_wallet_policy',
      message: expect.stringContaining('528 entries') as string,
      field: 'calls',
      details: { field: 'calls' },
    });
    // One entry over: the largest policy plus one allowed selector elsewhere.
    const over = await put({
      ...largest(),
      calls: [...largest().calls, { to: target(0), selectors: ['0x12345678'] }],
    });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({
      error: 'invalid_wallet_policy',
      message: expect.stringContaining('33 entries') as string,
      details: { field: 'calls' },
    });
    // Duplicates are merged before counting: the largest policy written twice over is still 32 entries.
    const doubled = await put({ ...largest(), calls: [...largest().calls, ...largest().calls] });
    expect(doubled.status).toBe(200);
    expect(doubled.body.calls).toHaveLength(MAX_TOKEN_LIMITS);
    const path = `/v1/dev-user/clients/${client.clientId}/wallet-policy`;
    expect((await request(server, 'DELETE', path, dev.loginToken)).status).toBe(200);
    expect((await request(server, 'GET', path, dev.loginToken)).status).toBe(404);
  });

  it('refuses the grant of a policy stored before it became too large, before the PIN is used or anything is sent', async () => {
    // Written straight to the store, as a policy accepted before MAX_POLICY_ENTRIES was.
    await new SessionKeyStore(server.services.database.db).putPolicy(
      client.clientId,
      formerMaximum(),
      Date.now(),
    );
    const wallet = player.wallet.address as Address;
    const codeBefore = await chainClient(server).getCode({ address: wallet });
    const nonce = await server.services.chain.gateway.getNonce(wallet);
    const res = await grant(server, player, client.clientId);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      success: false,
      error: 'invalid_wallet_policy',
      message: expect.stringContaining('528 entries') as string,
      field: 'calls',
    });
    // Nothing sent: the wallet was not even handed to its session account (the suite's only player).
    expect(await server.services.chain.gateway.getNonce(wallet)).toBe(nonce);
    expect(await chainClient(server).getCode({ address: wallet })).toBe(codeBefore);
    expect(await server.services.database.db.selectFrom('session_accounts').selectAll().execute()).toEqual(
      [],
    );
  });

  it('grants the largest policy with the PIN (16 capped tokens, 32 entries), the first time and as a replacement, within the operation cap', async () => {
    const stored = await put(largest());
    expect(stored.status).toBe(200);
    expect(stored.body.calls).toHaveLength(MAX_TOKEN_LIMITS);
    expect(stored.body.token_limits).toHaveLength(MAX_TOKEN_LIMITS);

    const first = await grant(server, player, client.clientId);
    expect(first.status).toBe(201);
    const chain = chainClient(server);
    account = getAddress(
      (await chain.readContract({
        address: player.wallet.address as Address,
        abi: dauthAccountAbi,
        functionName: 'owner',
      })) as Address,
    );
    const firstOp = await operationOf(first.body.tx_hash as Hash);
    expect(firstOp.verificationGasLimit).toBe(OPERATION_GAS.verificationGasLimit);
    expect(firstOp.ask).toBeLessThanOrEqual(grantGasAsk(MAX_POLICY_ENTRIES));
    expect(grantGasAsk(MAX_POLICY_ENTRIES)).toBeLessThanOrEqual(SPONSOR_MAX_OPERATION_GAS);
    expect(firstOp.gasUsed).toBeLessThan(firstOp.ask);

    // A second grant replaces the key: the old one is revoked in the same operation as the 32 entries are written.
    const second = await grant(server, player, client.clientId);
    expect(second.status).toBe(201);
    const secondOp = await operationOf(second.body.tx_hash as Hash);
    expect(secondOp.ask).toBeLessThanOrEqual(grantGasAsk(MAX_POLICY_ENTRIES));
    expect(secondOp.ask).toBeGreaterThan(firstOp.ask);
    expect(secondOp.gasUsed).toBeLessThan(secondOp.ask);
    const read = (functionName: 'sessions' | 'callAllowed' | 'tokenLimitPerDay', args: readonly unknown[]) =>
      chain.readContract({ address: account, abi: dauthSessionAccountAbi, functionName, args } as never);
    const [, oldActive] = (await read('sessions', [first.body.session_key])) as [number, boolean];
    expect(oldActive).toBe(false);
    sessionKey = getAddress(second.body.session_key as string);
    const [, active] = (await read('sessions', [sessionKey])) as [number, boolean];
    expect(active).toBe(true);
    for (const token of tokens) {
      expect(await read('callAllowed', [sessionKey, token, TRANSFER])).toBe(true);
      expect(await read('tokenLimitPerDay', [sessionKey, token])).toBe(CAP);
    }
    // Recorded in docs/session-keys.md ("Limits").
    console.info(
      `grant at the maximum: first ask ${firstOp.ask} used ${firstOp.gasUsed} (call ${firstOp.callGasLimit}); replacing ask ${secondOp.ask} used ${secondOp.gasUsed} (call ${secondOp.callGasLimit}); bound ${grantGasAsk(MAX_POLICY_ENTRIES)}`,
    );
  });

  it(`a session operation of ${MAX_SESSION_CALLS} calls spends from 16 different capped tokens on chain; one call more is refused with 400`, async () => {
    expect(MAX_SESSION_CALLS).toBe(tokens.length);
    const calls = tokens.map((t, i) => ({ to: t, data: transferData(recipient(i), CAP - BigInt(i)) }));
    const balance = (token: Address, holder: Address) =>
      chainClient(server).readContract({
        address: token,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [holder],
      });
    const before = await Promise.all(tokens.map((t) => balance(t, player.wallet.address as Address)));

    const res = await sessionOp(calls);
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual(tokens.map((t, i) => ({ call_index: i, to: t, success: true })));
    for (const [i, token] of tokens.entries()) {
      expect(await balance(token, recipient(i))).toBe(CAP - BigInt(i));
      expect(await balance(token, player.wallet.address as Address)).toBe(before[i]! - (CAP - BigInt(i)));
    }
    const op = await operationOf(res.body.tx_hash as Hash);
    expect(op.verificationGasLimit).toBe(
      SESSION_VERIFICATION_GAS + SESSION_VERIFICATION_GAS_PER_CALL * BigInt(MAX_SESSION_CALLS),
    );
    expect(op.ask).toBeLessThanOrEqual(SPONSOR_MAX_OPERATION_GAS);
    const list = await request(server, 'GET', '/v1/wallet/session-keys', player.user.loginToken);
    expect(list.body.session_keys[0].spent_today.tokens).toEqual(
      tokens.map((t, i) => ({ token: t, amount: (CAP - BigInt(i)).toString() })),
    );
    // Validation (the policy check of 16 calls on 16 capped tokens, each a fresh day counter) within its limit.
    const validation = await validationGasOf(res.body.tx_hash as Hash);
    expect(validation).toBeGreaterThan(16n * 22_100n);
    expect(validation).toBeLessThan(op.verificationGasLimit);
    console.info(
      `16-call session operation: ask ${op.ask} (call ${op.callGasLimit}, verification ${op.verificationGasLimit}, validation used ${validation}) used ${op.gasUsed}`,
    );

    // One call more than MAX_SESSION_CALLS: refused before anything is signed.
    const nonce = await server.services.chain.gateway.getNonce(account);
    const over = await sessionOp([...calls, { to: tokens[0], data: transferData(recipient(0), 0n) }]);
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ success: false, error: 'invalid_request', field: 'calls' });
    expect(await server.services.chain.gateway.getNonce(account)).toBe(nonce);
    expect(await balance(tokens[0]!, recipient(0))).toBe(CAP);
  });

  it('the former maximum (528 entries) could not have been granted: its call is estimated at 12.7M gas, a 15.5M-gas grant', async () => {
    const gateway = new SessionAccountGateway(server.services.chain.gateway, null as never, null as never);
    const policy = formerMaximum();
    const validUntil = Math.floor(Date.now() / 1000) + DAY;
    const callData: Hex = encodeWalletCalls([
      gateway.addSessionKeyCall(
        account,
        getAddress(`0x${'77'.repeat(20)}`),
        onChainPolicy(
          {
            ...policy,
            calls: policy.calls.map((c) => ({ to: c.to, selectors: c.selectors })),
            token_limits: policy.token_limits,
          },
          validUntil,
        ),
      ),
    ]);
    const estimate = await server.services.chain.gateway.estimateCallGas(account, callData);
    const entries = MAX_POLICY_CALLS * MAX_SELECTORS_PER_CALL + MAX_TOKEN_LIMITS;
    expect(estimate).toBeGreaterThan((10n * SPONSOR_MAX_OPERATION_GAS) / 2n);
    // The bound the PUT check uses stays above the real estimate even here.
    expect(grantGasAsk(entries)).toBeGreaterThan(estimate + estimate / 5n + 200_000n);
    console.info(`former maximum (${entries} entries): call gas estimate ${estimate}`);
  });
});
