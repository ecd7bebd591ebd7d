import {
  CANONICAL_ENTRY_POINT,
  canonicalEntryPointDeployData,
  dauthPaymasterAbi,
  DETERMINISTIC_DEPLOYER,
} from '@dauth/contracts';
import { createWalletClient, http, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_DEV_KEYS } from '../../../src/chain/devAccounts.js';
import { UserOperationJournalStore } from '../../../src/stores/userOperationJournalStore.js';
import {
  contractSettings,
  freshKeys,
  randomOwner,
  startTestChain,
  type TestChain,
} from '../chainTestHelpers.js';
import {
  addressOf,
  eventually,
  type FaultNode,
  operationCount,
  startFaultNode,
} from '../faults/faultNode.js';
import { type AltoInstance, startAlto } from './alto.js';

/**
 * A reorg under BUNDLER_RPC_URL: Alto bundles a dauth wallet's operation, dauth answers it as done (1 deep),
 * then `anvil_reorg` takes the last 3 blocks away. Neither anvil (it does not put reorged transactions back in
 * its pool) nor Alto (it does not track a bundle again once mined) brings the operation back: dauth's reorg
 * watch over the user operation journal does, with the same signed operation, or drops it loudly when its
 * nonce went to another operation meanwhile.
 */
describe('a reorg of the last blocks under an independent bundler (Alto, external anvil, 2-second blocks)', () => {
  let node: FaultNode;
  let alto: AltoInstance;
  let t: TestChain;
  let keys: ReturnType<typeof freshKeys>;

  beforeAll(async () => {
    node = await startFaultNode();
    const bank = createWalletClient({
      account: privateKeyToAccount(ANVIL_DEV_KEYS[0]),
      transport: http(node.rpcUrl),
    });
    const mined = async (hash: `0x${string}`) =>
      node.reader.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    // A public network: the canonical EntryPoint is there before the bundler comes.
    await mined(
      await bank.sendTransaction({
        chain: null,
        to: DETERMINISTIC_DEPLOYER,
        data: canonicalEntryPointDeployData(),
      }),
    );
    keys = freshKeys();
    const executor = generatePrivateKey();
    const utility = generatePrivateKey();
    await node.fund(
      addressOf(keys.DEPLOYER_PRIVATE_KEY),
      addressOf(keys.RELAYER_PRIVATE_KEY),
      addressOf(executor),
      addressOf(utility),
    );
    alto = await startAlto({
      rpcUrl: node.rpcUrl,
      entryPoint: CANONICAL_ENTRY_POINT,
      executorKey: executor,
      utilityKey: utility,
      safeMode: false,
      extraArgs: ['--block-time', '2000'],
    });
    t = await startTestChain({
      env: { CHAIN_RPC_URL: node.rpcUrl, BUNDLER_RPC_URL: alto.url, ...keys },
      externalBundler: { pollIntervalMs: { min: 100, max: 500 } },
    });
    expect(t.chain.info.contracts.entry_point).toBe(CANONICAL_ENTRY_POINT);
    await node.depositForPaymaster(t.chain);
    const deployer = createWalletClient({
      account: privateKeyToAccount(keys.DEPLOYER_PRIVATE_KEY),
      transport: http(node.rpcUrl),
    });
    await mined(
      await deployer.writeContract({
        chain: null,
        address: t.chain.info.contracts.paymaster,
        abi: dauthPaymasterAbi,
        functionName: 'addStake',
        args: [86_400],
        value: parseEther('1'),
      }),
    );
    // The set-up must lie deeper than any reorg below.
    await node.rpc('anvil_mine', [5]);
    await node.intervalMining(2);
  }, 180_000);

  afterAll(async () => {
    await t?.close();
    await alto?.stop();
    await node?.stop();
  });

  /** A reorg of the last `depth` blocks; the new blocks carry the real time, as a real chain's do. */
  async function reorg(depth: number) {
    await node.rpc('anvil_reorg', [depth, []]);
    // anvil builds the new blocks at the fork point's time.
    await node.rpc('anvil_setTime', [Math.floor(Date.now() / 1000)]);
  }

  it('an operation answered as done that a reorg took out is sent again by the watch and lands once, its journal row included in the new block', async () => {
    const { chain } = t;
    const journal = new UserOperationJournalStore(t.database.db);
    const entryPoint = chain.info.contracts.entry_point;
    const owner = randomOwner();
    // The wallet's first operation: it deploys the wallet, so a lost one is plainly visible.
    const answered = await chain.operations.submitOperation({
      owner,
      salt: 0n,
      calls: [chain.calls.nativeTransfer(owner.address, 0n)],
    });
    expect(answered).toMatchObject({ success: true, nonce: 0n });
    const first = await node.reader.getTransactionReceipt({ hash: answered.txHash });
    expect(await journal.get(answered.userOpHash)).toMatchObject({
      state: 'included',
      txHash: answered.txHash,
      blockNumber: first.blockNumber,
    });

    await reorg(3);
    expect(await operationCount(node, entryPoint, answered.userOpHash)).toBe(0);
    expect(await node.reader.getCode({ address: answered.sender })).toBeUndefined();

    const row = await eventually(
      async () => {
        const entry = await journal.get(answered.userOpHash);
        return entry?.state === 'included' &&
          entry.blockNumber !== undefined &&
          (await operationCount(node, entryPoint, answered.userOpHash)) === 1
          ? entry
          : undefined;
      },
      60_000,
      'the reorged operation back on the chain and its journal row included again',
    ).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}\nalto: ${alto.output().slice(-3_000)}`, { cause: err });
    });
    // The journal row names the bundle that holds it now, in a block of the final chain.
    const again = await node.reader.getTransactionReceipt({ hash: row.txHash! });
    expect(again.status).toBe('success');
    expect(again.blockNumber).toBe(row.blockNumber);
    expect((await node.reader.getBlock({ blockNumber: again.blockNumber })).hash).toBe(again.blockHash);
    expect(again.blockHash).not.toBe(first.blockHash);
    expect(chain.externalBundler!.reorgsSeen).toBeGreaterThanOrEqual(1);
    expect(await chain.gateway.walletOwner(answered.sender)).toBe(owner.address);

    // Three more watch runs and two more blocks later: still exactly once, one nonce used.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect(await operationCount(node, entryPoint, answered.userOpHash)).toBe(1);
    expect(await chain.gateway.getNonce(answered.sender)).toBe(1n);
    expect(await journal.get(answered.userOpHash)).toMatchObject({ state: 'included', txHash: row.txHash });
  }, 120_000);

  it('one a reorg mined again in another block is only re-recorded: nothing is sent again', async () => {
    const { chain } = t;
    const journal = new UserOperationJournalStore(t.database.db);
    const entryPoint = chain.info.contracts.entry_point;
    const owner = randomOwner();
    const answered = await chain.operations.submitOperation({
      owner,
      salt: 0n,
      calls: [chain.calls.nativeTransfer(owner.address, 0n)],
    });
    const first = await node.reader.getTransactionReceipt({ hash: answered.txHash });
    const raw = (await node.rpc('eth_getRawTransactionByHash', [answered.txHash])) as string;
    const seen = chain.externalBundler!.reorgsSeen;
    // The new branch forks just below the bundle's block (anvil builds its blocks at the fork point's time, not
    // before the paymaster's window) and carries the same bundle transaction one block higher than before.
    const head = await eventually(
      async () => {
        const n = await node.reader.getBlockNumber({ cacheTime: 0 });
        return n > first.blockNumber ? n : undefined;
      },
      10_000,
      'a block above the bundle',
    );
    await node.rpc('anvil_reorg', [Number(head - first.blockNumber + 1n), [[raw, 1]]]);
    await node.rpc('anvil_setTime', [Math.floor(Date.now() / 1000)]);
    const moved = await node.reader.getTransactionReceipt({ hash: answered.txHash });
    expect(moved).toMatchObject({ status: 'success', blockNumber: first.blockNumber + 1n });
    expect(await operationCount(node, entryPoint, answered.userOpHash)).toBe(1);

    await eventually(
      async () => (await journal.get(answered.userOpHash))?.blockNumber === moved.blockNumber,
      20_000,
      'the journal row re-recorded in the new block',
    );
    expect(await journal.get(answered.userOpHash)).toMatchObject({
      state: 'included',
      txHash: answered.txHash,
    });
    expect(chain.externalBundler!.reorgsSeen).toBeGreaterThan(seen);
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect(await operationCount(node, entryPoint, answered.userOpHash)).toBe(1);
    expect(await chain.gateway.getNonce(answered.sender)).toBe(1n);
  }, 120_000);

  /** The deployment's settings for another service on it (no deployer key: the contracts are there). */
  function deploymentSettings() {
    const { DEPLOYER_PRIVATE_KEY: _deployer, ...serviceKeys } = keys;
    return { CHAIN_RPC_URL: node.rpcUrl, ...serviceKeys, ...contractSettings(t.chain.info.contracts) };
  }

  /** A replica on Alto whose reorg watch runs only when the test calls it. */
  function startWatchlessReplica() {
    return startTestChain({
      env: { ...deploymentSettings(), BUNDLER_RPC_URL: alto.url, RELAYER_PRIVATE_KEY: generatePrivateKey() },
      externalBundler: { pollIntervalMs: { min: 100, max: 500 } },
      journalMaintenance: { reorgCheckMs: 3_600_000 },
    });
  }

  it('one whose nonce another operation used meanwhile is dropped, and nothing runs twice', async () => {
    const settings = deploymentSettings();
    const builtInRelayer = generatePrivateKey();
    await node.fund(addressOf(builtInRelayer));
    // The watch must run only after the other operation.
    const external = await startWatchlessReplica();
    // The same wallet's operations through dauth's own bundler (another service on the same deployment).
    const builtIn = await startTestChain({ env: { ...settings, RELAYER_PRIVATE_KEY: builtInRelayer } });
    try {
      const journal = new UserOperationJournalStore(external.database.db);
      const entryPoint = external.chain.info.contracts.entry_point;
      const owner = randomOwner();
      const call = (c: TestChain) => ({
        owner,
        salt: 0n,
        calls: [c.chain.calls.nativeTransfer(owner.address, 0n)],
      });
      const deployed = await external.chain.operations.submitOperation(call(external));
      expect(deployed).toMatchObject({ success: true, nonce: 0n });
      await node.rpc('anvil_mine', [5]); // the deployment lies below the reorg
      const answered = await external.chain.operations.submitOperation(call(external));
      expect(answered).toMatchObject({ success: true, nonce: 1n });
      expect((await journal.get(answered.userOpHash))?.state).toBe('included');

      await reorg(3);
      expect(await operationCount(node, entryPoint, answered.userOpHash)).toBe(0);
      expect(await operationCount(node, entryPoint, deployed.userOpHash)).toBe(1);
      // Nonce 1 goes to another operation of the wallet before the watch looks.
      const other = await builtIn.chain.operations.submitOperation(call(builtIn));
      expect(other).toMatchObject({ success: true, nonce: 1n });

      expect(await external.chain.externalBundler!.checkReorg()).toEqual({ resent: 0, dropped: 1, moved: 0 });
      expect(await journal.get(answered.userOpHash)).toMatchObject({
        state: 'dropped',
        txHash: undefined,
        blockNumber: undefined,
      });
      // Nothing was sent again: the next run finds nothing, and two blocks later the wallet ran nonce 1 once.
      expect(await external.chain.externalBundler!.checkReorg()).toEqual({ resent: 0, dropped: 0, moved: 0 });
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      expect(await operationCount(node, entryPoint, answered.userOpHash)).toBe(0);
      expect(await operationCount(node, entryPoint, other.userOpHash)).toBe(1);
      expect(await external.chain.gateway.getNonce(answered.sender)).toBe(2n);
    } finally {
      await builtIn.close();
      await external.close();
    }
  }, 120_000);

  it("one mined again between the watch's events read and its nonce read is re-recorded, not dropped", async () => {
    const external = await startWatchlessReplica();
    try {
      const journal = new UserOperationJournalStore(external.database.db);
      const entryPoint = external.chain.info.contracts.entry_point;
      const owner = randomOwner();
      const call = {
        owner,
        salt: 0n,
        calls: [external.chain.calls.nativeTransfer(owner.address, 0n)],
      };
      expect(await external.chain.operations.submitOperation(call)).toMatchObject({ nonce: 0n });
      await node.rpc('anvil_mine', [5]); // the deployment lies below the reorg
      const answered = await external.chain.operations.submitOperation(call);
      expect(answered).toMatchObject({ success: true, nonce: 1n });
      const raw = (await node.rpc('eth_getRawTransactionByHash', [answered.txHash])) as string;
      await reorg(3);
      expect(await operationCount(node, entryPoint, answered.userOpHash)).toBe(0);

      // The same bundle lands again right after the watch's batched read of the events, before its nonce read.
      const gateway = external.chain.gateway;
      const readNonce = gateway.getNonce.bind(gateway);
      gateway.getNonce = async (sender, key) => {
        gateway.getNonce = readNonce;
        const hash = (await node.rpc('eth_sendRawTransaction', [raw])) as `0x${string}`;
        await node.reader.waitForTransactionReceipt({ hash, pollingInterval: 100 });
        return readNonce(sender, key);
      };
      // The old order read the used nonce and dropped it, logging an operation that ran as lost.
      expect(await external.chain.externalBundler!.checkReorg()).toEqual({ resent: 0, dropped: 0, moved: 1 });
      const landed = await node.reader.getTransactionReceipt({ hash: answered.txHash });
      expect(await journal.get(answered.userOpHash)).toMatchObject({
        state: 'included',
        txHash: answered.txHash,
        blockNumber: landed.blockNumber,
      });
      expect(await operationCount(node, entryPoint, answered.userOpHash)).toBe(1);
      expect(await external.chain.gateway.getNonce(answered.sender)).toBe(2n);
    } finally {
      await external.close();
    }
  }, 120_000);
});
