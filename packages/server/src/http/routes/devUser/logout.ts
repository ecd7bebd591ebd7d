import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { authOf, bearerSecurity, requireToken } from '../../auth.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';

/** `POST /v1/dev-user/logout`: revoke the bearer login JWT. */
export async function devUserLogoutRoutes(app: App, services: Services): Promise<void> {
  app.post(
    '/v1/dev-user/logout',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Revoke the bearer login JWT: validate and every later use of it fail, on every replica',
        security: bearerSecurity,
        response: {
          200: Type.Object({ success: Type.Boolean() }),
          ...errorResponses(401, 503),
        },
      },
      preHandler: requireToken(services.authenticator, 'login'),
    },
    async (request) => {
      const { jti, exp } = authOf(request);
      // The same revocation list as access tokens: kept until the token would have expired anyway (plus the
      // clock margin), shared with the other replicas over the revocation bus.
      await services.oauth.revokeJti(jti, exp);
      return { success: true };
    },
  );
}
