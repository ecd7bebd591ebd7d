import { randomUUID } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { callbackRouteLimit } from '../../src/http/callbackRouteLimit.js';
import { installErrorHandling } from '../../src/http/errorHandler.js';
import { RATE_LIMIT_NAMESPACE, routeLimit } from '../../src/http/rateLimits.js';
import { parseRateLimits } from '../../src/rateLimitSettings.js';
import { redisAvailable, TEST_REDIS_URL } from '../helpers/environment.js';

/**
 * `callbackRouteLimit` (balance_adex's limiter, docs/performance-content.md round 4) must be
 * indistinguishable from `config: { rateLimit: routeLimit(…) }` under @fastify/rate-limit: same statuses,
 * headers and 429 body, and on Redis the same counters, so replicas running either count together.
 */
const { limits } = parseRateLimits('balance_adex=3/1m');

/** One app, its route limited either by the plugin (as before) or by the callback hook. */
async function appWith(
  kind: 'plugin' | 'callback' | 'callback-near-limit',
  url: string,
  redis?: Redis,
): Promise<FastifyInstance> {
  const app = Fastify();
  installErrorHandling(app);
  await app.register(rateLimit, {
    global: false,
    ...(redis ? { redis, nameSpace: RATE_LIMIT_NAMESPACE } : {}),
  });
  app.get(
    url,
    kind === 'plugin'
      ? { config: { rateLimit: routeLimit(limits, 'balance_adex') } }
      : {
          onRequest: callbackRouteLimit(limits, redis, 'balance_adex', url, {
            headers: kind === 'callback' ? 'always' : 'near-limit',
          }),
        },
    async () => ({ success: true }),
  );
  await app.ready();
  return app;
}

const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after'];

/** Status, rate-limit headers and body of `count` requests, in order. */
async function answers(app: FastifyInstance, path: string, count: number, method: 'GET' | 'HEAD' = 'GET') {
  const seen = [];
  for (let i = 0; i < count; i++) {
    const res = await app.inject({ method, url: path });
    seen.push({
      status: res.statusCode,
      headers: Object.fromEntries(RATE_HEADERS.map((h) => [h, res.headers[h]])),
      body: res.body,
    });
  }
  return seen;
}

describe('callbackRouteLimit', () => {
  it('answers as @fastify/rate-limit does: headers on every answer, then 429 rate_limited with retry-after', async () => {
    const url = '/v1/development-api/balance_adex/:slot_address';
    const plugin = await appWith('plugin', url);
    const callback = await appWith('callback', url);
    const path = '/v1/development-api/balance_adex/0xabc';
    const before = await answers(plugin, path, 5);
    const after = await answers(callback, path, 5);
    expect(after).toEqual(before);
    expect(after.map((a) => a.status)).toEqual([200, 200, 200, 429, 429]);
    expect(after[0]!.headers).toEqual({
      'x-ratelimit-limit': '3',
      'x-ratelimit-remaining': '2',
      'x-ratelimit-reset': '60',
      'retry-after': undefined,
    });
    expect(after[3]!.headers).toMatchObject({ 'x-ratelimit-remaining': '0', 'retry-after': '60' });
    expect(JSON.parse(after[3]!.body)).toEqual({
      success: false,
      error: 'rate_limited',
      message: 'Too many requests, slow down',
    });
    // HEAD has a bucket of its own, as the plugin gives Fastify's HEAD route one.
    expect((await answers(callback, path, 1, 'HEAD'))[0]!.status).toBe(200);
    await Promise.all([plugin.close(), callback.close()]);
  });

  it('with headers near-limit, writes the x-ratelimit headers only past half the allowance, and on every 429', async () => {
    const url = '/v1/development-api/balance_adex/:slot_address';
    const callback = await appWith('callback-near-limit', url);
    const seen = await answers(callback, '/v1/development-api/balance_adex/0xabc', 5);
    expect(seen.map((a) => a.status)).toEqual([200, 200, 200, 429, 429]);
    const none = {
      'x-ratelimit-limit': undefined,
      'x-ratelimit-remaining': undefined,
      'x-ratelimit-reset': undefined,
    };
    // 3 a minute: the first answer leaves 2 of 3 (no headers), the second 1 of 3.
    expect(seen[0]!.headers).toEqual({ ...none, 'retry-after': undefined });
    expect(seen[1]!.headers).toEqual({
      'x-ratelimit-limit': '3',
      'x-ratelimit-remaining': '1',
      'x-ratelimit-reset': '60',
      'retry-after': undefined,
    });
    expect(seen[2]!.headers).toMatchObject({ 'x-ratelimit-remaining': '0' });
    for (const refused of seen.slice(3))
      expect(refused.headers).toEqual({
        'x-ratelimit-limit': '3',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': '60',
        'retry-after': '60',
      });
    await callback.close();
  });

  it('counts each address on its own, an IPv6 client by its /64, whatever order they come in', async () => {
    const url = '/v1/development-api/balance_adex/:slot_address';
    const callback = await appWith('callback', url);
    const path = '/v1/development-api/balance_adex/0xabc';
    const remaining = async (remoteAddress: string) =>
      (await callback.inject({ url: path, remoteAddress })).headers['x-ratelimit-remaining'];
    // The key of an address is kept after its first request: later requests of each must still count in it.
    expect(await remaining('10.0.0.1')).toBe('2');
    expect(await remaining('10.0.0.2')).toBe('2');
    expect(await remaining('10.0.0.1')).toBe('1');
    expect(await remaining('2001:db8:1:2::1')).toBe('2');
    expect(await remaining('2001:db8:1:2::ffff')).toBe('1');
    expect(await remaining('2001:db8:1:3::1')).toBe('2');
    expect(await remaining('10.0.0.2')).toBe('1');
    expect(await remaining('::ffff:10.0.0.1')).toBe('0');
    await callback.close();
  });

  describe.skipIf(!redisAvailable)('on Redis', () => {
    const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
    afterAll(() => redis.quit());

    it('counts in the plugin’s keys: a replica on either limiter uses up the same allowance', async () => {
      const url = `/test-${randomUUID()}/:slot_address`;
      const plugin = await appWith('plugin', url, redis);
      const callback = await appWith('callback', url, redis);
      const path = url.replace(':slot_address', '0xabc');
      expect((await answers(plugin, path, 2)).map((a) => a.status)).toEqual([200, 200]);
      const next = await answers(callback, path, 2);
      expect(next.map((a) => [a.status, a.headers['x-ratelimit-remaining']])).toEqual([
        [200, '0'],
        [429, '0'],
      ]);
      expect(Number(next[1]!.headers['retry-after'])).toBeGreaterThan(0);
      expect(await redis.get(`${RATE_LIMIT_NAMESPACE}GET${url}-balance_adex:127.0.0.1`)).toBe('4');
      await Promise.all([plugin.close(), callback.close()]);
    });

    it('answers 500 when the store fails, as the plugin does', async () => {
      const broken = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 0, lazyConnect: true });
      broken.disconnect();
      const url = `/test-${randomUUID()}/:slot_address`;
      const callback = await appWith('callback', url, broken);
      const plugin = await appWith('plugin', url, broken);
      const path = url.replace(':slot_address', '0xabc');
      const [viaCallback] = await answers(callback, path, 1);
      const [viaPlugin] = await answers(plugin, path, 1);
      expect(viaCallback!.status).toBe(500);
      expect(viaCallback).toEqual(viaPlugin);
      await Promise.all([plugin.close(), callback.close()]);
    });
  });
});
