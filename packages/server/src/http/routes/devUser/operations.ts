import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { authOf, bearerSecurity, requireToken } from '../../auth.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';

/** `GET /v1/dev-user/operations` (the console's account page): the user's recent wallet operations. */
export async function devUserOperationsRoutes(app: App, services: Services): Promise<void> {
  const overview = services.accountOverview;

  app.get(
    '/v1/dev-user/operations',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Your recent wallet operations through this service (from the audit trail), newest first',
        security: bearerSecurity,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            operations: Type.Array(
              Type.Object({
                at: Type.String({ description: 'ISO 8601 UTC' }),
                action: Type.String(),
                outcome: Type.String(),
                status: Type.Integer(),
                client_id: Type.Union([Type.String(), Type.Null()], {
                  description: 'The app the operation was made for or through (session operations), if any',
                }),
                details: Type.Record(Type.String(), Type.Unknown()),
              }),
            ),
          }),
          ...errorResponses(401),
        },
      },
      preHandler: requireToken(services.authenticator, 'login'),
    },
    async (request) => {
      const operations = await overview.operations(Number(authOf(request).userId));
      return {
        success: true,
        operations: operations.map(({ clientId, ...o }) => ({
          ...o,
          client_id: clientId,
          at: new Date(o.at).toISOString(),
        })),
      };
    },
  );
}
