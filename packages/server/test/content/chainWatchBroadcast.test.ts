import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ChainWatch, type HeadBroadcast } from '../../src/services/content/chainWatch.js';
import type { ContentTokenChain } from '../../src/services/content/ports.js';

/**
 * The watch's part of read-your-writes across replicas, in isolation (the end-to-end proof with two real
 * replicas is replicaReads.test.ts): written blocks are published before `landed` resolves, heard blocks
 * move the head, and while the bus is not subscribed every `head()` asks the node instead of the poller.
 */
describe('ChainWatch with a head broadcast', () => {
  const setUp = () => {
    let nodeHead = 10n;
    let nodeCalls = 0;
    const chain = {
      blockNumber: async () => {
        nodeCalls++;
        return nodeHead;
      },
    } as unknown as ContentTokenChain;
    const published: bigint[] = [];
    let listener: Parameters<HeadBroadcast['start']>[0] | undefined;
    const broadcast: HeadBroadcast = {
      start: (l) => (listener = l),
      publish: async (block) => void published.push(block),
      close: async () => undefined,
    };
    const watch = new ChainWatch(chain, pino({ level: 'silent' }), 60_000);
    return {
      watch,
      broadcast,
      published,
      listener: () => listener!,
      setNodeHead: (n: bigint) => (nodeHead = n),
      nodeCalls: () => nodeCalls,
    };
  };

  it('asks the node on every head() until the bus is subscribed, then trusts what it hears', async () => {
    const t = setUp();
    t.watch.listen(t.broadcast);
    expect(await t.watch.head()).toBe(10n);
    t.setNodeHead(11n);
    expect(await t.watch.head()).toBe(11n);
    expect(t.nodeCalls()).toBe(2);

    t.listener().onConnected();
    t.setNodeHead(12n);
    expect(await t.watch.head()).toBe(11n);
    t.listener().onBlock(12n);
    expect(await t.watch.head()).toBe(12n);
    expect(t.nodeCalls()).toBe(2);

    // Disconnected: a write elsewhere could go unheard, so the node is asked again.
    t.listener().onDisconnected();
    t.setNodeHead(13n);
    expect(await t.watch.head()).toBe(13n);
  });

  it('publishes a written block before landed() resolves, and never fails the write over the bus', async () => {
    const t = setUp();
    t.watch.listen(t.broadcast);
    t.listener().onConnected();
    await t.watch.landed(20n);
    expect(t.published).toEqual([20n]);
    expect(await t.watch.head()).toBe(20n);

    t.broadcast.publish = async () => {
      throw new Error('redis down');
    };
    await expect(t.watch.landed(21n)).resolves.toBeUndefined();
    expect(t.watch.latest).toBe(21n);

    // A bus that never answers does not hold the write's answer forever (landed() returns: no test timeout).
    t.broadcast.publish = () => new Promise(() => undefined);
    await t.watch.landed(22n);
    expect(t.watch.latest).toBe(22n);
  });
});
