import type { ChainWatch } from './chainWatch.js';
import type { ContentTokenChain } from './ports.js';
import type { Address } from '../../chain/types.js';

/** A slot's figures of one cuid at one block, as `balance_adex` answers them. */
export interface SlotReading {
  readonly cuid: string;
  readonly slot: Address;
  readonly balance: bigint;
  readonly used: bigint;
  readonly blockNumber: bigint;
}

interface CacheEntry {
  block: bigint;
  value: Promise<SlotReading>;
  reading: SlotReading | undefined;
}

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
  /**
   * Entries per cuid, then per slot: a hit looks up two strings the request already holds (no key built and
   * hashed per request; docs/performance-content.md round 12). `reading` is set once `value` resolved: what
   * `readNow` serves without a promise.
   */
  readonly #cache = new Map<string, Map<Address, CacheEntry>>();
  #entries = 0;
  #hits = 0;
  #misses = 0;
  #inFlight = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(
    private readonly chain: ContentTokenChain,
    private readonly watch: ChainWatch,
  ) {
    watch.onRewind(() => this.#clear());
  }

  get stats(): { hits: number; misses: number; entries: number } {
    return { hits: this.#hits, misses: this.#misses, entries: this.#entries };
  }

  async read(cuid: string, slot: Address): Promise<SlotReading> {
    const block = await this.watch.head();
    const entry = this.#cache.get(cuid)?.get(slot);
    if (entry && entry.block === block) {
      this.#hits++;
      return entry.value;
    }
    this.#misses++;
    if (this.#entries >= MAX_ENTRIES) this.#clear();
    const value = this.#limited(() => this.chain.readSlot(cuid, slot, block)).then(
      (figures): SlotReading => ({
        cuid,
        slot,
        balance: figures.balance,
        used: figures.used,
        blockNumber: figures.blockNumber,
      }),
    );
    const fresh: CacheEntry = { block, value, reading: undefined };
    this.#set(cuid, slot, fresh);
    value.then(
      (reading) => {
        fresh.reading = reading;
      },
      () => {
        const slots = this.#cache.get(cuid);
        if (slots?.get(slot) === fresh) {
          slots.delete(slot);
          this.#entries--;
        }
      },
    );
    return value;
  }

  /**
   * The reading `read` would answer from its cache, without a promise: only when the latest block is known
   * without asking the node and the entry of that block has been read. Undefined otherwise (then `read`).
   * Every hit within one block answers the same object, so a caller may memoise what it derives from it.
   */
  readNow(cuid: string, slot: Address): SlotReading | undefined {
    const block = this.watch.headNow();
    if (block === undefined) return undefined;
    const entry = this.#cache.get(cuid)?.get(slot);
    if (entry?.block !== block || entry.reading === undefined) return undefined;
    this.#hits++;
    return entry.reading;
  }

  #set(cuid: string, slot: Address, entry: CacheEntry): void {
    let slots = this.#cache.get(cuid);
    if (!slots) {
      slots = new Map();
      this.#cache.set(cuid, slots);
    }
    if (!slots.has(slot)) this.#entries++;
    slots.set(slot, entry);
  }

  #clear(): void {
    this.#cache.clear();
    this.#entries = 0;
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
