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

  /** Until Redis no longer has `key` (an expired key goes at its first access after the deadline). */
  async function waitUntilGone(key: string): Promise<void> {
    while ((await redis.exists(key)) === 1) await new Promise((resolve) => setTimeout(resolve, 2));
  }

  it('lets exactly one of many concurrent claims (two connections, as two replicas) win, until the TTL', async () => {
    const prefix = `dauth_test_${randomUUID()}:`;
    const a = new RedisOnceMarks(redis, prefix);
    const b = new RedisOnceMarks(other, prefix);
    const claims = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).claimOnce('altcha:sig', 60_000)),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await a.claimOnce('altcha:other', 60_000)).toBe(true);
    // The mark lives for the TTL in milliseconds (not seconds: that would read 60,000,000). A 60-s TTL
    // keeps this check true on a loaded machine, where a 300-ms one had expired before it was read.
    const ttl = await redis.pttl(`${prefix}altcha:sig`);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect(await b.claimOnce('altcha:sig', 60_000)).toBe(false);
    // Once Redis lets the mark expire, the next claim wins (the expiry brought forward: no sleep).
    await redis.pexpire(`${prefix}altcha:sig`, 1);
    await waitUntilGone(`${prefix}altcha:sig`);
    expect(await b.claimOnce('altcha:sig', 60_000)).toBe(true);
    await expect(a.claimOnce('', 300)).rejects.toThrow(RangeError);
    await expect(a.claimOnce('x', 0)).rejects.toThrow(RangeError);
  });
});
