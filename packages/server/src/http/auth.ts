import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { AppError, unauthorized } from '../errors.js';
import type { Authenticator } from '../services/tokens/authenticator.js';
import type { TokenClaims } from '../services/tokens/tokenService.js';
import { bearerToken } from './adminAuth.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by `requireToken`: the verified, unrevoked bearer token's claims. */
    auth?: TokenClaims;
  }
}

/** preHandler: a valid bearer token of the accepted use, else 401. */
export function requireToken(authenticator: Authenticator, accept: TokenClaims['use'] | 'any' = 'any') {
  return async (request: FastifyRequest): Promise<void> => {
    const token = bearerToken(request);
    if (!token) throw unauthorized('missing_token', 'Send Authorization: Bearer <token>');
    request.auth = await authenticator.authenticate(token, accept);
  };
}

/**
 * `requireToken` as a callback hook for the hottest routes (token validation): a token already seen
 * is checked without a promise (`Authenticator.authenticateNow`); the checks and errors are the same.
 */
export function requireTokenNow(authenticator: Authenticator, accept: TokenClaims['use'] | 'any' = 'any') {
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const token = bearerToken(request);
    if (!token) return done(unauthorized('missing_token', 'Send Authorization: Bearer <token>'));
    let claims: TokenClaims | Promise<TokenClaims>;
    try {
      claims = authenticator.authenticateNow(token, accept);
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
}

/**
 * preHandler of account-critical changes (decisions §7): provider settings, `test_encryption`, an app's
 * edit, deletion and client secret rotation, and the password change. dauth offers no e-mail change
 * (docs/decisions.md); one added later must use this too. A login JWT whose password check (`auth_time`)
 * is at most `maxAgeSeconds` old passes, else 401 `reauthentication_required`. A login JWT relayed to an
 * app backend in the backend-integration flow therefore stops being enough for these within minutes of
 * the user's login.
 */
export function requireFreshLogin(authenticator: Authenticator, maxAgeSeconds: number) {
  const login = requireToken(authenticator, 'login');
  return async (request: FastifyRequest): Promise<void> => {
    await login(request);
    const authTime = request.auth?.authTime;
    if (authTime === undefined || Date.now() / 1000 - authTime > maxAgeSeconds) {
      throw new AppError(
        401,
        'reauthentication_required',
        `This change needs a login from the last ${maxAgeSeconds} s: sign in again with your password`,
        { max_age: maxAgeSeconds },
      );
    }
  };
}

/** The claims `requireToken` attached; a route without that preHandler is a programming error. */
export function authOf(request: FastifyRequest): TokenClaims {
  if (!request.auth) throw new Error(`route ${request.routeOptions.url} used authOf without requireToken`);
  return request.auth;
}

export const bearerSecurity = [{ bearer: [] as string[] }];
