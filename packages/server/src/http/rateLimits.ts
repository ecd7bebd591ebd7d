import type {
  FastifyInstance,
  FastifyRequest,
  onRequestHookHandler,
  preHandlerAsyncHookHandler,
} from 'fastify';
import type { Services } from '../composition/index.js';
import { AppError } from '../errors.js';
import { RATE_LIMIT_DEFAULTS, type RateLimitName, type RateLimits } from '../rateLimitSettings.js';
import { rateLimitAddress } from '../services/network/ipAddresses.js';
import type { App } from './types.js';

/** Password guesses allowed per client address and e-mail each minute by default, across every sign-in route. */
export const LOGIN_ATTEMPTS_PER_MINUTE = RATE_LIMIT_DEFAULTS.login.max;

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The rate limit of every password sign-in route (the login API and the login page). One limiter,
     * so they count in one bucket: a guess on either route uses up the same allowance.
     */
    loginRateLimit: preHandlerAsyncHookHandler;
    /** Counts a request that compares the admin key against its address's `admin` limit (`onRequest`). */
    adminRateLimit: onRequestHookHandler;
  }
}

type KeyGenerator = (request: FastifyRequest) => string;

/** The prefix of every rate-limit counter in Redis (`REDIS_URL`), shared by every replica. */
export const RATE_LIMIT_NAMESPACE = 'dauth-rl:';

/**
 * The client address every per-address limit counts under (decisions §8): IPv4 whole (also spelled
 * `::ffff:a.b.c.d`), IPv6 by its /64, so one subscriber's network is one bucket however many of its
 * addresses it rotates through.
 */
export const clientAddress = (request: FastifyRequest): string => rateLimitAddress(request.ip);

/**
 * The `config.rateLimit` of a route from the configured limit `name` (`RATE_LIMITS`), keyed per
 * address unless a key generator is given. Every key starts with the limit's name, so two limits
 * never share a bucket.
 */
export function routeLimit(
  limits: RateLimits,
  name: RateLimitName,
  options: { keyGenerator?: KeyGenerator; hook?: 'onRequest' | 'preHandler' } = {},
) {
  const { max, windowMs } = limits[name];
  return {
    max,
    timeWindow: windowMs,
    keyGenerator: options.keyGenerator ?? ((request: FastifyRequest) => `${name}:${clientAddress(request)}`),
    ...(options.hook ? { hook: options.hook } : {}),
  };
}

/** A standalone limiter for hooks: throws 429 `rate_limited` with `Retry-After` when exceeded. */
export function createLimiter(
  app: FastifyInstance,
  limits: RateLimits,
  name: RateLimitName,
  keyGenerator: KeyGenerator = (request) => `${name}:${clientAddress(request)}`,
): (request: FastifyRequest) => Promise<void> {
  const { max, windowMs } = limits[name];
  const limiter = app.createRateLimit({ max, timeWindow: windowMs, keyGenerator });
  return async (request) => {
    const result = await limiter(request);
    if (!result.isAllowed && result.isExceeded) {
      throw new AppError(429, 'rate_limited', 'Too many requests, slow down', {
        retryAfterSeconds: result.ttlInSeconds,
      });
    }
  };
}

/**
 * Creates the shared sign-in limiter (after `@fastify/rate-limit` is registered): per client address
 * and e-mail (`login`), so one attacker cannot hammer one account while a victim's own attempts from
 * elsewhere are not blocked; and per address across every e-mail (`login_address`), so varying the
 * e-mail cannot buy unlimited password hashes. It runs as a preHandler because the key needs the
 * parsed body.
 */
export function registerLoginRateLimit(app: FastifyInstance, limits: RateLimits): void {
  const perAddress = createLimiter(app, limits, 'login_address');
  const perAccount = createLimiter(app, limits, 'login', (request) => {
    const email = (request.body as { email?: unknown } | undefined)?.email;
    return `login:${clientAddress(request)}:${typeof email === 'string' ? email.trim().toLowerCase() : ''}`;
  });
  app.decorate('loginRateLimit', async function loginRateLimit(request: FastifyRequest) {
    await perAccount(request);
    await perAddress(request);
  });
}

