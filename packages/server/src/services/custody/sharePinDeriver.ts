import { availableParallelism } from 'node:os';
import { deriveSharePin } from '../../crypto/keyShares.js';

/**
 * Derives share_pin (PBKDF2, 100000 iterations) on libuv's thread pool with at most `concurrency`
 * derivations in flight (default: one per CPU core). More would not finish sooner — the cores are
 * the limit — but would fill every thread-pool thread, so file I/O, DNS and WebCrypto JWT checks
 * of unrelated requests would queue behind PIN work. Excess requests wait in a FIFO queue.
 */
export class SharePinDeriver {
  readonly concurrency: number;
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(
    private readonly salt: string,
    concurrency = availableParallelism(),
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
