import {
  type AnvilInstance,
  CANONICAL_ENTRY_POINT,
  canonicalEntryPointDeployData,
  dauthPaymasterAbi,
  DETERMINISTIC_DEPLOYER,
  encodeInitCode,
  entryPointAbi,
  getUserOpHash,
  signSponsoredUserOp,
  startAnvil,
} from '@dauth/contracts';
import { createPublicClient, createTestClient, createWalletClient, type Hex, http, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_DEV_KEYS } from '../../../src/chain/devAccounts.js';
import { replicaNonceKey } from '../../../src/chain/operations/nonceKeys.js';
import { OPERATION_GAS } from '../../../src/chain/operations/operationSigner.js';
import { encodeWalletCalls } from '../../../src/chain/contractCalls.js';
import { userOperationToRpc } from '../../../src/chain/operations/externalBundler.js';
import { openDatabase } from '../../../src/db/database.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { UserOperationJournalStore } from '../../../src/stores/userOperationJournalStore.js';
import {
  bundledOperations,
  contractSettings,
  freshKeys,
  randomOwner,
  startTestChain,
  type TestChain,
} from '../chainTestHelpers.js';
import { type AltoInstance, startAlto, startAltoOn } from './alto.js';

/** Alto's own keys: it pays for the bundles it sends, from its executor account. */
const ALTO_EXECUTOR = generatePrivateKey();
const ALTO_UTILITY = generatePrivateKey();
/** A second Alto, in safe mode (every ERC-7562 rule traced with its JavaScript tracer), with its own keys. */
const SAFE_EXECUTOR = generatePrivateKey();
const SAFE_UTILITY = generatePrivateKey();

/**
 * Issue 29: BUNDLER_RPC_URL sends user operations to an independent ERC-4337 bundler. Tested against Alto
 * (`@pimlico/alto`) on an anvil this test starts, with Alto's mempool checks on (see docs/operations.md,
 * "Which bundler", for why its safe mode cannot run on anvil).
 */
