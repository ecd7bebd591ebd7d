import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { MAX_ACTIVITY_DAYS } from '../../../services/activity/appActivityService.js';
import { bearerSecurity, requireLoginOrClient } from '../../auth.js';
import { routeLimit } from '../../rateLimits.js';
import { managementActor } from '../../managementActor.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';

const Units = (description: string) => Type.String({ pattern: '^[0-9]+$', description });

const Day = Type.Object({
  date: Type.String({ description: 'YYYY-MM-DD (UTC)' }),
  sign_ins: Type.Integer({ description: 'New grants: code, backend, device and direct sign-ins' }),
  active_players: Type.Integer({
    description: 'Distinct players who signed in, refreshed a token, bought or consumed content',
  }),
  sponsored_gas: Type.Integer({ description: "Gas sponsored for the app's operations (their gas limits)" }),
  sponsored_operations: Type.Integer(),
  purchases: Type.Integer({ description: 'Successful content-token purchases' }),
  purchased_tokens: Units('Content-token units bought'),
  consumptions: Type.Integer({ description: 'Accepted consumption records' }),
  consumed_tokens: Units('Content-token units consumed'),
  market_sales: Type.Integer({ description: 'Marketplace sales of the app’s slots' }),
  market_volume_wei: Units('What the sales paid, in wei'),
});

/**
 * `GET /v1/dev-user/clients/{id}/activity` (docs/console.md): what the console charts for an app owner,
 * per UTC day over the last `days` days (30 at most), from what the service already records.
 */
export async function appActivityRoutes(app: App, services: Services): Promise<void> {
  const { appActivity } = services;

  app.get(
    '/v1/dev-user/clients/:id/activity',
    {
      schema: {
        tags: ['accounts'],
        summary:
          "Your app's activity per day: sign-ins, active players, sponsored gas against the budget, content, market sales",
        security: bearerSecurity,
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
        querystring: Type.Object({
          days: Type.Optional(
            Type.String({
              pattern: '^([1-9]|[12][0-9]|30)$',
              description: `How many UTC days, today included: 1 to ${MAX_ACTIVITY_DAYS}, ${MAX_ACTIVITY_DAYS} by default`,
            }),
          ),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            client_id: Type.String(),
            days: Type.Array(Day, { description: 'Oldest first; every day present, zeros included' }),
            budget: Type.Object({
              daily_gas: Type.Integer({ description: "The app's daily sponsored-gas budget" }),
            }),
            content: Type.Array(
              Type.Object({
                cuid: Type.String(),
                bought: Units('Units bought over the days'),
                consumed: Units('Units consumed over the days'),
              }),
              { description: 'Every cuid registered to the app, and any other it sold or consumed' },
            ),
          }),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
      preHandler: requireLoginOrClient(services.authenticator),
      config: { rateLimit: routeLimit(services.config.rateLimits, 'app_activity') },
    },
    async (request, reply) => {
      const report = await appActivity.report(
        await managementActor(request, services),
        request.params.id,
        Number(request.query.days ?? MAX_ACTIVITY_DAYS),
      );
      void reply.header('cache-control', 'no-store');
      return {
        success: true,
        client_id: report.clientId,
        days: report.days.map((d) => ({
          date: d.date,
          sign_ins: d.signIns,
          active_players: d.activePlayers,
          sponsored_gas: d.sponsoredGas,
          sponsored_operations: d.sponsoredOperations,
          purchases: d.purchases,
          purchased_tokens: d.purchasedTokens,
          consumptions: d.consumptions,
          consumed_tokens: d.consumedTokens,
          market_sales: d.marketSales,
          market_volume_wei: d.marketVolumeWei,
        })),
        budget: { daily_gas: report.dailyGasBudget },
        content: report.content,
      };
    },
  );
}
