import { Type } from 'typebox';
import type { Services } from '../../composition.js';
import { MAX_REDIRECT_URIS } from '../../services/oauth/clientService.js';
import { authOf, bearerSecurity, requireToken } from '../auth.js';
import { errorResponses } from '../schemas.js';
import type { App } from '../types.js';

const ClientSummary = Type.Object({
  client_id: Type.String(),
  name: Type.String(),
  redirect_uris: Type.Array(Type.String()),
  dapp: Type.Boolean(),
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
});

/** Apps (OAuth clients) of a developer (decisions §3), authenticated by the developer's login JWT. */
export async function clientRoutes(app: App, services: Services): Promise<void> {
  const { clients } = services;

  app.post(
    '/v1/dev-user/clients',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Register an app (OAuth client); the secret is shown once',
        security: bearerSecurity,
        body: Type.Object({
          name: Type.String({ minLength: 1, maxLength: 200 }),
          redirect_uris: Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), {
            minItems: 1,
            maxItems: MAX_REDIRECT_URIS,
          }),
          dapp: Type.Optional(Type.Boolean()),
        }),
        response: {
          201: Type.Object({
            success: Type.Boolean(),
            client_id: Type.String(),
            client_secret: Type.String(),
          }),
          ...errorResponses(400, 401, 429),
        },
      },
      preHandler: requireToken(services.authenticator, 'login'),
      config: {
        rateLimit: { max: 30, timeWindow: '1 minute', keyGenerator: (request) => `clients:${request.ip}` },
      },
    },
    async (request, reply) => {
      const { client, clientSecret } = await clients.create({
        ownerUuid: Number(authOf(request).userId),
        name: request.body.name,
        redirectUris: request.body.redirect_uris,
        dapp: request.body.dapp,
      });
      void reply.header('cache-control', 'no-store');
      return reply
        .status(201)
        .send({ success: true, client_id: client.clientId, client_secret: clientSecret });
    },
  );

  app.get(
    '/v1/dev-user/clients',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Your own apps (never their secrets)',
        security: bearerSecurity,
        response: {
          200: Type.Object({ success: Type.Boolean(), clients: Type.Array(ClientSummary) }),
          ...errorResponses(401),
        },
      },
      preHandler: requireToken(services.authenticator, 'login'),
    },
    async (request) => {
      const own = await clients.listOwn(Number(authOf(request).userId));
      return {
        success: true,
        clients: own.map((c) => ({
          client_id: c.clientId,
          name: c.name,
          redirect_uris: c.redirectUris,
          dapp: c.dapp,
          created_at: new Date(c.createdAt).toISOString(),
        })),
      };
    },
  );
}
