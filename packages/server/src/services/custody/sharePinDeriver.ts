import { availableParallelism } from 'node:os';
import { deriveSharePin } from '../../crypto/keyShares.js';

/**
 * How many PBKDF2 derivations may be in flight at once: one per CPU core plus one, so a core never
 * idles while the event loop hands the next derivation over, but never every thread of libuv's
 * pool: at least one stays free for file I/O, DNS and WebCrypto (first-sight JWT checks), which
 * would otherwise queue behind PIN work. More cannot finish sooner; the cores are the limit.
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
