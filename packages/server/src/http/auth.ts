import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { AppError, unauthorized } from '../errors.js';
import { FIRST_PARTY_BINDING } from '../services/oauth/loginBinding.js';
import type { Authenticator } from '../services/tokens/authenticator.js';
import type { TokenClaims } from '../services/tokens/tokenService.js';
import { bearerToken } from './adminAuth.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by `requireToken`: the verified, unrevoked bearer token's claims. */
    auth?: TokenClaims;
  }
}

/**
 * Which bearer token a route's preHandler accepts, as docs/security.md ("Who may change what") lists it
 * for every route; test/architecture/routeAccess.test.ts reads it off each registered route.
 */
export type RouteAccess =
  | 'any_token'
  | 'login'
  | 'access'
  | 'fresh_login'
  | 'first_party'
  | 'first_party_or_guest'
  | 'login_or_client'
  | 'fresh_login_or_client';

const ROUTE_ACCESS = Symbol('dauth.routeAccess');

function withAccess<F extends object>(handler: F, access: RouteAccess): F {
  Object.defineProperty(handler, ROUTE_ACCESS, { value: access });
  return handler;
}

/** The access a preHandler made by this module enforces; undefined for any other function. */
export function routeAccessOf(handler: unknown): RouteAccess | undefined {
  if (typeof handler !== 'function') return undefined;
  return (handler as unknown as Record<symbol, RouteAccess | undefined>)[ROUTE_ACCESS];
}

/**
 * The token uses a person route may ask for: `any` is a login JWT or an access token. A client_credentials
 * token (`client`) is refused by all of these (it never stands for a person); only the org management
 * routes take it.
 */
export type PersonTokenUse = Exclude<TokenClaims['use'], 'client'> | 'any';

/** preHandler: a valid bearer token of the accepted use, else 401. */
export function requireToken(authenticator: Authenticator, accept: PersonTokenUse = 'any') {
  return withAccess(
    async (request: FastifyRequest): Promise<void> => {
      const token = bearerToken(request);
      if (!token) throw unauthorized('missing_token', 'Send Authorization: Bearer <token>');
      request.auth = await authenticator.authenticate(token, accept);
    },
    accept === 'any' ? 'any_token' : accept,
  );
}

/**
 * `requireToken` as a callback hook for the hottest routes (token validation): a token already seen
 * is checked without a promise (`Authenticator.authenticateNow`); the checks and errors are the same.
 */
export function requireTokenNow(authenticator: Authenticator, accept: PersonTokenUse = 'any') {
  const handler = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    let claims: TokenClaims | Promise<TokenClaims> | undefined;
    try {
      // The common case first: `Bearer <token>` whose text is a token verified before. That text is a JWT
      // (no whitespace), so bearerToken's scan of ~600 characters for whitespace is not needed to trust it.
      const header = request.headers.authorization;
      if (header?.startsWith('Bearer ')) claims = authenticator.authenticateSeen(header.slice(7), accept);
      if (claims === undefined) {
        const token = bearerToken(request);
        if (!token) return done(unauthorized('missing_token', 'Send Authorization: Bearer <token>'));
        claims = authenticator.authenticateNow(token, accept);
      }
    } catch (err) {
      return done(err as Error);
    }
    if (!(claims instanceof Promise)) {
      request.auth = claims;
      return done();
    }
    claims.then((verified) => {
      request.auth = verified;
      done();
    }, done);
  };
  return withAccess(handler, accept === 'any' ? 'any_token' : accept);
}

/**
 * preHandler of account-critical changes (decisions §7): provider settings, `test_encryption`, an app's
 * edit, deletion and client secret rotation, and the password change (which also asks for the current
 * password). A login JWT whose authentication (`auth_time`) is at most `maxAgeSeconds` old passes, else
 * 401 `reauthentication_required`. A login JWT relayed to an app backend in the backend-integration flow
 * therefore stops being enough for these within minutes of the user's login.
 */
export function requireFreshLogin(authenticator: Authenticator, maxAgeSeconds: number) {
  const login = requireToken(authenticator, 'login');
  return withAccess(async (request: FastifyRequest): Promise<void> => {
    await login(request);
    requireFresh(authOf(request), maxAgeSeconds);
  }, 'fresh_login');
}

