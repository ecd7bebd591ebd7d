import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { authOf, bearerSecurity, requireFreshLogin, requireToken } from '../../auth.js';
import { routeLimit } from '../../rateLimits.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';

const Gas = (description: string) =>
  Type.Optional(
    Type.Union([Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), Type.Null()], {
      description: `${description}; null or absent: no app cap (the platform's caps still apply)`,
    }),
  );
const NullableInt = Type.Union([Type.Integer(), Type.Null()]);

/** The app's policy as PUT (decisions §9 "Launch-day defenses"). */
export const AppSponsorshipBody = Type.Object({
  daily_gas_per_player: Gas('Most gas sponsored per player of this app and UTC day (sum of gas limits)'),
  daily_gas_per_guest: Gas(
    'The same for a player whose account is still a guest (absent: guests have the per-player budget)',
  ),
  daily_gas_app: Gas('Most gas sponsored for all of this app’s players together per UTC day'),
  ops_per_player_per_minute: Type.Optional(
    Type.Union([Type.Integer({ minimum: 0, maximum: 1_000_000 }), Type.Null()], {
      description: 'Most sponsored operations per player and UTC minute; null or absent: no limit',
    }),
  ),
  approval_url: Type.Optional(
    Type.Union([Type.String({ minLength: 1, maxLength: 2048 }), Type.Null()], {
      description:
        'Approval hook: POSTed {user_id, client_id, calls, gas} signed as Standard Webhooks before each sponsorship; only a 2xx {"approve": true} within 2 s approves',
    }),
  ),
  approval_fail_open: Type.Optional(
    Type.Boolean({ description: 'Whether a timeout or an error of the hook approves (default false)' }),
  ),
});

const Spent = Type.Object({ gas: Type.Integer(), operations: Type.Integer() });
const Policy = Type.Object({
  success: Type.Boolean(),
  client_id: Type.String(),
  daily_gas_per_player: NullableInt,
  daily_gas_per_guest: NullableInt,
  daily_gas_app: NullableInt,
  ops_per_player_per_minute: NullableInt,
  approval_url: Type.Union([Type.String(), Type.Null()]),
  approval_fail_open: Type.Boolean(),
  platform_daily_gas_app: Type.Integer({ description: 'The platform’s own cap per app and day' }),
  updated_at: Type.Union([Type.String({ description: 'ISO 8601 UTC' }), Type.Null()]),
  approval_secret: Type.Optional(
    Type.String({ description: 'whsec_…: shown once, when approval_url was set or changed' }),
  ),
  today: Type.Object({
    day: Type.String({ description: 'YYYY-MM-DD (UTC)' }),
    gas: Type.Integer({ description: 'Gas sponsored for the app today (gas limits)' }),
    operations: Type.Integer(),
    refused: Type.Integer({ description: 'Operations the app’s own budgets refused today' }),
    hours: Type.Array(Type.Object({ hour: Type.String({ description: 'HH (UTC)' }), ...Spent.properties })),
    top_players: Type.Array(Type.Object({ user_id: Type.String(), ...Spent.properties })),
  }),
});
const Params = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

/** `/v1/dev-user/clients/{id}/sponsorship`: the app's own sponsorship policy and today's use (docs/sponsorship.md). */
export async function appSponsorshipRoutes(app: App, services: Services): Promise<void> {
  const { appSponsorship } = services;
  const limit = { rateLimit: routeLimit(services.config.rateLimits, 'app_sponsorship') };
  const owner = (request: Parameters<typeof authOf>[0]) => Number(authOf(request).userId);

  app.put(
    '/v1/dev-user/clients/:id/sponsorship',
    {
      schema: {
        tags: ['sponsorship'],
        summary:
          'Set your app’s sponsorship policy: daily gas per player, per guest and for the app, operations per player and minute, an optional approval hook. Needs a fresh login (STEP_UP_MAX_AGE)',
        security: bearerSecurity,
        params: Params,
        body: AppSponsorshipBody,
        response: { 200: Policy, ...errorResponses(400, 401, 404, 429) },
      },
      preHandler: requireFreshLogin(services.authenticator, services.config.stepUpMaxAgeSeconds),
      config: limit,
    },
    async (request) => {
      const { policy, approvalSecret } = await appSponsorship.put(
        owner(request),
        request.params.id,
        request.body,
      );
      return {
        success: true,
        ...policy,
        ...(approvalSecret !== undefined ? { approval_secret: approvalSecret } : {}),
      };
    },
  );

  app.get(
    '/v1/dev-user/clients/:id/sponsorship',
    {
      schema: {
        tags: ['sponsorship'],
        summary: 'Your app’s sponsorship policy with today’s use: gas by hour and the top spenders',
        security: bearerSecurity,
        params: Params,
        response: { 200: Policy, ...errorResponses(401, 404, 429) },
      },
      preHandler: requireToken(services.authenticator, 'login'),
      config: limit,
    },
    async (request) => ({ success: true, ...(await appSponsorship.get(owner(request), request.params.id)) }),
  );
}
