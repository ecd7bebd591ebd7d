import { parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshKeys, randomOwner, startTestChain, type TestChain } from '../chainTestHelpers.js';
import { addressOf, type FaultNode, operationCount, startFaultNode } from './faultNode.js';

/**
 * Issue 29: the service on a chain with 12-second blocks (Ethereum's pace). Nothing waits on a fixed sleep
 * or times out early: a faucet grant and operations sent together are each answered once their block is
 * there, the operations in one bundle.
 */
describe('an external chain with 12-second blocks', () => {
  let node: FaultNode;
  let service: TestChain;

  beforeAll(async () => {
    node = await startFaultNode();
    const keys = freshKeys();
    await node.fund(addressOf(keys.DEPLOYER_PRIVATE_KEY), addressOf(keys.RELAYER_PRIVATE_KEY));
    service = await startTestChain({ env: { CHAIN_RPC_URL: node.rpcUrl, ...keys } });
    await node.depositForPaymaster(service.chain);
    await node.intervalMining(12);
  }, 120_000);

  afterAll(async () => {
    await service?.close();
    await node?.stop();
  });

  it('answers a faucet grant and three operations after their blocks, the operations in one bundle', async () => {
    const { chain } = service;
    const recipient = randomOwner().address;
    const startHead = await node.reader.getBlockNumber({ cacheTime: 0 });
    const [granted, ...results] = await Promise.all([
      chain.faucet.fund({ address: recipient, native: parseEther('1') }),
      ...Array.from({ length: 3 }, () => {
        const owner = randomOwner();
        return chain.operations.submitOperation({
          owner,
          salt: 0n,
          calls: [chain.calls.nativeTransfer(owner.address, 0n)],
        });
      }),
    ]);
    expect(granted.nativeBalance).toBe(parseEther('1'));
    expect(await node.reader.getBlockNumber({ cacheTime: 0 })).toBeGreaterThan(startHead);
    expect(new Set(results.map((r) => r!.txHash)).size).toBe(1);
    for (const r of results) {
      expect(r!.success).toBe(true);
      expect(await operationCount(node, chain.info.contracts.entry_point, r!.userOpHash)).toBe(1);
    }
  }, 90_000);
});
