import { createRequire } from 'node:module';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Redis } from 'ioredis';
import { AppError } from '../errors.js';
import type { RateLimitName, RateLimits } from '../rateLimitSettings.js';
import { clientAddress, RATE_LIMIT_NAMESPACE } from './rateLimits.js';

/** Client addresses whose counter key is kept (the plugin's local store keeps 5,000 counters). */
const KEY_CACHE_LIMIT = 10_000;

/** The counter contract of @fastify/rate-limit's stores: `incr` answers through a callback (at once for the local one). */
interface CounterStore {
  incr(
    key: string,
    answer: (err: Error | null, counter: { current: number; ttl: number } | null) => void,
    timeWindow: number,
    max: number,
  ): void;
}

// The plugin's own stores, so the counting is the plugin's to the letter (its LRU, its Lua script on Redis).
const require = createRequire(import.meta.url);
const LocalStore = require('@fastify/rate-limit/store/LocalStore') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
) => CounterStore;
const RedisStore = require('@fastify/rate-limit/store/RedisStore') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  redis: Redis,
  keyPrefix: string,
) => CounterStore;

/**
 * A route's per-address limit (`RATE_LIMITS` name) as a callback `onRequest` hook: what
 * `config: { rateLimit: routeLimit(limits, name) }` does, without @fastify/rate-limit's async hook (three or
 * four promises per request; docs/performance-content.md, round 4). For a route whose answer costs little
 * more than the limiter itself.
 *
 * Everything a caller sees is the plugin's: the same counters (its `LocalStore`, or its `RedisStore` under the
 * key the plugin gives the route, `dauth-rl:<METHOD><url>-<name>:<address>`, so replicas of either kind count
 * together), the same `x-ratelimit-limit` / `-remaining` / `-reset` headers on every answer, `retry-after` and
 * the 429 `rate_limited` answer once past the limit, and a store failure answered as the plugin's is (500).
 *
 * `headers: 'near-limit'` writes the three headers only once a caller has used half its allowance, and on every
 * 429: for a public read whose callers are mostly far from the limit, where the three headers were ≈ 6 % of a
 * request's work (docs/performance-content.md, round 15). A caller pacing itself still sees them while it
 * matters.
 */
export function callbackRouteLimit(
  limits: RateLimits,
  redis: Redis | undefined,
  name: RateLimitName,
  url: string,
  options: { headers: 'always' | 'near-limit' } = { headers: 'always' },
): (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void {
  const { max, windowMs } = limits[name];
  // The count from which answers carry the headers: the first with 'always', past half the allowance otherwise.
  const headersFrom = options.headers === 'always' ? 0 : Math.floor(max / 2) + 1;
  // One store per method, as the plugin has one per route and Fastify adds a HEAD route beside each GET.
  const stores = new Map<string, CounterStore>();
  const storeFor = (method: string): CounterStore => {
    let store = stores.get(method);
    if (!store) {
      store = redis
        ? new RedisStore(false, false, redis, `${RATE_LIMIT_NAMESPACE}${method}${url}-`)
        : new LocalStore(false, false);
      stores.set(method, store);
    }
    return store;
  };
  // The counter key of each client address, written once: a key built per request is a new string the
  // store's map flattens and hashes twice (get and set), about 1 µs a request on the bench VM; the address a
  // keep-alive socket reports is one string, its hash kept (docs/performance-content.md round 12).
  const keys = new Map<string, string>();
  const keyFor = (request: FastifyRequest): string => {
    const ip = request.ip;
    let key = keys.get(ip);
    if (key === undefined) {
      if (keys.size >= KEY_CACHE_LIMIT) keys.clear();
      key = `${name}:${clientAddress(request)}`;
      keys.set(ip, key);
    }
    return key;
  };
  const limitText = String(max);
  return function countRequest(request, reply, done) {
    storeFor(request.method).incr(
      keyFor(request),
      (err, counter) => {
        if (err || !counter) return done(err ?? new Error('rate limit store answered nothing'));
        if (counter.current < headersFrom) return done();
        const resetSeconds = Math.ceil(counter.ttl / 1000);
        void reply.header('x-ratelimit-limit', limitText);
        if (counter.current <= max) {
          void reply
            .header('x-ratelimit-remaining', max - counter.current)
            .header('x-ratelimit-reset', resetSeconds);
          return done();
        }
        void reply
          .header('x-ratelimit-remaining', 0)
          .header('x-ratelimit-reset', resetSeconds)
          .header('retry-after', resetSeconds);
        done(new AppError(429, 'rate_limited', 'Too many requests, slow down'));
      },
      windowMs,
      max,
    );
  };
}
