import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import type { ContentServices } from '../../../composition/index.js';
import { authOf, bearerSecurity, requireFreshLogin, requireToken } from '../../auth.js';
import { errorResponses } from '../../schemas.js';
import { perUser } from '../../rateLimits.js';
import type { App } from '../../types.js';
import { ClientId, ConsumeAuth, PayloadMode } from './contentSchemas.js';

/** `GET and POST /v1/development-api/payload_mode`: which consumption payload forms the client accepts. */
export async function payloadModeRoutes(app: App, services: Services): Promise<void> {
  const content: ContentServices = services.content;
  const loginToken = requireToken(services.authenticator, 'login');
  // Changing how consumption is authenticated needs a recent password check (decisions §7, STEP_UP_MAX_AGE).
  const freshLogin = requireFreshLogin(services.authenticator, services.config.stepUpMaxAgeSeconds);

  app.post(
    '/v1/development-api/payload_mode',
    {
      onRequest: freshLogin,
      schema: {
        tags: ['content'],
        summary:
          'Choose which consumption payload forms the client accepts (switch on / require AES-256-GCM)',
        security: bearerSecurity,
        body: Type.Object({ client_id: ClientId, mode: PayloadMode }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            client_id: Type.String(),
            payload_mode: PayloadMode,
            gcm_key: Type.Optional(
              Type.String({
                description: 'Hex, 32 bytes: the AES-256-GCM key, shown once when first issued',
              }),
            ),
          }),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
      config: perUser(services.config.rateLimits, 'content_payload_mode'),
    },
    async (request) => {
      const { client_id, mode } = request.body;
      const result = await content.providers.setPayloadMode(Number(authOf(request).userId), client_id, mode);
      return {
        success: true,
        client_id,
        payload_mode: result.mode,
        ...(result.gcmKey ? { gcm_key: result.gcmKey } : {}),
      };
    },
  );

  app.get(
    '/v1/development-api/payload_mode',
    {
      onRequest: loginToken,
      schema: {
        tags: ['content'],
        summary: 'Which consumption payload forms the client accepts',
        security: bearerSecurity,
        querystring: Type.Object({ client_id: ClientId }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            client_id: Type.String(),
            payload_mode: PayloadMode,
            consume_auth: ConsumeAuth,
            has_gcm_key: Type.Boolean(),
          }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const { client_id } = request.query;
      const result = await content.providers.payloadMode(Number(authOf(request).userId), client_id);
      return {
        success: true,
        client_id,
        payload_mode: result.mode,
        consume_auth: result.consumeAuth,
        has_gcm_key: result.hasGcmKey,
      };
    },
  );
}
