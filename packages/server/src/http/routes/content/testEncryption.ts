import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import type { ContentServices } from '../../../composition/index.js';
import { authOf, bearerSecurity, requireFreshLogin } from '../../auth.js';
import { errorResponses } from '../../schemas.js';
import { perUser } from '../../rateLimits.js';
import type { App } from '../../types.js';
import { ClientId } from './contentSchemas.js';

/** `POST /v1/development-api/test_encryption`: the client's AES-256-CTR of a test string, to check a local implementation. */
export async function testEncryptionRoutes(app: App, services: Services): Promise<void> {
  const content: ContentServices = services.content;
  // The CTR key stream is a provider secret: it needs a recent password check (decisions §7, STEP_UP_MAX_AGE).
  const freshLogin = requireFreshLogin(services.authenticator, services.config.stepUpMaxAgeSeconds);

  app.post(
    '/v1/development-api/test_encryption',
    {
      onRequest: freshLogin,
      schema: {
        tags: ['content'],
        summary:
          'AES-256-CTR (hex) of test_string under the client’s key and IV, to compare with a local result',
        security: bearerSecurity,
        body: Type.Object({ client_id: ClientId, test_string: Type.String({ maxLength: 65_536 }) }),
        response: {
          200: Type.Object({ success: Type.Boolean(), encrypted_string: Type.String() }),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
      config: perUser(services.config.rateLimits, 'content_test_encryption'),
    },
    async (request) => {
      const { client_id, test_string } = request.body;
      const encrypted = await content.providers.testEncryption(
        Number(authOf(request).userId),
        client_id,
        test_string,
      );
      return { success: true, encrypted_string: encrypted };
    },
  );
}
