import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  contractSettings,
  freshKeys,
  randomOwner,
  startTestChain,
  type TestChain,
} from '../chainTestHelpers.js';
import { addressOf, eventually, type FaultNode, operationCount, startFaultNode } from './faultNode.js';
import { generatePrivateKey } from 'viem/accounts';
import { loadConfig } from '../../../src/config.js';
import { startTracing, type Tracing } from '../../../src/observability/tracing.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../helpers/otlp.js';

/**
 * Issue 29, fault 3: a reorg of the last 3 blocks (`anvil_reorg`; anvil, like a real node, does not put the
 * reorged transactions back in its pool). Whatever was answered as done comes back exactly once: the journal
 * notices the block of its newest transaction is no longer canonical and sends what the new chain lacks,
 * and the relayer closes the nonce gap with the journaled bytes instead of re-signing over them.
 * CHAIN_CONFIRMATIONS=3 answers only once the write is 3 blocks deep on the chain as it is then.
 */
describe('a reorg of the last blocks (external anvil, 2-second blocks)', () => {
  let node: FaultNode;
  let shallow: TestChain;
  let keys: ReturnType<typeof freshKeys>;
  /** What the journal told its observer (the `dauth_chain_reorgs_total` and `…_journal_lost_total` metrics). */
  const journal = { reorgs: 0, lost: 0, unrecoverable: 0 };
  /** Traces on (issue 42): the reorg and the round that gives back what it took are traced, linked to the bundle. */
  let otlp: OtlpReceiver;
  let tracing: Tracing;

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    tracing = await startTracing(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: '50' }).tracing,
    );
    node = await startFaultNode();
    keys = freshKeys();
    await node.fund(addressOf(keys.DEPLOYER_PRIVATE_KEY), addressOf(keys.RELAYER_PRIVATE_KEY));
    shallow = await startTestChain({ env: { CHAIN_RPC_URL: node.rpcUrl, ...keys } });
    shallow.chain.telemetry.observeJournal({
      reorg: () => void journal.reorgs++,
      lost: (count) => void (journal.lost += count),
      unrecoverable: () => void journal.unrecoverable++,
    });
    await node.depositForPaymaster(shallow.chain);
    // The set-up must lie deeper than any reorg below.
    await node.rpc('anvil_mine', [5]);
    await node.intervalMining(2);
  }, 120_000);

  afterAll(async () => {
    await shallow?.close();
    await node?.stop();
    await tracing?.shutdown();
    await otlp?.close();
  });

  function submit(chain: TestChain['chain']) {
    const owner = randomOwner();
    return {
      owner,
      result: chain.operations.submitOperation({
        owner,
        salt: 0n,
        calls: [chain.calls.nativeTransfer(owner.address, 0n)],
      }),
    };
  }

  it('CHAIN_CONFIRMATIONS=1: an answered operation a reorg took out is sent again and lands once', async () => {
    const { chain } = shallow;
    const entryPoint = chain.info.contracts.entry_point;
    const first = submit(chain);
    const answered = await first.result;
    expect(answered.success).toBe(true);
    const minedIn = (await node.reader.getTransactionReceipt({ hash: answered.txHash })).blockNumber;

    // The answer came at depth 1; the reorg takes its block and two more away, and nothing re-adds it.
    await node.rpc('anvil_reorg', [3, []]);
    // anvil builds the new blocks at the fork point's time; a real chain's carry the real time.
    await node.rpc('anvil_setTime', [Math.floor(Date.now() / 1000)]);
    expect(await operationCount(node, entryPoint, answered.userOpHash)).toBe(0);
    expect(await node.reader.getCode({ address: answered.sender })).toBeUndefined();

    // Live traffic right after: the relayer's next bundle must not take the lost bundle's nonce.
    const second = submit(chain);
    const secondResult = await second.result;
    expect(secondResult.success).toBe(true);

    await eventually(
      async () => (await operationCount(node, entryPoint, answered.userOpHash)) === 1,
      30_000,
      'the reorged operation back on the chain',
    );
    expect(await chain.gateway.walletOwner(answered.sender)).toBe(first.owner.address);
    expect(await operationCount(node, entryPoint, secondResult.userOpHash)).toBe(1);
    expect(shallow.chain.journal.maintenance.reorgsSeen).toBeGreaterThanOrEqual(1);
    // Told to the metrics: a reorg, and the lost transaction found and given back (none unrecoverable).
    expect(journal.reorgs).toBe(shallow.chain.journal.maintenance.reorgsSeen);
    expect(journal.lost).toBeGreaterThanOrEqual(1);
    expect(journal.unrecoverable).toBe(0);
    // Traced: the bundle that carried the operation, then a `reorg` trace whose journal round links to it.
    const spans = await otlp.waitFor((all) =>
      all.some((x) => x.name === 'chain journal round' && x.links.length > 0),
    );
    const bundle = spans.find((x) => x.name === 'bundle' && x.attributes.tx_hash === answered.txHash)!;
    expect(bundle.attributes.user_op_hashes).toContain(answered.userOpHash);
    const reorg = spans.find((x) => x.name === 'reorg')!;
    expect(reorg.parentSpanId).toBeUndefined();
    const round = spans.find(
      (x) => x.name === 'chain journal round' && x.links.some((l) => l.spanId === bundle.spanId),
    )!;
    expect(round, spans.map((x) => `${x.name} ${JSON.stringify(x.links)}`).join('\n')).toBeDefined();
    expect(round.traceId).toBe(reorg.traceId);
    // The same signed bytes came back (same transaction hash), in a later block of the new chain.
    const again = await node.reader.getTransactionReceipt({ hash: answered.txHash });
    expect(again.status).toBe('success');
    expect(again.blockNumber).toBeGreaterThanOrEqual(minedIn - 2n);
  }, 90_000);

  it('a reorg during a fee spike: the lost bundle waits for the base fee, is sent again round after round, lands once', async () => {
    // Its own service (own relayer) with journal rounds every 3 s instead of 30.
    const relayerKey = generatePrivateKey();
    await node.fund(addressOf(relayerKey));
    await node.rpc('anvil_mine', [5]);
    const spiky = await startTestChain({
      env: {
        CHAIN_RPC_URL: node.rpcUrl,
        RELAYER_PRIVATE_KEY: relayerKey,
        PAYMASTER_SIGNER_PRIVATE_KEY: keys.PAYMASTER_SIGNER_PRIVATE_KEY,
        OPERATOR_OWNER_PRIVATE_KEY: keys.OPERATOR_OWNER_PRIVATE_KEY,
        ...contractSettings(shallow.chain.info.contracts),
      },
      journalMaintenance: { intervalMs: 3_000 },
    });
    // Refused for now is not unrecoverable: the critical alert stays silent while the bundle waits.
    let unrecoverable = 0;
    spiky.chain.telemetry.observeJournal({ unrecoverable: () => void unrecoverable++ });
    try {
      const { chain } = spiky;
      const entryPoint = chain.info.contracts.entry_point;
      const first = submit(chain);
      const answered = await first.result;
      const { baseFeePerGas } = await node.reader.getBlock();
      // The base fee jumps ×50 and the reorg takes the answered bundle: its signed bytes offer too little now.
      await node.rpc('anvil_setNextBlockBaseFeePerGas', [`0x${(baseFeePerGas! * 50n).toString(16)}`]);
      await node.rpc('anvil_reorg', [3, []]);
      await node.rpc('anvil_setTime', [Math.floor(Date.now() / 1000)]);
      expect(await operationCount(node, entryPoint, answered.userOpHash)).toBe(0);
      // The next bundle is confirmed on the new branch (replaced up to the new fees) while the lost one waits.
      const second = await submit(chain).result;
      expect(second.success).toBe(true);
      await eventually(
        async () => (await operationCount(node, entryPoint, answered.userOpHash)) === 1,
        90_000,
        'the reorged operation back once the base fee fell',
      );
      expect(await chain.gateway.walletOwner(answered.sender)).toBe(first.owner.address);
      expect(await operationCount(node, entryPoint, second.userOpHash)).toBe(1);
      // The journal records it mined again, on the chain's block.
      await chain.journal.maintenance.run();
      const entry = (await chain.journal.sender.journal.entries(chain.journal.sender.chainId)).find(
        (e) => e.hash === answered.txHash,
      );
      const receipt = await node.reader.getTransactionReceipt({ hash: answered.txHash });
      expect(entry).toMatchObject({ state: 'mined', inclusion: { blockHash: receipt.blockHash } });
      expect(unrecoverable).toBe(0);
    } finally {
      await spiky.close();
    }
  }, 150_000);

  it('CHAIN_CONFIRMATIONS=3: a reorg under a 1-deep bundle delays the answer until it is 3 deep again', async () => {
    const relayerKey = generatePrivateKey();
    await node.fund(addressOf(relayerKey));
    await node.rpc('anvil_mine', [5]);
    const deep = await startTestChain({
      env: {
        CHAIN_RPC_URL: node.rpcUrl,
        CHAIN_CONFIRMATIONS: '3',
        RELAYER_PRIVATE_KEY: relayerKey,
        PAYMASTER_SIGNER_PRIVATE_KEY: keys.PAYMASTER_SIGNER_PRIVATE_KEY,
        OPERATOR_OWNER_PRIVATE_KEY: keys.OPERATOR_OWNER_PRIVATE_KEY,
        ...contractSettings(shallow.chain.info.contracts),
      },
    });
    try {
      const entryPoint = deep.chain.info.contracts.entry_point;
      let answeredAt: bigint | undefined;
      const op = submit(deep.chain);
      const answer = op.result.then(async (r) => {
        answeredAt = await node.reader.getBlockNumber({ cacheTime: 0 });
        return r;
      });
      // The bundle's first inclusion: 1 deep, not answered; then the reorg takes it away.
      const pending = await node.waitForPending(addressOf(relayerKey));
      const firstReceipt = await eventually(
        () => node.reader.getTransactionReceipt({ hash: pending.hash }),
        20_000,
        'the bundle mined once',
      );
      expect(answeredAt).toBeUndefined();
      await node.rpc('anvil_reorg', [2, []]);
      // anvil builds the new blocks at the fork point's time; a real chain's carry the real time.
      await node.rpc('anvil_setTime', [Math.floor(Date.now() / 1000)]);
      expect(
        await operationCount(
          node,
          entryPoint,
          (await node.reader.getTransaction({ hash: pending.hash }).catch(() => undefined))?.hash ??
            pending.hash,
        ),
      ).toBe(0);
      const result = await answer;
      expect(result.success).toBe(true);
      const receipt = await node.reader.getTransactionReceipt({ hash: result.txHash });
      // Answered only when 3 deep on the chain as it was then, and that block is still canonical.
      expect(answeredAt).toBeGreaterThanOrEqual(receipt.blockNumber + 2n);
      expect((await node.reader.getBlock({ blockNumber: receipt.blockNumber })).hash).toBe(receipt.blockHash);
      expect(receipt.blockHash).not.toBe(firstReceipt.blockHash);
      expect(await operationCount(node, entryPoint, result.userOpHash)).toBe(1);
    } finally {
      await deep.close();
    }
  }, 90_000);
});
