import { availableParallelism } from 'node:os';
import { deriveSharePin } from '../../crypto/keyShares.js';
import { WorkQueue } from '../../crypto/workQueue.js';

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
 * the event loop, with at most `concurrency` derivations in flight and at most `maxQueued` waiting
 * (PBKDF2_QUEUE_MAX); past that a request is refused with 503 `overloaded` and `Retry-After`.
 */
export class SharePinDeriver {
  readonly #queue: WorkQueue;

  constructor(
    private readonly salt: string,
    concurrency = pinDerivationConcurrency(availableParallelism(), 4),
    maxQueued = 256,
  ) {
    this.#queue = new WorkQueue(concurrency, maxQueued);
  }

  get concurrency(): number {
    return this.#queue.concurrency;
  }

  /** share_pin for `pinHash` as a Buffer the caller wipes. */
  derive(pinHash: string): Promise<Buffer> {
    return this.#queue.run(() => deriveSharePin(pinHash, this.salt));
  }

  /** Derivations waiting for a slot (for metrics and the benchmark). */
  get queued(): number {
    return this.#queue.queued;
  }
}
