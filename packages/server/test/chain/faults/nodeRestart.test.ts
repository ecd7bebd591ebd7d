import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshKeys, randomOwner, startTestChain, type TestChain } from '../chainTestHelpers.js';
import { addressOf, eventually, type FaultNode, operationCount, startFaultNode } from './faultNode.js';

/**
 * Issue 29, fault 5: the node restarts, killed (`kill -9`), from a state older than what it had confirmed
 * (a provider's node restored from its last snapshot). The service rides out the outage, and everything it
 * answered as done is on the restarted chain exactly once: the journal sees the block of its newest
 * transaction is gone and sends the lost transactions again; the relayer fills its nonce gap with them.
 */
describe('the node restarts from an older state (external anvil, 2-second blocks)', () => {
  let node: FaultNode;
  let service: TestChain;
  let keys: ReturnType<typeof freshKeys>;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-restart-'));
  const statePath = path.join(dir, 'state.json');

  beforeAll(async () => {
    node = await startFaultNode({ statePath, args: ['--state-interval', '1'] });
    keys = freshKeys();
    await node.fund(addressOf(keys.DEPLOYER_PRIVATE_KEY), addressOf(keys.RELAYER_PRIVATE_KEY));
    service = await startTestChain({ env: { CHAIN_RPC_URL: node.rpcUrl, ...keys } });
    await node.depositForPaymaster(service.chain);
    await node.intervalMining(2);
  }, 120_000);

  afterAll(async () => {
    await service?.close();
    await node?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function submit() {
    const { chain } = service;
    const owner = randomOwner();
    return chain.operations.submitOperation({
      owner,
      salt: 0n,
      calls: [chain.calls.nativeTransfer(owner.address, 0n)],
    });
  }

  it('gives the restarted node every answered operation back, once, and keeps serving', async () => {
    const entryPoint = service.chain.info.contracts.entry_point;
    const before = await submit();
    // A state dump that holds `before` (anvil writes one every second): the snapshot the node comes back from.
    await eventually(
      async () => {
        const saved = JSON.parse(fs.readFileSync(statePath, 'utf8')) as { best_block_number?: number };
        const { blockNumber } = await node.reader.getTransactionReceipt({ hash: before.txHash });
        return (saved.best_block_number ?? -1) >= Number(blockNumber);
      },
      10_000,
      'a state dump holding the first operation',
    );
    const snapshot = fs.readFileSync(statePath);
    const lost = await submit();
    expect(lost.success).toBe(true);

    // kill -9, the older snapshot, the same port.
    process.kill(node.anvil.pid, 'SIGKILL');
    await node.stop();
    fs.writeFileSync(statePath, snapshot);
    node = await startFaultNode({
      port: node.anvil.port,
      statePath,
      args: ['--state-interval', '1', '--block-time', '2'],
    });
    expect(await operationCount(node, entryPoint, before.userOpHash)).toBe(1);
    expect(await operationCount(node, entryPoint, lost.userOpHash)).toBe(0);

    // Traffic goes on at once; the relayer's next nonce is above the restarted chain's.
    const after = await submit();
    expect(after.success).toBe(true);
    await eventually(
      async () => (await operationCount(node, entryPoint, lost.userOpHash)) === 1,
      30_000,
      'the lost operation back on the restarted node',
    );
    for (const op of [before, lost, after]) {
      expect(await operationCount(node, entryPoint, op.userOpHash)).toBe(1);
      expect(await service.chain.gateway.walletOwner(op.sender)).toBeDefined();
    }
  }, 120_000);
});
