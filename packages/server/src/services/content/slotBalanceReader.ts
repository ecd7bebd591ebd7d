import type { ChainWatch } from './chainWatch.js';
import type { ContentTokenChain, SlotFigures } from './ports.js';
import type { Address } from '../../chain/types.js';

const MAX_ENTRIES = 100_000;
/** Chain reads in flight at once; more cold keys wait their turn, so a flood of random slots cannot swamp the node. */
const MAX_READS_IN_FLIGHT = 64;

/**
 * Public slot figures (`balance_adex`) read from chain state, cached per (cuid, slot) **and block**: an
 * entry is served only while its block is still the latest block the service knows, so it can never be
 * older than the latest included block. The head advances with the poller (every 100 ms) and at once
 * with this service's own inclusions (consumption batches, purchases, releases), which is what makes a
 * caller who just got a consumption's `tx_hash` see its effect on the very next read. Concurrent misses
 * of one key share one read (two `eth_call`s at that block).
 */
export class SlotBalanceReader {
  /** `figures` is set once `value` resolved: what `readNow` serves without a promise. */
  readonly #cache = new Map<string, { block: bigint; value: Promise<SlotFigures>; figures?: SlotFigures }>();
  #hits = 0;
  #misses = 0;
  #inFlight = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(
    private readonly chain: ContentTokenChain,
    private readonly watch: ChainWatch,
  ) {
    watch.onRewind(() => this.#cache.clear());
  }

  get stats(): { hits: number; misses: number; entries: number } {
    return { hits: this.#hits, misses: this.#misses, entries: this.#cache.size };
  }

  async read(cuid: string, slot: Address): Promise<SlotFigures> {
    const block = await this.watch.head();
    const key = `${cuid}\u0000${slot}`;
    const entry = this.#cache.get(key);
    if (entry && entry.block === block) {
      this.#hits++;
      return entry.value;
    }
    this.#misses++;
    if (this.#cache.size >= MAX_ENTRIES) this.#cache.clear();
    const value = this.#limited(() => this.chain.readSlot(cuid, slot, block));
    const fresh: { block: bigint; value: Promise<SlotFigures>; figures?: SlotFigures } = { block, value };
    this.#cache.set(key, fresh);
    value.then(
      (figures) => {
        fresh.figures = figures;
      },
      () => {
        if (this.#cache.get(key)?.value === value) this.#cache.delete(key);
      },
    );
    return value;
  }

  /**
   * The figures `read` would answer from its cache, without a promise: only when the latest block is known
   * without asking the node and the entry of that block has been read. Undefined otherwise (then `read`).
   */
  readNow(cuid: string, slot: Address): SlotFigures | undefined {
    const block = this.watch.headNow();
    if (block === undefined) return undefined;
    const entry = this.#cache.get(`${cuid}\u0000${slot}`);
    if (entry?.block !== block || entry.figures === undefined) return undefined;
    this.#hits++;
    return entry.figures;
  }

  async #limited<T>(read: () => Promise<T>): Promise<T> {
    if (this.#inFlight >= MAX_READS_IN_FLIGHT)
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#inFlight++;
    try {
      return await read();
    } finally {
      this.#inFlight--;
      this.#waiting.shift()?.();
    }
  }
}
