import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { bundledOperations, freshKeys, randomOwner } from '../chainTestHelpers.js';
import { addressOf, eventually, type FaultNode, operationCount, startFaultNode } from './faultNode.js';

const GWEI = 10n ** 9n;
const CAP = 10n * GWEI;

/**
 * Issue 29, fault 2: the base fee jumps ×50 while a bundle is pending (`anvil_setNextBlockBaseFeePerGas`).
 * The relayer replaces it (same nonce, higher fees) up to MAX_FEE_PER_GAS; beyond it sending waits,
 * `/readyz` is degraded and `dauth_chain_fee_capped` is 1; once the base fee falls under the cap the bundle is
 * mined, once, and both clear.
 */
describe('a base-fee spike ×50: replacement up to MAX_FEE_PER_GAS, then waiting (2-second blocks)', () => {
  let node: FaultNode;
  let server: TestServer;
  let keys: ReturnType<typeof freshKeys>;

  beforeAll(async () => {
    node = await startFaultNode();
    keys = freshKeys();
    await node.fund(addressOf(keys.DEPLOYER_PRIVATE_KEY), addressOf(keys.RELAYER_PRIVATE_KEY));
    server = await startTestServer({
      env: { CHAIN_RPC_URL: node.rpcUrl, MAX_FEE_PER_GAS: String(CAP), ...keys },
    });
    await node.depositForPaymaster(server.services.chain);
    await node.intervalMining(2);
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await node?.stop();
  });

  async function readyz(): Promise<{
    status: number;
    body: { status?: string; checks: Record<string, string> };
  }> {
    const response = await fetch(`${server.url}/readyz`, {
      headers: { authorization: `Bearer ${server.services.secrets.adminApiKey}` },
    });
    return { status: response.status, body: (await response.json()) as never };
  }

  async function feeCappedMetric(): Promise<string | undefined> {
    const response = await fetch(`${server.url}/metrics`, {
      headers: { authorization: `Bearer ${server.services.secrets.adminApiKey}` },
    });
    return /^dauth_chain_fee_capped (\d+)$/m.exec(await response.text())?.[1];
  }

  it('replaces the stuck bundle up to the cap, waits there degraded, and lands each operation once', async () => {
    const { chain } = server.services;
    const relayer = addressOf(keys.RELAYER_PRIVATE_KEY);
    expect(await feeCappedMetric()).toBe('0');
    expect((await readyz()).body.checks.chain_fees).toBe('ok');

    // The bundle goes out at today's fees (base ~1 gwei), then the next blocks cost 50 gwei.
    await node.rpc('evm_setIntervalMining', [0]);
    const owner = randomOwner();
    const first = chain.operations.submitOperation({
      owner,
      salt: 0n,
      calls: [chain.calls.nativeTransfer(owner.address, 0n)],
    });
    const sent = await node.waitForPending(relayer);
    const { baseFeePerGas } = await node.reader.getBlock();
    expect(sent.maxFeePerGas).toBeLessThan(CAP);
    await node.rpc('anvil_setNextBlockBaseFeePerGas', [
      `0x${(baseFeePerGas! * 50n > 50n * GWEI ? baseFeePerGas! * 50n : 50n * GWEI).toString(16)}`,
    ]);
    await node.rpc('evm_setIntervalMining', [2]);

    // At the cap and still too cheap: degraded, the metric says so, the bundle waits.
    const degraded = await eventually(
      async () => {
        const ready = await readyz();
        return ready.body.status === 'degraded' && ready.body.checks.chain_fees ? ready : undefined;
      },
      15_000,
      '/readyz degraded by the fee cap',
    );
    expect(degraded.status).toBe(200);
    expect(degraded.body.checks.chain_fees).toMatch(/MAX_FEE_PER_GAS is 10000000000/);
    expect(await feeCappedMetric()).toBe('1');

    // Sending waits: an operation that arrives now queues behind the stuck bundle.
    const later = randomOwner();
    const second = chain.operations.submitOperation({
      owner: later,
      salt: 0n,
      calls: [chain.calls.nativeTransfer(later.address, 0n)],
    });
    const firstResult = await first;
    const secondResult = await second;
    expect(firstResult.success).toBe(true);
    expect(secondResult.success).toBe(true);

    // Mined by a transaction of that nonce that never offered more than the cap; each operation once.
    const minedTx = await node.reader.getTransaction({ hash: firstResult.txHash });
    expect(minedTx.nonce).toBe(sent.nonce);
    // A replacement at the same nonce, offering the cap and not a wei more (the first send offered less). The
    // pool cannot show it while the base fee is above the cap: the node refuses a fee under the base fee, so
    // the service keeps offering it until the base fee has fallen under the cap.
    expect(sent.maxFeePerGas).toBeLessThan(CAP);
    expect(minedTx.hash).not.toBe(sent.hash);
    expect(minedTx.maxFeePerGas).toBe(CAP);
    const entryPoint = chain.info.contracts.entry_point;
    expect(await operationCount(node, entryPoint, firstResult.userOpHash)).toBe(1);
    expect(await operationCount(node, entryPoint, secondResult.userOpHash)).toBe(1);
    // The operation signed during the spike offers the cap at most on both fields, as the bundle does.
    for (const op of await bundledOperations(chain, secondResult.txHash)) {
      expect(op.maxFeePerGas).toBeLessThanOrEqual(CAP);
      expect(op.maxPriorityFeePerGas).toBeLessThanOrEqual(op.maxFeePerGas);
    }

    // Fees payable again: ready, metric back to 0.
    expect(await feeCappedMetric()).toBe('0');
    const ready = await readyz();
    expect(ready.body.checks.chain_fees).toBe('ok');
  }, 120_000);
});
