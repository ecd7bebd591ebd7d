import type { FastifyRequest } from 'fastify';
import { unauthorized } from '../errors.js';
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

/** The claims `requireToken` attached; a route without that preHandler is a programming error. */
export function authOf(request: FastifyRequest): TokenClaims {
  if (!request.auth) throw new Error(`route ${request.routeOptions.url} used authOf without requireToken`);
  return request.auth;
}

export const bearerSecurity = [{ bearer: [] as string[] }];
