import type { FastifyReply } from 'fastify';
import { clientAddress, routeLimit } from '../../rateLimits.js';
import { Type } from 'typebox';
import type { Config } from '../../../config.js';
import { claimedClientId } from './clientAuthentication.js';

/** What the client-authenticated OAuth endpoints (`/oauth/token`, `/oauth/revoke`, `/oauth/introspect`) share. */

export const optionalString = (maxLength: number) => Type.Optional(Type.String({ maxLength }));

/** Client authentication in the body; HTTP Basic is the other way (`clientAuthentication.ts`). */
export const clientCredentials = { client_id: optionalString(200), client_secret: optionalString(500) };

/** The body of revocation (RFC 7009) and introspection (RFC 7662). */
export const TokenOnlyBody = Type.Object(
  { token: Type.String({ maxLength: 4096 }), token_type_hint: optionalString(50), ...clientCredentials },
  { additionalProperties: true },
);

/** Token answers are never cached (RFC 6749 §5.1). A callback hook: no promise per request. */
export const noStore = (_request: unknown, reply: FastifyReply, done: () => void) => {
  void reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  done();
};

/**
 * One limit per claimed client and address. A preHandler, because the client id may be in the parsed
 * body; the routes register their own limiter each, so each endpoint counts apart.
 */
export function clientRateLimit(config: Pick<Config, 'rateLimits'>) {
  return routeLimit(config.rateLimits, 'oauth_token', {
    hook: 'preHandler',
    keyGenerator: (request) => `oauth_token:${claimedClientId(request)}:${clientAddress(request)}`,
  });
}
