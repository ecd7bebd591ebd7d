import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { authOf, bearerSecurity, requireToken } from '../../auth.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { Amount } from './accountSchemas.js';

/** `GET /v1/dev-user/slots` (the console's account page): the user's slots and their balances. */
export async function devUserSlotsRoutes(app: App, services: Services): Promise<void> {
  const overview = services.accountOverview;

  app.get(
    '/v1/dev-user/slots',
    {
      schema: {
        tags: ['accounts'],
        summary: "Your slots: slot id (spec), app, content address and each of the app's cuids' balances",
        security: bearerSecurity,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            slots: Type.Array(
              Type.Object({
                slot_id: Type.String({ description: 'uint256 as decimal digits' }),
                client_id: Type.String(),
                app_name: Type.Union([Type.String(), Type.Null()]),
                content_address: Type.String(),
                balances: Type.Array(Type.Object({ cuid: Type.String(), balance: Amount, used: Amount })),
              }),
            ),
          }),
          ...errorResponses(401, 503),
        },
      },
      preHandler: requireToken(services.authenticator, 'login'),
    },
    async (request) => {
      const slots = await overview.slots(Number(authOf(request).userId));
      return {
        success: true,
        slots: slots.map((s) => ({
          slot_id: s.slotId,
          client_id: s.clientId,
          app_name: s.appName,
          content_address: s.contentAddress,
          balances: s.balances,
        })),
      };
    },
  );
}
