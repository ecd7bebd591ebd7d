import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';

const Spend = (subject: string) =>
  Type.Object({
    [subject]: Type.String(),
    gas: Type.Integer({ description: 'Gas charged: the sum of the sponsored operations’ gas limits' }),
    operations: Type.Integer(),
  });

/** `GET /v1/admin/sponsorship`: sponsored gas per app and per user on a UTC day (today by default). */
export async function adminSponsorshipRoutes(app: App, services: Services): Promise<void> {
  app.get(
    '/v1/admin/sponsorship',
    {
      schema: {
        tags: ['admin'],
        summary: 'Gas sponsorship spent per app and per user on a UTC day, and the configured limits',
        security: [{ admin: [] }],
        querystring: Type.Object({
          day: Type.Optional(
            Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'YYYY-MM-DD (UTC)' }),
          ),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            day: Type.String(),
            limits: Type.Object({
              user_daily_gas: Type.Integer(),
              unverified_user_daily_gas: Type.Integer(),
              platform_daily_gas: Type.Integer(),
              app_daily_gas: Type.Integer(),
              max_operation_gas: Type.Integer(),
            }),
            platform: Type.Object({
              gas: Type.Integer({ description: 'Gas charged against SPONSOR_PLATFORM_DAILY_GAS' }),
              operations: Type.Integer(),
              refused: Type.Integer({ description: 'Operations refused because the cap was reached' }),
              cap_reached: Type.Boolean(),
            }),
            apps: Type.Array(Spend('client_id')),
            users: Type.Array(Spend('user_id')),
          }),
          ...errorResponses(400, 401),
        },
      },
    },
    async (request) => {
      const { day, apps, users } = await services.sponsorshipReport.spendOn(request.query.day);
      const platform = await services.sponsorshipReport.platformOn(day);
      const { sponsorship } = services.config;
      return {
        success: true,
        day,
        limits: {
          user_daily_gas: sponsorship.userDailyGas,
          unverified_user_daily_gas: sponsorship.unverifiedUserDailyGas,
          platform_daily_gas: sponsorship.platformDailyGas,
          app_daily_gas: sponsorship.appDailyGas,
          max_operation_gas: sponsorship.maxOperationGas,
        },
        platform: {
          gas: platform.gas,
          operations: platform.operations,
          refused: platform.refused,
          cap_reached: platform.reached,
        },
        apps: apps.map((r) => ({ client_id: r.subject, gas: r.gas, operations: r.operations })),
        users: users.map((r) => ({ user_id: r.subject, gas: r.gas, operations: r.operations })),
      };
    },
  );
}
