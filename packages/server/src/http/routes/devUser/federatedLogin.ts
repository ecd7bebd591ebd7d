import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { routeLimit } from '../../rateLimits.js';
import { requestLocale } from '../../requestLocale.js';
import { ErrorBody, errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { FederatedSignIn, signInBody } from './accountSchemas.js';

/**
 * `POST /v1/dev-user/federated-login` (decisions §8, docs/federation.md): a native game's upstream
 * id_token (Sign in with Apple or Google on the device) for a login JWT. The id_token must verify against
 * the provider's JWKS, issuer, one of its `client_ids` and its expiry (401 `invalid_id_token`), and is
 * accepted once (401 `id_token_replayed`); the login JWT's `auth_time` is the id_token's. Its identity
 * signs in, or creates the account (`created: true`), or meets an account that already has the
 * e-mail (409 `account_exists_link_required`, nothing created or linked).
 */
export async function federatedLoginRoutes(app: App, services: Services): Promise<void> {
  const { federation } = services;

  app.post(
    '/v1/dev-user/federated-login',
    {
      schema: {
        tags: ['accounts'],
        summary:
          'Signs in with an upstream id_token (native Sign in with Apple/Google); with client_id the login JWT is bound to that app. Each id_token is accepted once: 401 id_token_replayed',
        body: Type.Object({
          provider: Type.String({ minLength: 1, maxLength: 64 }),
          id_token: Type.String({ minLength: 1, maxLength: 16_000 }),
          client_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        }),
        response: {
          200: FederatedSignIn,
          ...errorResponses(400, 404, 409, 429, 503),
          401: Type.Object(ErrorBody.properties, {
            additionalProperties: true,
            description:
              'invalid_id_token (signature, issuer, audience or expiry), or id_token_replayed (this id_token was used before: each is accepted once)',
          }),
        },
      },
      config: { rateLimit: routeLimit(services.config.rateLimits, 'federated_login') },
    },
    async (request, reply) => {
      void reply.header('cache-control', 'no-store');
      const signIn = await federation.nativeLogin({
        providerId: request.body.provider,
        idToken: request.body.id_token,
        clientId: request.body.client_id,
        locale: requestLocale(request),
      });
      if (!signIn.mfaRequired) request.auditUser = signIn.uuid;
      return signInBody(signIn, { created: signIn.created });
    },
  );
}
