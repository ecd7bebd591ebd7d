import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { authOf, bearerSecurity, requireTokenNow } from '../../auth.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';

/**
 * `GET /v1/oauth/validate` (spec endpoint 7). The cost is one map lookup for a token seen before
 * (its signature was checked on first sight) plus the in-memory revocation check, which a
 * revocation updates before it returns, so no cached answer can outlive it.
 */
export async function oauthValidateRoutes(app: App, services: Services): Promise<void> {
  app.get(
    '/v1/oauth/validate',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Token validation: 200 when the bearer access token is live',
        security: bearerSecurity,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            active: Type.Literal(true),
            user_id: Type.String(),
            client_id: Type.String(),
            exp: Type.Integer({ description: 'Expiry, seconds since the epoch' }),
          }),
          ...errorResponses(401),
        },
      },
      preHandler: requireTokenNow(services.authenticator, 'access'),
    },
    // Not async: the answer is sent at once, without a promise to settle first.
    (request, reply) => {
      const claims = authOf(request);
      void reply.header('cache-control', 'no-store').send({
        success: true,
        active: true as const,
        user_id: claims.userId,
        client_id: claims.clientId ?? '',
        exp: claims.exp,
      });
    },
  );
}
