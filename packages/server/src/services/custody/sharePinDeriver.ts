import { PIN_SHARE_DIGEST, PIN_SHARE_ITERATIONS, SHARE_BYTES } from '../../crypto/keyShares.js';
import type { Pbkdf2Pool } from '../../crypto/pbkdf2Pool.js';

/**
 * Derives share_pin (PBKDF2-HMAC-SHA256, 100000 iterations; crypto/keyShares.ts) on the dedicated
 * PBKDF2 worker pool (crypto/pbkdf2Pool.ts, PIN_WORKERS threads), off the event loop and off libuv's
 * shared thread pool. The pool bounds the derivations in flight and those waiting (PBKDF2_QUEUE_MAX);
 * past that a request is refused with 503 `overloaded` and `Retry-After`.
 */
export class SharePinDeriver {
  constructor(
    private readonly salt: string,
    readonly pool: Pbkdf2Pool,
  ) {}

  get concurrency(): number {
    return this.pool.concurrency;
  }

  /** share_pin for `pinHash` (the password is the pin_hash *text*) as a Buffer the caller wipes. */
  async derive(pinHash: string): Promise<Buffer> {
    const password = Buffer.from(pinHash, 'utf8');
    try {
      return await this.pool.derive(password, this.salt, PIN_SHARE_ITERATIONS, SHARE_BYTES, PIN_SHARE_DIGEST);
    } finally {
      password.fill(0);
    }
  }

  /** Derivations waiting for a slot (for metrics and the benchmark). */
  get queued(): number {
    return this.pool.queued;
  }
}
