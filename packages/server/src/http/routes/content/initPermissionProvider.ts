import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import type { ContentServices } from '../../../composition/index.js';
import { authOf, bearerSecurity, requireFreshLogin } from '../../auth.js';
import { errorResponses } from '../../schemas.js';
import { perUser } from '../../rateLimits.js';
import type { App } from '../../types.js';
import { ClientId, ConsumeAuth, Cuid, PayloadMode } from './contentSchemas.js';

/** `POST /v1/development-api/init_permission_provider`: a client owner registers (or updates) its game's cuid; the client's payload keys come on its first registration. */
export async function initPermissionProviderRoutes(app: App, services: Services): Promise<void> {
  const content: ContentServices = services.content;
  // Provider settings and the CTR key stream need a recent password check (decisions §7, STEP_UP_MAX_AGE).
  const freshLogin = requireFreshLogin(services.authenticator, services.config.stepUpMaxAgeSeconds);

  app.post(
    '/v1/development-api/init_permission_provider',
    {
      onRequest: freshLogin,
      schema: {
        tags: ['content'],
        summary: 'Register a content provider (cuid) for one of your clients, on chain through the operator',
        security: bearerSecurity,
        body: Type.Object({
          client_id: ClientId,
          cuid: Cuid,
          release_per: Type.Number({
            minimum: 0,
            maximum: 100,
            description: 'Settlement ratio on used_balances, 0–100',
          }),
          owner_addr: Type.String({
            description: 'Provider wallet that receives the 85% revenue and releases',
          }),
          payload_mode: Type.Optional(PayloadMode),
          consume_auth: Type.Optional(ConsumeAuth),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            tx_hash: Type.String(),
            encryption_key: Type.Optional(
              Type.String({ description: 'Hex, 32 bytes; only on the client’s first registration' }),
            ),
            encryption_iv: Type.Optional(
              Type.String({ description: 'Hex, 16 bytes; only on the client’s first registration' }),
            ),
            gcm_key: Type.Optional(
              Type.String({
                description: 'Hex, 32 bytes: the AES-256-GCM key, shown once when first issued',
              }),
            ),
            payload_mode: PayloadMode,
            consume_auth: ConsumeAuth,
          }),
          ...errorResponses(400, 401, 403, 404, 409, 422, 429, 503),
        },
      },
      config: perUser(services.config.rateLimits, 'content_register'),
    },
    async (request, reply) => {
      const { client_id, cuid, release_per, owner_addr, payload_mode, consume_auth } = request.body;
      const result = await content.providers.register(Number(authOf(request).userId), {
        clientId: client_id,
        cuid,
        releasePer: release_per,
        ownerAddr: owner_addr,
        settings: {
          ...(payload_mode !== undefined ? { mode: payload_mode } : {}),
          ...(consume_auth !== undefined ? { consumeAuth: consume_auth } : {}),
        },
      });
      void reply.header('cache-control', 'no-store');
      return {
        success: true,
        tx_hash: result.txHash,
        ...(result.encryptionKey
          ? { encryption_key: result.encryptionKey, encryption_iv: result.encryptionIv }
          : {}),
        ...(result.gcmKey ? { gcm_key: result.gcmKey } : {}),
        payload_mode: result.settings.mode,
        consume_auth: result.settings.consumeAuth,
      };
    },
  );
}
