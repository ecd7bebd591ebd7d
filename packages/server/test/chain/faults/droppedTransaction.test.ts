import { parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshKeys, randomOwner, startTestChain, type TestChain } from '../chainTestHelpers.js';
import { addressOf, type FaultNode, operationCount, startFaultNode } from './faultNode.js';

/**
 * Issue 29, fault 1: the node forgets a pending transaction (`anvil_dropTransaction`, a pool eviction, a
 * sequencer that lost it). The service sends it again and the write lands exactly once.
 */
describe('a dropped pending transaction is sent again (external anvil, 2-second blocks)', () => {
  let node: FaultNode;
  let service: TestChain;
  let keys: ReturnType<typeof freshKeys>;

  beforeAll(async () => {
    node = await startFaultNode();
    keys = freshKeys();
    await node.fund(addressOf(keys.DEPLOYER_PRIVATE_KEY), addressOf(keys.RELAYER_PRIVATE_KEY));
    service = await startTestChain({ env: { CHAIN_RPC_URL: node.rpcUrl, ...keys } });
    await node.depositForPaymaster(service.chain);
    await node.intervalMining(2);
  }, 120_000);

  afterAll(async () => {
    await service?.close();
    await node?.stop();
  });

  /** Holds mining, waits for `from`'s transaction in the pool, drops it, and mines on again. */
  async function dropNextTransactionOf(from: `0x${string}`): Promise<void> {
    await node.rpc('evm_setIntervalMining', [0]);
    try {
      const tx = await node.waitForPending(from);
      await node.rpc('anvil_dropTransaction', [tx.hash]);
      expect(await node.pending(from)).toEqual([]);
    } finally {
      await node.rpc('evm_setIntervalMining', [2]);
    }
  }

  it('a bundle dropped from the pool is sent again and its operation lands once', async () => {
    const { chain } = service;
    const relayer = addressOf(keys.RELAYER_PRIVATE_KEY);
    const owner = randomOwner();
    const submitted = chain.operations.submitOperation({
      owner,
      salt: 0n,
      calls: [chain.calls.nativeTransfer(owner.address, 0n)],
    });
    await dropNextTransactionOf(relayer);
    const result = await submitted;
    expect(result.success).toBe(true);
    expect(await operationCount(node, chain.info.contracts.entry_point, result.userOpHash)).toBe(1);
    expect(await chain.gateway.walletOwner(result.sender)).toBe(owner.address);
  }, 60_000);

  it('a faucet grant dropped from the pool is sent again and pays once', async () => {
    // Old code: the faucet waited for the receipt of the one hash it sent (60 s, then chain_unavailable).
    const { chain } = service;
    const deployer = addressOf(keys.DEPLOYER_PRIVATE_KEY);
    const recipient = randomOwner().address;
    const granted = chain.faucet.fund({ address: recipient, native: parseEther('1') });
    await dropNextTransactionOf(deployer);
    const result = await granted;
    expect(result.nativeBalance).toBe(parseEther('1'));
    expect(await node.reader.getBalance({ address: recipient })).toBe(parseEther('1'));
  }, 45_000);
});
