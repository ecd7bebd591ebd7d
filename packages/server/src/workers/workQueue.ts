import { overloaded } from '../errors.js';

/**
 * At most `concurrency` CPU-heavy jobs (PBKDF2, scrypt) in flight, at most `maxWaiting` more waiting
 * in FIFO order; any further job is refused at once with 503 `overloaded` instead of queueing without
 * bound (each waiting request holds a socket and memory, and would answer long after its caller gave
 * up). Jobs wait here rather than in libuv's queue, where they would delay every other thread-pool
 * user (file I/O, DNS).
 */
export class WorkQueue {
  readonly concurrency: number;
  readonly maxWaiting: number;
  #running = 0;
  readonly #waiting: (() => void)[] = [];
  /** Moving average of one job's duration, for the Retry-After estimate. */
  #averageMs = 100;

  constructor(concurrency: number, maxWaiting: number) {
    this.concurrency = Math.max(1, concurrency);
    this.maxWaiting = Math.max(0, maxWaiting);
  }

  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.#running >= this.concurrency) {
      if (this.#waiting.length >= this.maxWaiting) throw overloaded(this.retryAfterSeconds());
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#running++;
    }
    const started = performance.now();
    try {
      return await job();
    } finally {
      this.#averageMs = 0.8 * this.#averageMs + 0.2 * (performance.now() - started);
      const next = this.#waiting.shift();
      // Hand the slot straight to the next waiter; only free it when nobody waits.
      if (next) next();
      else this.#running--;
    }
  }

  /** Jobs waiting for a slot (metrics, tests). */
  get queued(): number {
    return this.#waiting.length;
  }

  /** Whole seconds until the queue has worked off what waits now (at least 1). */
  retryAfterSeconds(): number {
    const pending = this.#waiting.length + this.#running;
    return Math.max(1, Math.ceil((pending * this.#averageMs) / this.concurrency / 1000));
  }
}