describe('external bundler (BUNDLER_RPC_URL) against Alto on anvil', () => {
  let node: AnvilInstance;
  let alto: AltoInstance;
  let safeAlto: AltoInstance;
  let t: TestChain;
  /** A second dauth on the same deployment whose user operations go to the safe-mode Alto. */
  let safe: TestChain;
  let relayer: Hex;
  let keys: ReturnType<typeof freshKeys>;

  beforeAll(async () => {
    node = await startAnvil();
    const reader = createPublicClient({ transport: http(node.rpcUrl) });
    const bank = createWalletClient({
      account: privateKeyToAccount(ANVIL_DEV_KEYS[0]),
      transport: http(node.rpcUrl),
    });
    // A public network: the canonical EntryPoint is there before either bundler comes.
    await reader.waitForTransactionReceipt({
      hash: await bank.sendTransaction({
        chain: null,
        to: DETERMINISTIC_DEPLOYER,
        data: canonicalEntryPointDeployData(),
      }),
    });
    keys = freshKeys();
    const safeRelayerKey = generatePrivateKey();
    for (const key of [
      keys.DEPLOYER_PRIVATE_KEY,
      keys.RELAYER_PRIVATE_KEY,
      safeRelayerKey,
      ALTO_EXECUTOR,
      ALTO_UTILITY,
      SAFE_EXECUTOR,
      SAFE_UTILITY,
    ]) {
      await reader.waitForTransactionReceipt({
        hash: await bank.sendTransaction({
          chain: null,
          to: privateKeyToAccount(key).address,
          value: parseEther('100'),
        }),
      });
    }
    relayer = privateKeyToAccount(keys.RELAYER_PRIVATE_KEY).address;
    [alto, safeAlto] = await Promise.all([
      startAlto({
        rpcUrl: node.rpcUrl,
        entryPoint: CANONICAL_ENTRY_POINT,
        executorKey: ALTO_EXECUTOR,
        utilityKey: ALTO_UTILITY,
        safeMode: false,
        // Its API v2 (`/v2/rpc`) refuses priority fees below 3 gwei, naming the floor (the node suggests 1).
        extraArgs: ['--floor-max-priority-fee-per-gas', '3'],
      }),
      startAlto({
        rpcUrl: node.rpcUrl,
        entryPoint: CANONICAL_ENTRY_POINT,
        executorKey: SAFE_EXECUTOR,
        utilityKey: SAFE_UTILITY,
        safeMode: true,
      }),
    ]);
    t = await startTestChain({
      env: { CHAIN_RPC_URL: node.rpcUrl, BUNDLER_RPC_URL: alto.url, ...keys },
      externalBundler: { pollIntervalMs: { min: 50, max: 250 } },
    });
    const { contracts } = t.chain.info;
    // The paymaster's deposit, and its stake (ERC-7562 lets a staked paymaster read its own storage).
    const deployer = createWalletClient({
      account: privateKeyToAccount(keys.DEPLOYER_PRIVATE_KEY),
      transport: http(node.rpcUrl),
    });
    await reader.waitForTransactionReceipt({
      hash: await bank.writeContract({
        chain: null,
        address: contracts.entry_point,
        abi: entryPointAbi,
        functionName: 'depositTo',
        args: [contracts.paymaster],
        value: parseEther('10'),
      }),
    });
    await reader.waitForTransactionReceipt({
      hash: await deployer.writeContract({
        chain: null,
        address: contracts.paymaster,
        abi: dauthPaymasterAbi,
        functionName: 'addStake',
        args: [86_400],
        value: parseEther('1'),
      }),
    });
    const { DEPLOYER_PRIVATE_KEY: _deployer, ...serviceKeys } = keys;
    safe = await startTestChain({
      env: {
        CHAIN_RPC_URL: node.rpcUrl,
        BUNDLER_RPC_URL: safeAlto.url,
        ...serviceKeys,
        RELAYER_PRIVATE_KEY: safeRelayerKey,
        ...contractSettings(contracts),
      },
      externalBundler: { pollIntervalMs: { min: 50, max: 250 } },
    });
  }, 120_000);

  afterAll(async () => {
    await safe?.close();
    await t?.close();
    await Promise.all([alto?.stop(), safeAlto?.stop()]);
    await node?.stop();
  });

  it('Alto accepts and includes a first (deploying) and a later operation of a dauth wallet', async () => {
    const owner = randomOwner();
    const wallet = t.chain.gateway.walletAddress(owner.address, 0n);
    const call = { owner, salt: 0n, calls: [t.chain.calls.nativeTransfer(owner.address, 0n)] };
    let first;
    try {
      first = await t.chain.operations.submitOperation(call);
    } catch (err) {
      throw new Error(`${(err as Error).message}\nalto: ${alto.output().slice(-4_000)}`, { cause: err });
    }
    expect(first).toMatchObject({ success: true, sender: wallet, nonce: 0n });
    expect(await t.chain.gateway.client.getCode({ address: wallet })).toBeDefined();
    const later = await t.chain.operations.submitOperation(call);
    expect(later).toMatchObject({ success: true, sender: wallet, nonce: 1n });

    for (const result of [first, later]) {
      // Alto's executor sent the bundle, not dauth's relayer.
      const tx = await t.chain.gateway.client.getTransaction({ hash: result.txHash });
      expect(tx.from.toLowerCase()).toBe(privateKeyToAccount(ALTO_EXECUTOR).address.toLowerCase());
      expect(tx.from.toLowerCase()).not.toBe(relayer.toLowerCase());
      expect(tx.to?.toLowerCase()).toBe(CANONICAL_ENTRY_POINT.toLowerCase());
    }
    // The gas fields are the bundler's estimate, not the built-in fixed ones, and the paymaster's signature
    // (checked by the EntryPoint on chain) covers them: the operation validated and ran.
    const [firstOp] = await bundledOperations(t.chain, first.txHash);
    const [laterOp] = await bundledOperations(t.chain, later.txHash);
    expect(firstOp!.initCode).not.toBe('0x');
    expect(laterOp!.initCode).toBe('0x');
    expect(firstOp!.verificationGasLimit).not.toBe(OPERATION_GAS.verificationGasLimitWithInitCode);
    expect(laterOp!.verificationGasLimit).not.toBe(OPERATION_GAS.verificationGasLimit);
  }, 120_000);

  it("deploys a new wallet with its first operation under a replica's own nonce key (REPLICA_ID 1)", async () => {
    // The first operation of a key carries the initCode (its sequence is 0, the nonce itself is not): it
    // went out without, and the EntryPoint refused it (AA20), on every replica but the first.
    const owner = randomOwner();
    const nonceKey = replicaNonceKey(1);
    const call = { owner, salt: 0n, calls: [t.chain.calls.nativeTransfer(owner.address, 0n)], nonceKey };
    const first = await t.chain.operations.submitOperation(call);
    expect(first).toMatchObject({ success: true, nonce: nonceKey << 64n });
    const [op] = await bundledOperations(t.chain, first.txHash);
    expect(op!.initCode).not.toBe('0x');
    const later = await t.chain.operations.submitOperation(call);
    expect(later).toMatchObject({ success: true, nonce: (nonceKey << 64n) + 1n });
  }, 60_000);

  it('keeps the platform operator wallet on the built-in bundler', async () => {
    const result = await t.chain.operator.execute([
      t.chain.calls.nativeTransfer(t.chain.operator.address, 0n),
    ]);
    expect(result.success).toBe(true);
    const tx = await t.chain.gateway.client.getTransaction({ hash: result.txHash });
    expect(tx.from.toLowerCase()).toBe(relayer.toLowerCase());
  }, 60_000);

  it("cannot use Alto's safe mode on anvil: anvil's JavaScript tracer is not geth's", async () => {
    // Alto's safe mode traces simulateValidation with its JavaScript tracer (debug_traceCall) to check the
    // ERC-7562 opcode and storage rules. Anvil runs JavaScript tracers, but differently from geth:
    // 1. `frame.getError()` answers undefined, not null, for a call frame that did not fail. Alto's tracer
    //    marks a frame "RETURN" only on `=== null`, so every successful call reads as a revert, and Alto takes
    //    the last one's return data (the paymaster's validation result) for simulateValidation's answer:
    //    every operation is refused with that data as its "reason".
    const probe = (await createPublicClient({ transport: http(node.rpcUrl) }).request({
      method: 'debug_traceCall' as never,
      params: [
        { to: DETERMINISTIC_DEPLOYER, data: canonicalEntryPointDeployData() },
        'latest',
        {
          tracer:
            '{ exits: [], step: function() {}, fault: function() {}, ' +
            'enter: function() {}, exit: function(frame) { this.exits.push(frame.getError() === null ? "null" : String(frame.getError())); }, ' +
            'result: function() { return this.exits; } }',
        },
      ] as never,
    })) as string[];
    expect(probe).toEqual(['undefined']); // geth: ['null'] (the EntryPoint's creation succeeded)
    // 2. Under Alto's tracer the factory's CREATE2 of a new wallet fails (no gas used, "Create2: Failed on
    //    deploy"), although the same simulateValidation succeeds as eth_call and under callTracer.
    const owner = randomOwner();
    const call = { owner, salt: 0n, calls: [safe.chain.calls.nativeTransfer(owner.address, 0n)] };
    await expect(safe.chain.operations.submitOperation(call)).rejects.toMatchObject({
      status: 422,
      code: 'user_operation_rejected',
    });
    expect(await safe.chain.gateway.isDeployed(safe.chain.gateway.walletAddress(owner.address, 0n))).toBe(
      false,
    );
    // A later operation (the wallet deployed through the other Alto) is refused as well, by (1).
    await t.chain.operations.submitOperation(call);
    await expect(safe.chain.operations.submitOperation(call)).rejects.toMatchObject({
      status: 422,
      code: 'user_operation_rejected',
    });
    expect(await safe.chain.gateway.getNonce(safe.chain.gateway.walletAddress(owner.address, 0n))).toBe(1n);
  }, 60_000);

  it('sends a journaled operation the bundler never got (a crash between journal and send) at the next start, once', async () => {
    const { contracts, chainId } = t.chain.info;
    const database = openDatabase({ sqlitePath: ':memory:' });
    await migrateToLatest(database.db);
    const journal = new UserOperationJournalStore(database.db);
    const now = Math.floor(Date.now() / 1000);
    const fees = await t.chain.gateway.fees();
    /** A signed first operation of a fresh wallet, as the external bundler journals it before sending. */
    async function journaled(validUntil: number) {
      const owner = privateKeyToAccount(generatePrivateKey());
      const sender = t.chain.gateway.walletAddress(owner.address, 0n);
      const op = await signSponsoredUserOp(
        {
          sender,
          nonce: 0n,
          initCode: encodeInitCode(contracts.account_factory, owner.address, 0n),
          callData: encodeWalletCalls([t.chain.calls.nativeTransfer(owner.address, 0n)]),
          callGasLimit: 100_000n,
          verificationGasLimit: 400_000n,
          preVerificationGas: 100_000n,
          maxFeePerGas: fees.maxFeePerGas * 2n,
          maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
        },
        {
          entryPoint: contracts.entry_point,
          chainId,
          owner,
          paymaster: contracts.paymaster,
          paymasterSigner: privateKeyToAccount(keys.PAYMASTER_SIGNER_PRIVATE_KEY),
          validUntil,
          validAfter: now - 60,
        },
      );
      const userOpHash = getUserOpHash(op, contracts.entry_point, chainId);
      await journal.record({
        userOpHash,
        chainId,
        sender,
        nonce: 0n,
        operation: userOperationToRpc(op),
        validUntil,
      });
      return { userOpHash, sender };
    }
    const lost = await journaled(now + 300);
    const expired = await journaled(now - 5);
    const { DEPLOYER_PRIVATE_KEY: _deployer, ...serviceKeys } = keys;
    const env = {
      CHAIN_RPC_URL: node.rpcUrl,
      BUNDLER_RPC_URL: alto.url,
      ...serviceKeys,
      RELAYER_PRIVATE_KEY: generatePrivateKey(),
      ...contractSettings(contracts),
    };
    try {
      const restarted = await startTestChain({
        database,
        env,
        externalBundler: { pollIntervalMs: { min: 50, max: 250 } },
      });
      try {
        // The expired one can never run: dropped at once. The lost one is sent again and followed.
        expect((await journal.get(expired.userOpHash))?.state).toBe('dropped');
        for (
          let waited = 0;
          (await journal.get(lost.userOpHash))?.state === 'sent' && waited < 30_000;
          waited += 100
        ) {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(await journal.get(lost.userOpHash)).toMatchObject({ state: 'included' });
        expect(await restarted.chain.gateway.getNonce(lost.sender)).toBe(1n);
        expect(await restarted.chain.gateway.isDeployed(expired.sender)).toBe(false);
      } finally {
        await restarted.close();
      }
      // A start after that finds nothing open and sends nothing again: the operation ran once.
      const again = await startTestChain({ database, env });
      try {
        expect(await journal.open(chainId)).toEqual([]);
        expect(await again.chain.gateway.getNonce(lost.sender)).toBe(1n);
      } finally {
        await again.close();
      }
    } finally {
      await database.close();
    }
  }, 90_000);

  it('signs again with the fee floor a bundler names when it refuses a fee as too low', async () => {
    const { DEPLOYER_PRIVATE_KEY: _deployer, ...serviceKeys } = keys;
    // anvil suggests the lowest tip of its latest block, at least 1 gwei: after the last test's bundle (Alto pays
    // its own tip, 3.4 gwei once in CI) it suggested more than the floor. An empty block brings it back to 1 gwei.
    await createTestClient({ mode: 'anvil', transport: http(node.rpcUrl) }).mine({ blocks: 1 });
    const strict = await startTestChain({
      env: {
        CHAIN_RPC_URL: node.rpcUrl,
        BUNDLER_RPC_URL: alto.url.replace(/\/rpc$/, '/v2/rpc'),
        ...serviceKeys,
        RELAYER_PRIVATE_KEY: generatePrivateKey(),
        ...contractSettings(t.chain.info.contracts),
      },
      externalBundler: { pollIntervalMs: { min: 50, max: 250 } },
    });
    try {
      expect((await strict.chain.gateway.fees()).maxPriorityFeePerGas).toBeLessThan(3_000_000_000n);
      const owner = randomOwner();
      const result = await strict.chain.operations.submitOperation({
        owner,
        salt: 0n,
        calls: [strict.chain.calls.nativeTransfer(owner.address, 0n)],
      });
      expect(result.success).toBe(true);
      const [included] = await bundledOperations(strict.chain, result.txHash);
      expect(included!.maxPriorityFeePerGas).toBeGreaterThanOrEqual(3_000_000_000n);
    } finally {
      await strict.close();
    }
  }, 60_000);

  it("answers 502 bundle_failed, nothing done, when the wallet's nonce goes to another operation before the bundler includes it", async () => {
    const reader = createPublicClient({ transport: http(node.rpcUrl) });
    const bank = createWalletClient({
      account: privateKeyToAccount(ANVIL_DEV_KEYS[0]),
      transport: http(node.rpcUrl),
    });
    const [executor, utility, relayerKey] = [
      generatePrivateKey(),
      generatePrivateKey(),
      generatePrivateKey(),
    ];
    for (const key of [executor, utility, relayerKey]) {
      await reader.waitForTransactionReceipt({
        hash: await bank.sendTransaction({
          chain: null,
          to: privateKeyToAccount(key).address,
          value: parseEther('10'),
        }),
      });
    }
    // A bundler that accepts operations and never bundles them on its own.
    const idle = await startAlto({
      rpcUrl: node.rpcUrl,
      entryPoint: CANONICAL_ENTRY_POINT,
      executorKey: executor,
      utilityKey: utility,
      safeMode: false,
      extraArgs: ['--bundle-mode', 'manual', '--enable-debug-endpoints'],
    });
    const { DEPLOYER_PRIVATE_KEY: _deployer, ...serviceKeys } = keys;
    const settings = {
      CHAIN_RPC_URL: node.rpcUrl,
      ...serviceKeys,
      ...contractSettings(t.chain.info.contracts),
    };
    const waiting = await startTestChain({
      env: { ...settings, BUNDLER_RPC_URL: idle.url, RELAYER_PRIVATE_KEY: generatePrivateKey() },
      externalBundler: { pollIntervalMs: { min: 50, max: 250 }, resendAfterMs: 300 },
    });
    // The same wallet's operations through dauth's own bundler, under the same nonce key. Both under replica
    // 1's key: whether the nonce was used is read under the operation's own key (under key 0 it never was).
    const builtIn = await startTestChain({ env: { ...settings, RELAYER_PRIVATE_KEY: relayerKey } });
    try {
      const owner = randomOwner();
      const wallet = t.chain.gateway.walletAddress(owner.address, 0n);
      const nonceKey = replicaNonceKey(1);
      const call = (chain: TestChain) => ({
        owner,
        salt: 0n,
        calls: [chain.chain.calls.nativeTransfer(owner.address, 0n)],
        nonceKey,
      });
      await t.chain.operations.submitOperation({ ...call(t), nonceKey: 0n }); // deployed
      const stuck = waiting.chain.operations.submitOperation(call(waiting));
      const outcome = stuck.then(
        () => 'resolved',
        (err: unknown) => err,
      );
      // Once the idle bundler holds it (the key's first nonce), the built-in bundler runs another one there.
      const mempool = async () => {
        const response = await fetch(idle.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'debug_bundler_dumpMempool',
            params: [CANONICAL_ENTRY_POINT],
          }),
        });
        return ((await response.json()) as { result?: unknown[] }).result ?? [];
      };
      for (let waited = 0; (await mempool()).length === 0 && waited < 20_000; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await mempool()).toHaveLength(1);
      const other = await builtIn.chain.operations.submitOperation(call(builtIn));
      expect(other).toMatchObject({ success: true, nonce: nonceKey << 64n });
      expect(await outcome).toMatchObject({ status: 502, code: 'bundle_failed' });
      // Exactly one operation ran at that nonce.
      expect(await t.chain.gateway.getNonce(wallet, nonceKey)).toBe((nonceKey << 64n) + 1n);
    } finally {
      await builtIn.close();
      await waiting.close();
      await idle.stop();
    }
  }, 90_000);

  it('answers an operation whose bundle lands while its fate on chain is read as done, once (not 502)', async () => {
    // A bundler that bundles only when told (debug_bundler_sendBundleNow), with fresh funded keys.
    const manual = await startAltoOn({
      rpcUrl: node.rpcUrl,
      extraArgs: ['--bundle-mode', 'manual', '--enable-debug-endpoints'],
    });
    const { DEPLOYER_PRIVATE_KEY: _deployer, ...serviceKeys } = keys;
    const slow = await startTestChain({
      env: {
        CHAIN_RPC_URL: node.rpcUrl,
        ...serviceKeys,
        ...contractSettings(t.chain.info.contracts),
        BUNDLER_RPC_URL: manual.url,
        RELAYER_PRIVATE_KEY: generatePrivateKey(),
      },
      externalBundler: { pollIntervalMs: { min: 50, max: 250 }, resendAfterMs: 300 },
    });
    try {
      const owner = randomOwner();
      const wallet = t.chain.gateway.walletAddress(owner.address, 0n);
      await t.chain.operations.submitOperation({
        owner,
        salt: 0n,
        calls: [t.chain.calls.nativeTransfer(owner.address, 0n)],
      }); // deployed, nonce 1 next
      // Its fate on chain is read once the bundler has had it `resendAfterMs` without a receipt: the wallet's
      // nonce and the operation's event. The bundle is mined at the nonce read (as a busy bundler's may be at
      // any moment): in the old order (events, then nonce) the events showed nothing and the nonce was used.
      const rpc = async <T>(method: string, params: unknown[]) => {
        const response = await fetch(manual.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        });
        return ((await response.json()) as { result: T }).result;
      };
      const { gateway } = slow.chain;
      const readNonce = gateway.getNonce.bind(gateway);
      let minedAtNonceRead = false;
      gateway.getNonce = async (sender, key) => {
        const held = await rpc<unknown[]>('debug_bundler_dumpMempool', [CANONICAL_ENTRY_POINT]);
        if (!minedAtNonceRead && held.length > 0) {
          minedAtNonceRead = true;
          expect(await rpc<string>('debug_bundler_sendBundleNow', [])).toBe('ok');
          // Mined (the node mines each transaction at once) once the wallet's nonce moved on.
          for (let waited = 0; (await readNonce(sender, key)) < 2n && waited < 20_000; waited += 50) {
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        }
        return readNonce(sender, key);
      };
      const result = await slow.chain.operations.submitOperation({
        owner,
        salt: 0n,
        calls: [slow.chain.calls.nativeTransfer(owner.address, 0n)],
      });
      expect(minedAtNonceRead).toBe(true);
      expect(result).toMatchObject({ success: true, nonce: 1n });
      expect(await t.chain.gateway.getNonce(wallet)).toBe(2n);
    } finally {
      await slow.close();
      await manual.stop();
    }
  }, 90_000);
});