/**
 * The `admin` limit of a client address (`app.adminRateLimit`, an `onRequest` hook): every request that
 * compares the admin key counts in it before the key is compared or the body is parsed, so a key guesser or
 * a flood of large bodies is cut off early. The routes that compare the key put it first: the `/v1/admin/*`
 * scope, `/metrics` and a `/readyz` that sends a key, in one bucket (decisions §8). Not a root hook: that
 * would run on every request of every other route too, only to find it is not one of these.
 */
export function registerAdminRateLimit(app: FastifyInstance, limits: RateLimits): void {
  const limiter = createLimiter(app, limits, 'admin');
  // A callback hook, not an async one, as every hook before the route's own handler.
  app.decorate('adminRateLimit', function adminRateLimit(request, _reply, done) {
    limiter(request).then(() => done(), done);
  } satisfies onRequestHookHandler);
}

/**
 * Route `config` for a per-user limit of one route (`RATE_LIMITS` name): keyed by the authenticated
 * user, falling back to the client address when no user is known. It counts in `preHandler`, after the
 * route's token check has set `request.auth` (in `onRequest`, where the plugin counts by default, no
 * token has been read yet, and every user behind one address — a game backend, a NAT — would share one
 * allowance).
 */
export function perUser(limits: RateLimits, name: RateLimitName) {
  return {
    rateLimit: routeLimit(limits, name, {
      hook: 'preHandler',
      keyGenerator: (request: FastifyRequest) => `${name}:${request.auth?.userId ?? clientAddress(request)}`,
    }),
  };
}

/**
 * Route `config` for a limit of one route per login session (the JWT's `jti`), not per user: another
 * holder of the user's login JWT (an app backend it was relayed to) spamming the route does not lock
 * the user's own session out of it.
 */
export function perSession(limits: RateLimits, name: RateLimitName) {
  return {
    rateLimit: routeLimit(limits, name, {
      // After the route's token check, as `perUser`.
      hook: 'preHandler',
      keyGenerator: (request: FastifyRequest) =>
        request.auth
          ? `${name}:${request.auth.userId}:${request.auth.jti}`
          : `${name}:${clientAddress(request)}`,
    }),
  };
}

const addressLimiters = new WeakMap<Services, (request: FastifyRequest) => Promise<void>>();

/**
 * One per-address limiter (`pin_address`) shared by every route that makes PBKDF2 or chain work for
 * a caller (PIN, e-mail verification, transfer), so one address spreading requests over many users
 * and routes is still bounded. Runs first, before any token is verified.
 */
export function perAddressLimiter(app: App, services: Services): (request: FastifyRequest) => Promise<void> {
  let hook = addressLimiters.get(services);
  if (!hook) {
    hook = createLimiter(app, services.config.rateLimits, 'pin_address');
    addressLimiters.set(services, hook);
  }
  return hook;
}

/** The guard of every route that takes a user code (RFC 8628): a guess costs only when it is wrong. */
export interface UserCodeGuessLimit {
  /**
   * Before the code is looked up: throws 429 `rate_limited` once this address or this account has
   * used up its wrong codes, or, while every address together is past the global budget, has more
   * than a typo's worth of them. Never refuses an address and account without wrong codes.
   */
  check(request: FastifyRequest, userUuid: number): Promise<void>;
  /** Counts a wrong (unknown, expired or decided) user code against the address, the account and the global budget. */
  wrong(request: FastifyRequest, userUuid: number): Promise<void>;
}

/**
 * Wrong codes an address or an account may have in its window while the global budget is spent:
 * a player's typos, not a guesser's stream (docs/security.md "Device user codes").
 */
export const USER_CODE_TYPOS_UNDER_ATTACK = 3;

const userCodeLimits = new WeakMap<Services, UserCodeGuessLimit>();

/**
 * Wrong user codes per address (`device_user_code`), per account (`device_user_code_user`) and
 * from everyone together (`device_user_code_global`), shared by the `/device` page and the companion
 * API. The global budget never refuses a code by itself: past it, every address and account is held
 * to `USER_CODE_TYPOS_UNDER_ATTACK` wrong codes a window, so guessers spread over many addresses slow
 * to a crawl while a player who is not guessing still gets their right code looked up (decisions §9).
 */
