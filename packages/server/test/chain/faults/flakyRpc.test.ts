import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshKeys, randomOwner, startTestChain, type TestChain } from '../chainTestHelpers.js';
import {
  addressOf,
  type FaultNode,
  type FaultyProxy,
  operationCount,
  startFaultNode,
  startProxy,
} from './faultNode.js';

/**
 * Issue 29, fault 4: the RPC provider hangs or answers 5xx while a bundle is pending. With two endpoints
 * (CHAIN_RPC_URLS) the bundle is followed through the other one; with one, the relayer waits out a 10-second
 * cut. Either way the operation is answered once it is mined, exactly once.
 */
describe('an RPC endpoint that hangs or answers 5xx while a bundle is pending (2-second blocks)', () => {
  let node: FaultNode;
  let first: FaultyProxy;
  let second: FaultyProxy;
  let service: TestChain;
  let keys: ReturnType<typeof freshKeys>;

  beforeAll(async () => {
    node = await startFaultNode();
    first = await startProxy(node.rpcUrl);
    second = await startProxy(node.rpcUrl);
    keys = freshKeys();
    await node.fund(addressOf(keys.DEPLOYER_PRIVATE_KEY), addressOf(keys.RELAYER_PRIVATE_KEY));
    service = await startTestChain({ env: { CHAIN_RPC_URLS: `${first.url},${second.url}`, ...keys } });
    await node.depositForPaymaster(service.chain);
    await node.intervalMining(2);
  }, 120_000);

  afterAll(async () => {
    await service?.close();
    await first?.close();
    await second?.close();
    await node?.stop();
  });

  async function withFaultWhilePending(fault: () => void, heal: () => void): Promise<void> {
    const { chain } = service;
    await node.rpc('evm_setIntervalMining', [0]);
    const owner = randomOwner();
    const result = chain.operations.submitOperation({
      owner,
      salt: 0n,
      calls: [chain.calls.nativeTransfer(owner.address, 0n)],
    });
    try {
      await node.waitForPending(addressOf(keys.RELAYER_PRIVATE_KEY));
      fault();
    } finally {
      await node.rpc('evm_setIntervalMining', [2]);
    }
    try {
      const done = await result;
      expect(done.success).toBe(true);
      expect(await operationCount(node, chain.info.contracts.entry_point, done.userOpHash)).toBe(1);
    } finally {
      heal();
    }
  }

  it('the first endpoint hangs: the pending bundle is followed through the second', async () => {
    await withFaultWhilePending(
      () => (first.mode = 'hang'),
      () => (first.mode = 'forward'),
    );
  }, 60_000);

  it('the first endpoint answers 503: the same', async () => {
    await withFaultWhilePending(
      () => (first.mode = 'error503'),
      () => (first.mode = 'forward'),
    );
  }, 60_000);

  it('every endpoint is cut for 10 s: the relayer waits it out and answers once mined', async () => {
    const started = Date.now();
    await withFaultWhilePending(
      () => {
        first.mode = 'error503';
        second.mode = 'error503';
        setTimeout(() => {
          first.mode = 'forward';
          second.mode = 'forward';
        }, 10_000);
      },
      () => undefined,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_000);
  }, 60_000);
});
