import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import type { ContentServices } from '../../../composition/index.js';
import { authOf, bearerSecurity, requireFreshLogin } from '../../auth.js';
import { errorResponses } from '../../schemas.js';
import { perUser } from '../../rateLimits.js';
import type { App } from '../../types.js';
import { ClientId, ConsumeAuth } from './contentSchemas.js';

/** `POST /v1/development-api/consume_auth`: whether consumption calls need the app's HTTP Basic credentials. */
export async function consumeAuthRoutes(app: App, services: Services): Promise<void> {
  const content: ContentServices = services.content;
  // Changing how consumption is authenticated needs a recent password check (decisions §7, STEP_UP_MAX_AGE).
  const freshLogin = requireFreshLogin(services.authenticator, services.config.stepUpMaxAgeSeconds);

  app.post(
    '/v1/development-api/consume_auth',
    {
      onRequest: freshLogin,
      schema: {
        tags: ['content'],
        summary: 'Require (or stop requiring) the app’s HTTP Basic credentials on consumption calls',
        security: bearerSecurity,
        body: Type.Object({ client_id: ClientId, consume_auth: ConsumeAuth }),
        response: {
          200: Type.Object({ success: Type.Boolean(), client_id: Type.String(), consume_auth: ConsumeAuth }),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
      config: perUser(services.config.rateLimits, 'content_consume_auth'),
    },
    async (request) => {
      const { client_id, consume_auth } = request.body;
      const result = await content.providers.setConsumeAuth(
        Number(authOf(request).userId),
        client_id,
        consume_auth,
      );
      return { success: true, client_id, consume_auth: result };
    },
  );
}
