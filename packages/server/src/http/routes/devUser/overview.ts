import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { authOf, bearerSecurity, requireToken } from '../../auth.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';

const Amount = Type.String({ pattern: '^[0-9]+$', description: 'Decimal string in the smallest unit' });

/** Read endpoints of the console's account page: the user's main wallet, slots and wallet operations. */
export async function overviewRoutes(app: App, services: Services): Promise<void> {
  const overview = services.accountOverview;
  const login = requireToken(services.authenticator, 'login');

  app.get(
    '/v1/dev-user/wallet',
    {
      schema: {
        tags: ['accounts'],
        summary:
          'Your main wallet: address (null before a PIN is set) and native and platform ERC-20 balances',
        security: bearerSecurity,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            address: Type.Union([Type.String(), Type.Null()]),
            native_balance: Type.Union([Amount, Type.Null()]),
            token_balance: Type.Union([Amount, Type.Null()]),
          }),
          ...errorResponses(401, 503),
        },
      },
      preHandler: login,
    },
    async (request) => {
      const w = await overview.wallet(Number(authOf(request).userId));
      return {
        success: true,
        address: w.address,
        native_balance: w.nativeBalance,
        token_balance: w.tokenBalance,
      };
    },
  );

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
      preHandler: login,
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
                details: Type.Record(Type.String(), Type.Unknown()),
              }),
            ),
          }),
          ...errorResponses(401),
        },
      },
      preHandler: login,
    },
    async (request) => {
      const operations = await overview.operations(Number(authOf(request).userId));
      return {
        success: true,
        operations: operations.map((o) => ({ ...o, at: new Date(o.at).toISOString() })),
      };
    },
  );
}
