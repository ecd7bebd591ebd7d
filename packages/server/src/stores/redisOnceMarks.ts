import type { Redis } from 'ioredis';

/**
 * Single-use markers in Redis (`SET key 1 NX PX ttl`): of any number of concurrent claims of one key, on
 * any replica sharing the Redis, exactly one is told true; the key frees itself when its time is up. The
 * database's `FederationNonceStore` does the same without Redis.
 */
export class RedisOnceMarks {
  constructor(
    private readonly redis: Redis,
    /** Keeps these keys apart from the rate limiter's and the buses' in a shared Redis. */
    private readonly prefix = 'dauth:once:',
  ) {}

  /** True the first time `key` is claimed within `ttlMs`, false while an earlier claim lives. */
  async claimOnce(key: string, ttlMs: number): Promise<boolean> {
    if (key.length === 0 || key.length > 512)
      throw new RangeError('a marker key must be 1 to 512 characters');
    if (!(ttlMs > 0)) throw new RangeError('a marker TTL must be positive');
    const answer = await this.redis.set(`${this.prefix}${key}`, '1', 'PX', Math.ceil(ttlMs), 'NX');
    return answer === 'OK';
  }
}
