import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../composition/index.js';
import { isAppError } from '../errors.js';
import { maxNumberFor } from '../services/defense/botChallenge.js';
import { networkOf } from '../services/network/ipAddresses.js';
import { routeLimit } from './rateLimits.js';
import { requestContextOf } from './requestContext.js';
import type { App } from './types.js';

/** The body field of an ALTCHA solution (base64 JSON), on every request `BOT_CHALLENGE` may cover. */
export const AltchaField = Type.Optional(
  Type.String({
    maxLength: 2000,
    description: 'A solved challenge of `GET /v1/challenge` (base64 JSON, ALTCHA v1), used once',
  }),
);

/** The body field of a sign-in of an account under guessing: the code mailed to the owner. */
export const EmailCodeField = Type.Optional(
  Type.String({
    maxLength: 20,
    description: 'The code mailed to the account after its sign-ins were refused with challenge_required',
  }),
);

const challengeCounters = new WeakMap<
  Services,
  (request: FastifyRequest, clientId: string) => Promise<number>
>();

/**
 * Counts a challenge handed out to the request's network and app (`challenge_network`,
 * `challenge_client`, in the rate limiter's store, so replicas sharing Redis count together) and
 * answers the search space the new challenge gets.
 */
export function challengeDifficulty(
  app: App,
  services: Services,
): (request: FastifyRequest, clientId: string) => Promise<number> {
  let count = challengeCounters.get(services);
  if (count) return count;
  const limits = services.config.rateLimits;
  // The counters never refuse: their max is far above any rate, so `max - remaining` is the count.
  const ceiling = 1_000_000;
  const clientOf = new WeakMap<FastifyRequest, string>();
  const perNetwork = app.createRateLimit({
    max: ceiling,
    timeWindow: limits.challenge_network.windowMs,
    keyGenerator: (request) => `challenge_network:${networkOf(request.ip) ?? request.ip}`,
  });
  const perClient = app.createRateLimit({
    max: ceiling,
    timeWindow: limits.challenge_client.windowMs,
    keyGenerator: (request) => `challenge_client:${clientOf.get(request) ?? ''}`,
  });
  count = async (request, clientId) => {
    clientOf.set(request, clientId);
    const [network, client] = await Promise.all([perNetwork(request), perClient(request)]);
    const used = (r: typeof network) => (r.isAllowed ? 0 : r.max - r.remaining);
    return maxNumberFor(
      { network: used(network), client: clientId === '' ? 0 : used(client) },
      { network: limits.challenge_network.max, client: limits.challenge_client.max },
    );
  };
  challengeCounters.set(services, count);
  return count;
}

/** What a password sign-in brought besides the e-mail and password. */
export interface SignInExtras {
  altcha?: string | undefined;
  email_code?: string | undefined;
}

/** Runs one password sign-in through the bot challenge and the account's guessing defense. */
export type GuardedSignIn = <T>(email: string, extras: SignInExtras, signIn: () => Promise<T>) => Promise<T>;

const signInGuards = new WeakMap<Services, (request: FastifyRequest) => GuardedSignIn>();

/**
 * The guard of every password sign-in route (the JSON login, the login page, the device page):
 *
 * 1. with `BOT_CHALLENGE` covering `login`, a valid unspent `altcha` or 400 `challenge_required`;
 * 2. once the account (its e-mail) has `login_account` failures (10 in 15 minutes, counted in the rate
 *    limiter's store, so every replica sharing Redis counts together), a solution or the mailed code
 *    (`email_code`), else 401 `challenge_required` `{methods}` before the password is even checked, so
 *    the answer tells nothing about it;
 * 3. a wrong password (401 `invalid_credentials`) counts one failure against the account.
 */
export function passwordSignInGuard(
  app: App,
  services: Services,
): (request: FastifyRequest) => GuardedSignIn {
  let guard = signInGuards.get(services);
  if (guard) return guard;
  const accountOf = new WeakMap<FastifyRequest, string>();
  const perAccount = app.createRateLimit(
    routeLimit(services.config.rateLimits, 'login_account', {
      keyGenerator: (request) => `login_account:${accountOf.get(request) ?? ''}`,
    }),
  );
  guard = (request) =>
    async function guarded<T>(
      emailInput: string,
      extras: SignInExtras,
      signIn: () => Promise<T>,
    ): Promise<T> {
      const email = emailInput.trim().toLowerCase();
      let solved = false;
      if (services.botChallenge.covers('login')) {
        await services.botChallenge.require('login', extras.altcha);
        solved = true;
      }
      accountOf.set(request, email);
      const state = await perAccount(request, { increment: false });
      // `isAllowed` only comes with an allow list, which this limiter has none of.
      const underGuessing = !state.isAllowed && state.max - state.remaining >= state.max;
      const spend = underGuessing
        ? await services.loginDefense.admit(
            email,
            { altcha: extras.altcha, emailCode: extras.email_code, solved },
            requestContextOf(request),
          )
        : undefined;
      try {
        const result = await signIn();
        await spend?.();
        return result;
      } catch (err) {
        if (isAppError(err) && err.code === 'invalid_credentials') {
          accountOf.set(request, email);
          await perAccount(request);
        }
        throw err;
      }
    };
  signInGuards.set(services, guard);
  return guard;
}