function requireFresh(claims: TokenClaims, maxAgeSeconds: number): void {
  const authTime = claims.authTime;
  if (authTime === undefined || Date.now() / 1000 - authTime > maxAgeSeconds) {
    throw new AppError(
      401,
      'reauthentication_required',
      `This change needs a sign-in from the last ${maxAgeSeconds} s: sign in again`,
      { max_age: maxAgeSeconds },
    );
  }
}

/** 403 `first_party_required`: a change to the account's ways in under a token that is not the console's. */
export const firstPartyRequired = () =>
  new AppError(
    403,
    'first_party_required',
    'Only the dauth console or CLI can make this change: sign in there (a login JWT bound to dauth:console)',
  );

/** Whether the account is still a guest (the one exception of the first-party rule). */
export interface GuestLookup {
  isGuest(userUuid: number): Promise<boolean>;
}

/**
 * preHandler of every change to an account's ways in (decisions §9 "Ways in"): passkeys, linked
 * identities, second factors, the e-mail, export and deletion. Only a login JWT bound to
 * `dauth:console` (the console's and the CLI's, never handed to an app) that is fresh passes: an
 * unbound or app-bound JWT → 403 `first_party_required`, a stale console JWT → 401
 * `reauthentication_required`. An app backend that holds a relayed login JWT therefore cannot plant a
 * passkey or an identity of its own, however fresh the JWT.
 *
 * With `guests`, a guest's own app-bound JWT (fresh) may also pass while the account is still a guest:
 * the game upgrades its guest with a first passkey or identity (the guest's account is the game's to
 * begin with; after the upgrade the rule applies in full).
 */
export function requireFirstParty(authenticator: Authenticator, maxAgeSeconds: number, guests?: GuestLookup) {
  const login = requireToken(authenticator, 'login');
  return withAccess(
    async (request: FastifyRequest): Promise<void> => {
      await login(request);
      const claims = authOf(request);
      const firstParty = claims.azp === FIRST_PARTY_BINDING;
      const guestUpgrade =
        !firstParty &&
        guests !== undefined &&
        claims.azp !== undefined &&
        (await guests.isGuest(Number(claims.userId)));
      if (!firstParty && !guestUpgrade) throw firstPartyRequired();
      requireFresh(claims, maxAgeSeconds);
    },
    guests ? 'first_party_or_guest' : 'first_party',
  );
}

/**
 * preHandler of the organizations' management routes that machines may call (decisions §9 "Machines"): a
 * login JWT (a member, judged by role) or a client_credentials token (a service account, judged by scope;
 * the route resolves which). Any other token → 401 `invalid_token`.
 */
export function requireLoginOrClient(authenticator: Authenticator) {
  return withAccess(async (request: FastifyRequest): Promise<void> => {
    const token = bearerToken(request);
    if (!token) throw unauthorized('missing_token', 'Send Authorization: Bearer <token>');
    try {
      request.auth = await authenticator.authenticate(token, 'login');
    } catch (loginError) {
      try {
        request.auth = await authenticator.authenticate(token, 'client');
      } catch (clientError) {
        // A client token's own failure (expired, revoked) says more than "a login token is required".
        const wrongUse =
          clientError instanceof AppError && clientError.message.startsWith('A client_credentials');
        throw wrongUse ? loginError : clientError;
      }
    }
  }, 'login_or_client');
}

/**
 * `requireLoginOrClient` where a person must also be fresh (`requireFreshLogin`: an app's edit): a login
 * JWT within `maxAgeSeconds` of its authentication, or a client_credentials token (a service account has no
 * sign-in to be fresh; its secret is the credential and its scope the limit).
 */
export function requireFreshLoginOrClient(authenticator: Authenticator, maxAgeSeconds: number) {
  const either = requireLoginOrClient(authenticator);
  return withAccess(async (request: FastifyRequest): Promise<void> => {
    await either(request);
    const claims = authOf(request);
    if (claims.use === 'login') requireFresh(claims, maxAgeSeconds);
  }, 'fresh_login_or_client');
}

/** The claims `requireToken` attached; a route without that preHandler is a programming error. */
export function authOf(request: FastifyRequest): TokenClaims {
  if (!request.auth) throw new Error(`route ${request.routeOptions.url} used authOf without requireToken`);
  return request.auth;
}

export const bearerSecurity = [{ bearer: [] as string[] }];
