import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { authOf, bearerSecurity, requireToken } from '../../auth.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';

/** The apps a user approved (`/v1/dev-user/consents`): list, and revoke with every token of the app. */
export async function consentRoutes(app: App, services: Services): Promise<void> {
  const { consents } = services;

  app.get(
    '/v1/dev-user/consents',
    {
      schema: {
        tags: ['accounts'],
        summary: 'The apps you approved (login page or a live grant): client id, name, since, scopes',
        security: bearerSecurity,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            consents: Type.Array(
              Type.Object({
                client_id: Type.String(),
                name: Type.String(),
                since: Type.String({ description: 'ISO 8601 UTC' }),
                scopes: Type.Array(Type.String()),
              }),
            ),
          }),
          ...errorResponses(401),
        },
      },
      preHandler: requireToken(services.authenticator, 'login'),
    },
    async (request) => {
      const apps = await consents.list(Number(authOf(request).userId));
      return {
        success: true,
        consents: apps.map((a) => ({
          client_id: a.clientId,
          name: a.name,
          since: new Date(a.since).toISOString(),
          scopes: a.scopes,
        })),
      };
    },
  );

  app.delete(
    '/v1/dev-user/consents/:client_id',
    {
      schema: {
        tags: ['accounts'],
        summary:
          'Revoke an app you approved: the consent and every grant (access and refresh tokens) of yours for it, on every replica',
        security: bearerSecurity,
        params: Type.Object({ client_id: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: {
          200: Type.Object({ success: Type.Boolean(), revoked_grants: Type.Integer() }),
          ...errorResponses(401, 404, 503),
        },
      },
      preHandler: requireToken(services.authenticator, 'login'),
    },
    async (request) => {
      const { revokedGrants } = await consents.revoke(
        Number(authOf(request).userId),
        request.params.client_id,
      );
      return { success: true, revoked_grants: revokedGrants };
    },
  );
}
