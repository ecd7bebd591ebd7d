import { availableParallelism } from 'node:os';
import { deriveSharePin } from '../../crypto/keyShares.js';

/**
 * How many PBKDF2 derivations may be in flight at once (docs/performance-pin.md):
 *
 * - thread pool larger than the core count (libuv's default 4 on a 2-core machine): one per core.
 *   More would run as extra threads on the same cores and only slow the event loop's thread; the
 *   spare pool threads stay free for file I/O, DNS and WebCrypto.
 * - thread pool of at most the core count (UV_THREADPOOL_SIZE = cores, the recommended setting):
 *   every pool thread plus one waiting in libuv's queue, so no thread idles while the event loop
 *   hands the next derivation over; other pool work waits behind at most that one.
 */
export function pinDerivationConcurrency(cores: number, threadPoolSize: number): number {
  return threadPoolSize <= cores ? threadPoolSize + 1 : cores;
}

/**
 * Derives share_pin (PBKDF2, 100000 iterations) with `crypto.pbkdf2` on libuv's thread pool, off
 * the event loop, with at most `concurrency` derivations in flight; excess requests wait in a FIFO
 * queue here rather than in libuv's queue, where they would delay every other thread-pool user.
 */
export class SharePinDeriver {
  readonly concurrency: number;
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(
    private readonly salt: string,
    concurrency = pinDerivationConcurrency(availableParallelism(), 4),
  ) {
    this.concurrency = Math.max(1, concurrency);
  }

  /** share_pin for `pinHash` as a Buffer the caller wipes. */
  async derive(pinHash: string): Promise<Buffer> {
    if (this.#running >= this.concurrency) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#running++;
    }
    try {
      return await deriveSharePin(pinHash, this.salt);
    } finally {
      const next = this.#waiting.shift();
      // Hand the slot straight to the next waiter; only free it when nobody waits.
      if (next) next();
      else this.#running--;
    }
  }

  /** Derivations waiting for a slot (for metrics and the benchmark). */
  get queued(): number {
    return this.#waiting.length;
  }
}