export function userCodeGuessLimit(app: App, services: Services): UserCodeGuessLimit {
  let limit = userCodeLimits.get(services);
  if (limit) return limit;
  const limits = services.config.rateLimits;
  // The limiter's key generator sees only the request: the account is handed over beside it.
  const accountOf = new WeakMap<FastifyRequest, number>();
  const perAddress = app.createRateLimit(routeLimit(limits, 'device_user_code'));
  const perAccount = app.createRateLimit(
    routeLimit(limits, 'device_user_code_user', {
      keyGenerator: (request) => `device_user_code_user:${accountOf.get(request) ?? ''}`,
    }),
  );
  const global = app.createRateLimit(
    routeLimit(limits, 'device_user_code_global', { keyGenerator: () => 'device_user_code_global' }),
  );
  /** A counter's wrong codes in its window (capped at its max) without counting one more. */
  const read = async (limiter: typeof perAddress, request: FastifyRequest) => {
    const r = await limiter(request, { increment: false });
    // `isAllowed` only comes with an allow list, which these limiters have none of.
    return r.isAllowed
      ? { wrong: 0, max: Infinity, retryAfterSeconds: 1 }
      : { wrong: r.max - r.remaining, max: r.max, retryAfterSeconds: Math.max(1, r.ttlInSeconds) };
  };
  limit = {
    async check(request, userUuid) {
      accountOf.set(request, userUuid);
      const [address, account, everyone] = await Promise.all([
        read(perAddress, request),
        read(perAccount, request),
        read(global, request),
      ]);
      const allowance = everyone.wrong >= everyone.max ? USER_CODE_TYPOS_UNDER_ATTACK : Infinity;
      for (const own of [address, account]) {
        if (own.wrong >= Math.min(own.max, allowance)) {
          throw new AppError(429, 'rate_limited', 'Too many wrong codes; wait and try again', {
            retryAfterSeconds: own.retryAfterSeconds,
          });
        }
      }
    },
    async wrong(request, userUuid) {
      accountOf.set(request, userUuid);
      await Promise.all([perAddress(request), perAccount(request), global(request)]);
    },
  };
  userCodeLimits.set(services, limit);
  return limit;
}

/** The guard of every second step (docs/mfa.md): wrong codes per account, whatever the mfa_token or address. */
export interface MfaAccountGuard {
  /** Before the code is checked: 429 `rate_limited` once the account has used up its wrong codes. */
  check(userUuid: number): Promise<void>;
  /** Counts a wrong code against the account. */
  wrong(userUuid: number): Promise<void>;
}

const mfaAccountGuards = new WeakMap<Services, (request: FastifyRequest) => MfaAccountGuard>();

/**
 * Wrong second-step codes per account (`login_mfa_account`), shared by `POST /v1/dev-user/login/mfa`
 * and the login and device pages, in the rate limiter's store (Redis when `REDIS_URL` is set, so every
 * replica counts together): an attacker with the password cannot buy 5 codes per mfa_token over and
 * over from many addresses. Only wrong codes count, so the owner's right code is never refused before
 * someone has guessed.
 */
export function mfaAccountGuard(app: App, services: Services): (request: FastifyRequest) => MfaAccountGuard {
  let guard = mfaAccountGuards.get(services);
  if (guard) return guard;
  // The limiter's key generator sees only the request: the account is handed over beside it.
  const accountOf = new WeakMap<FastifyRequest, number>();
  const perAccount = app.createRateLimit(
    routeLimit(services.config.rateLimits, 'login_mfa_account', {
      keyGenerator: (request) => `login_mfa_account:${accountOf.get(request) ?? ''}`,
    }),
  );
  guard = (request) => ({
    async check(userUuid) {
      accountOf.set(request, userUuid);
      const r = await perAccount(request, { increment: false });
      // `isAllowed` only comes with an allow list, which this limiter has none of.
      if (!r.isAllowed && r.max - r.remaining >= r.max) {
        throw new AppError(429, 'rate_limited', 'Too many wrong codes for this account; wait and try again', {
          retryAfterSeconds: Math.max(1, r.ttlInSeconds),
        });
      }
    },
    async wrong(userUuid) {
      accountOf.set(request, userUuid);
      await perAccount(request);
    },
  });
  mfaAccountGuards.set(services, guard);
  return guard;
}
