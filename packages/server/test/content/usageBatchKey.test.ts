import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ContentTokenGateway,
  cuidHashOf,
  GAS_PER_REPEATED_USAGE_RECORD,
} from '../../src/chain/contentTokenGateway.js';
import { OperationReverted } from '../../src/errors.js';
import type { UsageBatch } from '../../src/services/content/ports.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { buy, newPlayer, newProvider, onChain, type Player, type Provider } from './contentSupport.js';

/**
 * The guarantee behind crash and outage recovery: a usage batch is recorded on chain once however often it
 * is sent, and its figures are always those of the transaction that recorded it, even when other batches
 * share that transaction.
 */
describe('usage batches are named on chain', () => {
  let server: TestServer;
  let gateway: ContentTokenGateway;
  let provider: Provider;
  let player: Player;

  beforeAll(async () => {
    server = await startTestServer();
    const chain = server.services.chain;
    gateway = new ContentTokenGateway(chain.gateway, chain.operator, chain.calls);
    provider = await newProvider(server);
    player = await newPlayer(server, provider);
    expect((await buy(server, provider, player, '100000')).status).toBe(200);
  });
  afterAll(() => server?.close());

  const batchOf = async (amounts: bigint[]): Promise<UsageBatch> => ({
    id: randomUUID(),
    fromBlock: await gateway.blockNumber(),
    groups: [{ cuid: provider.cuid, slots: amounts.map(() => player.slot), amounts }],
  });

  it('sent twice, a batch counts once and both sends answer with the transaction that recorded it', async () => {
    const before = await onChain(server, provider.cuid, player.slot);
    const batch = await batchOf([11n, 4n]);
    const first = await gateway.recordUsage(batch);
    const again = await gateway.recordUsage(batch);

    expect(await onChain(server, provider.cuid, player.slot)).toEqual({
      balance: before.balance - 15n,
      used: before.used + 15n,
    });
    const written = { txHash: first.write.txHash, blockNumber: first.write.blockNumber };
    expect(again).toEqual({ write: written, events: first.events });
    expect(first.events.map((e) => [e.cuidHash, e.amount, e.used])).toEqual([
      [cuidHashOf(provider.cuid), 11n, before.used + 11n],
      [cuidHashOf(provider.cuid), 4n, before.used + 15n],
    ]);
    // The figures come from the events' data words in order (amount, balance, usedBalance).
    expect(first.events.map((e) => [e.slot, e.balance])).toEqual([
      [player.slot, before.balance - 11n],
      [player.slot, before.balance - 15n],
    ]);
    // Recovery finds it by its name alone.
    const found = await gateway.findUsageBatch(batch);
    expect(found).toEqual({ found: true, write: written, events: first.events });
  });

  it('tells apart batches bundled into one transaction', async () => {
    const before = await onChain(server, provider.cuid, player.slot);
    const [a, b] = [await batchOf([1n, 2n, 3n]), await batchOf([5n])];
    const [recordedA, recordedB] = await Promise.all([gateway.recordUsage(a), gateway.recordUsage(b)]);
    // Sent together by one wallet, the bundler puts both operations in one handleOps transaction.
    expect(recordedA.write.txHash).toBe(recordedB.write.txHash);
    expect(recordedA.events.map((e) => e.amount)).toEqual([1n, 2n, 3n]);
    expect(recordedB.events.map((e) => e.amount)).toEqual([5n]);
    expect(await onChain(server, provider.cuid, player.slot)).toEqual({
      balance: before.balance - 11n,
      used: before.used + 11n,
    });
    expect((await gateway.findUsageBatch(b)).found).toBe(true);
  });

  it('batches under operator nonce keys of their own (2-D nonces) each take their own sequence', async () => {
    const chain = server.services.chain;
    const operator = chain.operator.address;
    const seq = (key: bigint) => chain.gateway.getNonce(operator, key);
    const [key1, key2, key0] = [await seq(1n), await seq(2n), await seq(0n)];
    expect(key1 >> 64n).toBe(1n);
    expect(key2 >> 64n).toBe(2n);
    const before = await onChain(server, provider.cuid, player.slot);
    const a = { ...(await batchOf([2n, 3n])), nonceKey: 1n };
    const b = { ...(await batchOf([7n])), nonceKey: 2n };
    const c = { ...(await batchOf([1n])), nonceKey: 1n };
    const recorded = await Promise.all([a, b, c].map((batch) => gateway.recordUsage(batch)));
    expect(recorded.map((r) => r.events.map((e) => e.amount))).toEqual([[2n, 3n], [7n], [1n]]);
    // Key 1 carried two operations in order, key 2 one, the operator's usual sequence none.
    expect(await seq(1n)).toBe(key1 + 2n);
    expect(await seq(2n)).toBe(key2 + 1n);
    expect(await seq(0n)).toBe(key0);
    expect(await onChain(server, provider.cuid, player.slot)).toEqual({
      balance: before.balance - 13n,
      used: before.used + 13n,
    });
  });

  it('a refused batch is mined, reverts, and arrives as OperationReverted with the decoded arguments', async () => {
    const before = await onChain(server, provider.cuid, player.slot);
    const tooMuch = before.balance + 1n;
    const refused = gateway.recordUsage(await batchOf([tooMuch]));
    await expect(refused).rejects.toBeInstanceOf(OperationReverted);
    const err = (await refused.catch((e: unknown) => e)) as OperationReverted;
    // The arguments come from the ABI decoder, typed, not read back out of the message.
    expect(err.revert.name).toBe('InsufficientBalance');
    expect(err.revert.args).toEqual([provider.cuid, player.slot, before.balance, tooMuch]);
    const reason = `InsufficientBalance(${provider.cuid}, ${player.slot}, ${before.balance}, ${tooMuch})`;
    expect(err).toMatchObject({
      status: 422,
      code: 'operation_reverted',
      message: `The operation was included but reverted: ${reason}`,
      details: { revert_reason: reason, tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) },
    });
    expect(await onChain(server, provider.cuid, player.slot)).toEqual(before);
  });

  it('a full batch of one slot fits its computed gas: each further record costs between half and two thirds of its bound', async () => {
    // The batcher's largest batch (400 records), all of one slot: every record after the first is a repeated
    // one, priced at GAS_PER_REPEATED_USAGE_RECORD in the operation's callGasLimit.
    const gasOf = async (records: number) => {
      const recorded = await gateway.recordUsage(await batchOf(Array.from({ length: records }, () => 1n)));
      expect(recorded.events).toHaveLength(records);
      const receipt = await server.services.chain.gateway.client.getTransactionReceipt({
        hash: recorded.write.txHash,
      });
      expect(receipt.status).toBe('success');
      return receipt.gasUsed;
    };
    const one = await gasOf(1);
    const full = await gasOf(400);
    // What each further record cost the whole transaction (its calldata included, which the call's limit
    // does not even pay for).
    const perRecord = (full - one) / 399n;
    expect(perRecord).toBeGreaterThan(1_000n);
    expect(perRecord * 3n).toBeLessThan(GAS_PER_REPEATED_USAGE_RECORD * 2n);
    // Nor much more room than that: a bundle asks its last operation's whole limit, and a block holds bundles
    // by what they ask (at 15,000, 3.7× what a full batch used, a 2-second block took 3,600 records, not 5,000).
    expect(GAS_PER_REPEATED_USAGE_RECORD).toBeLessThan(perRecord * 2n);
  });

  it('a batch never sent is not found, and is not pending', async () => {
    expect(await gateway.findUsageBatch(await batchOf([1n]))).toEqual({ found: false, pending: false });
  });
});
