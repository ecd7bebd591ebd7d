import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { SlotFigures } from '../../src/chain/contentTokenTypes.js';
import { BalanceQueryService } from '../../src/services/content/balanceQueryService.js';
import { ChainWatch, type HeadBroadcast } from '../../src/services/content/chainWatch.js';
import type { ContentTokenChain, SlotDirectory } from '../../src/services/content/ports.js';
import { ProviderDirectory } from '../../src/services/content/providerDirectory.js';
import { SlotBalanceReader } from '../../src/services/content/slotBalanceReader.js';
import type { ContentProviderStore, ProviderRecord } from '../../src/stores/contentProviderStore.js';

const SLOT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

/**
 * balance_adex's synchronous cache hit (`queryNow`, docs/performance-content.md round 4): it answers only
 * what `query` would answer from its cache at that moment — never figures of an older block, never while
 * the head is unknown or other replicas' writes go unheard — and leaves everything else to `query`.
 */
describe('BalanceQueryService.queryNow', () => {
  const setUp = () => {
    const nodeHead = 10n;
    const reads: bigint[] = [];
    // Chain reads wait until `release()` (once released, they answer at once).
    let released = false;
    let waiting: (() => void) | undefined;
    const chain = {
      blockNumber: async () => nodeHead,
      readSlot: async (_cuid: string, _slot: string, block: bigint): Promise<SlotFigures> => {
        reads.push(block);
        if (!released) await new Promise<void>((resolve) => (waiting = resolve));
        return { balance: 1000n - block, used: block, blockNumber: block };
      },
    } as unknown as ContentTokenChain;
    const watch = new ChainWatch(chain, pino({ level: 'silent' }), 60_000);
    const reader = new SlotBalanceReader(chain, watch);
    const providerStore = {
      findProvider: async (cuid: string) =>
        cuid === 'game' ? ({ cuid, clientId: 'app', state: 'registered' } as ProviderRecord) : undefined,
    } as unknown as ContentProviderStore;
    const service = new BalanceQueryService(
      reader,
      new ProviderDirectory(providerStore),
      providerStore,
      {} as SlotDirectory,
    );
    return {
      watch,
      service,
      reads,
      release: () => {
        released = true;
        waiting?.();
      },
    };
  };

  it('answers from the cache only once the figures of the latest block were read', async () => {
    const t = setUp();
    // Nothing known yet: no cuid, no address, no block.
    expect(t.service.queryNow(SLOT, 'game')).toBeUndefined();
    const first = t.service.query(SLOT, 'game');
    await new Promise((resolve) => setImmediate(resolve));
    // The read is in flight: nothing to answer without waiting.
    expect(t.service.queryNow(SLOT, 'game')).toBeUndefined();
    t.release();
    expect(await first).toMatchObject({ balance: 990n, used: 10n });
    const hit = t.service.queryNow(SLOT, 'game');
    expect(hit).toEqual({ slot: SLOT, cuid: 'game', balance: 990n, used: 10n, blockNumber: 10n });
    // One object per (cuid, slot, block): the route writes its JSON answer once per reading.
    expect(t.service.queryNow(SLOT, 'game')).toBe(hit);
    expect(await t.service.query(SLOT, 'game')).toBe(hit);
    expect(t.reads).toEqual([10n]);

    // A newer block is known: the cached figures are of an older one, so `query` must read again.
    t.watch.observe(11n);
    expect(t.service.queryNow(SLOT, 'game')).toBeUndefined();
    expect(await t.service.query(SLOT, 'game')).toMatchObject({ balance: 989n, used: 11n });
    const next = t.service.queryNow(SLOT, 'game');
    expect(next).toMatchObject({ balance: 989n, used: 11n, blockNumber: 11n });
    expect(next).not.toBe(hit);
  });

  it('leaves to query a cuid not known to be registered, a missing cuid and a failed read', async () => {
    const t = setUp();
    t.release();
    await t.service.query(SLOT, 'game');
    expect(t.service.queryNow(SLOT, 'other')).toBeUndefined();
    expect(t.service.queryNow(SLOT, undefined)).toBeUndefined();
    expect(t.service.queryNow(SLOT, '')).toBeUndefined();
    expect(t.service.queryNow(SLOT.toLowerCase(), 'game')).toBeUndefined();
    await expect(t.service.query(SLOT, 'other')).rejects.toMatchObject({ code: 'unknown_cuid' });
  });

  it('never answers while other replicas’ writes could go unheard (the bus is not subscribed)', async () => {
    const t = setUp();
    t.release();
    let listener: Parameters<HeadBroadcast['start']>[0] | undefined;
    t.watch.listen({
      start: (l) => (listener = l),
      publish: async () => undefined,
      close: async () => undefined,
    });
    await t.service.query(SLOT, 'game');
    expect(t.service.queryNow(SLOT, 'game')).toBeUndefined();
    listener!.onConnected();
    expect(t.service.queryNow(SLOT, 'game')).toMatchObject({ balance: 990n });
    listener!.onDisconnected();
    expect(t.service.queryNow(SLOT, 'game')).toBeUndefined();
  });
});
