import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisOnceMarks } from '../../src/stores/redisOnceMarks.js';
import { redisAvailable, TEST_REDIS_URL } from '../helpers/environment.js';

/**
 * The single-use markers of spent ALTCHA solutions when REDIS_URL is set: over the real Redis only (skipped,
 * and said so, where none is reachable: the embedded-default run).
 */
describe.skipIf(!redisAvailable)('RedisOnceMarks over Redis', () => {
  let redis: Redis;
  let other: Redis;
  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
    other = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    await redis?.quit();
    await other?.quit();
  });

  it('lets exactly one of many concurrent claims (two connections, as two replicas) win, until the TTL', async () => {
    const prefix = `dauth_test_${randomUUID()}:`;
    const a = new RedisOnceMarks(redis, prefix);
    const b = new RedisOnceMarks(other, prefix);
    const claims = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).claimOnce('altcha:sig', 300)),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await a.claimOnce('altcha:other', 300)).toBe(true);
    const ttl = await redis.pttl(`${prefix}altcha:sig`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(300);
    await new Promise((resolve) => setTimeout(resolve, ttl + 50));
    expect(await b.claimOnce('altcha:sig', 300)).toBe(true);
    await expect(a.claimOnce('', 300)).rejects.toThrow(RangeError);
    await expect(a.claimOnce('x', 0)).rejects.toThrow(RangeError);
  });
});
