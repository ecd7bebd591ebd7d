import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { invalidField } from '../../../errors.js';
import type { DirectoryPlayer } from '../../../services/players/playerDirectoryService.js';
import type { AppAction } from '../../../services/orgs/roles.js';
import type { ManagementScope } from '../../../services/serviceAccounts/scopes.js';
import { clientNotFound } from '../../../services/orgs/appAccess.js';
import { bearerSecurity, requireLoginOrClient } from '../../auth.js';
import { routeLimit } from '../../rateLimits.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { managementActor } from '../../managementActor.js';

const AppParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 40 }),
  client_id: Type.String({ minLength: 1, maxLength: 64 }),
});
const PlayerParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 40 }),
  client_id: Type.String({ minLength: 1, maxLength: 64 }),
  user_id: Type.String({ pattern: '^[0-9]{1,16}$' }),
});

const iso = Type.String({ description: 'ISO 8601 UTC' });
const Player = Type.Object({
  user_id: Type.String(),
  created_at: iso,
  last_seen_at: iso,
  guest: Type.Boolean(),
  wallet_address: Type.Union([Type.String(), Type.Null()]),
  email: Type.Optional(Type.String({ description: 'Only where a grant of the player has the email scope' })),
});

const playerView = (p: DirectoryPlayer) => ({
  user_id: p.userId,
  created_at: new Date(p.createdAt).toISOString(),
  last_seen_at: new Date(p.lastSeenAt).toISOString(),
  guest: p.guest,
  wallet_address: p.walletAddress,
  ...(p.email !== undefined ? { email: p.email } : {}),
});

const READ: [AppAction, ManagementScope] = ['read', 'players:read'];
const WRITE: [AppAction, ManagementScope] = ['configure', 'players:write'];

/**
 * The players directory and pre-generated players of an org's app (decisions §9, docs/players.md). A
 * member by role (`viewer` reads, `developer` revokes and pre-generates) or the org's service account by
 * scope (`players:read`, `players:write`).
 */
export async function playerRoutes(app: App, services: Services): Promise<void> {
  const { playerDirectory, pregeneration, appAccess } = services;
  const guard = requireLoginOrClient(services.authenticator);
  /** The org's app, for a member by role or the org's service account by scope (AppAccess); another org's → 404. */
  const requireApp = async (
    request: Parameters<typeof managementActor>[0],
    orgId: string,
    clientId: string,
    [action, scope]: [AppAction, ManagementScope],
  ) => {
    const app = await appAccess.require(clientId, await managementActor(request, services), action, scope);
    if (app.orgId !== orgId) throw clientNotFound();
  };

  app.get(
    '/v1/orgs/:id/apps/:client_id/players',
    {
      schema: {
        tags: ['orgs'],
        summary:
          'The players who granted the app, in a stable order, by opaque cursor; q finds one by user_id, wallet address or e-mail (where the player let the app see it)',
        security: bearerSecurity,
        params: AppParams,
        querystring: Type.Object({
          limit: Type.Optional(
            Type.String({ pattern: '^[1-9][0-9]{0,2}$', description: '1–200, default 50' }),
          ),
          cursor: Type.Optional(Type.String({ maxLength: 100 })),
          q: Type.Optional(Type.String({ maxLength: 320 })),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            players: Type.Array(Player),
            next_cursor: Type.Union([Type.String(), Type.Null()]),
          }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
      preHandler: guard,
    },
    async (request) => {
      const { id, client_id: clientId } = request.params;
      await requireApp(request, id, clientId, READ);
      const { limit, cursor, q } = request.query;
      const { players, nextCursor } = await playerDirectory.list(clientId, {
        limit: limit === undefined ? undefined : Number(limit),
        cursor,
        q,
      });
      return { success: true, players: players.map(playerView), next_cursor: nextCursor ?? null };
    },
  );

  app.get(
    '/v1/orgs/:id/apps/:client_id/players/:user_id',
    {
      schema: {
        tags: ['orgs'],
        summary:
          "A player of the app: the directory's fields with their slots, purchases, consumption totals and session keys",
        security: bearerSecurity,
        params: PlayerParams,
        response: {
          200: Type.Intersect([
            Type.Object({ success: Type.Boolean() }),
            Player,
            Type.Object({
              slots: Type.Array(
                Type.Object({
                  slot_id: Type.String(),
                  content_address: Type.String(),
                  token_nickname: Type.String(),
                  meta_idx: Type.Integer(),
                  state: Type.String(),
                  created_at: iso,
                }),
              ),
              purchases: Type.Array(Type.Object({ at: iso, cuid: Type.String(), amount: Type.String() })),
              consumption: Type.Array(
                Type.Object({ cuid: Type.String(), records: Type.Integer(), amount: Type.String() }),
              ),
              session_keys: Type.Array(
                Type.Object({
                  key_address: Type.String(),
                  account_address: Type.String(),
                  valid_until: iso,
                  state: Type.String(),
                  created_at: iso,
                }),
              ),
            }),
          ]),
          ...errorResponses(401, 403, 404),
        },
      },
      preHandler: guard,
    },
    async (request) => {
      const { id, client_id: clientId, user_id: userId } = request.params;
      await requireApp(request, id, clientId, READ);
      const p = await playerDirectory.detail(clientId, Number(userId));
      return {
        success: true,
        ...playerView(p),
        slots: p.slots.map((s) => ({
          slot_id: s.id,
          content_address: s.contentAddress,
          token_nickname: s.tokenNickname,
          meta_idx: s.metaIdx,
          state: s.state,
          created_at: new Date(s.createdAt).toISOString(),
        })),
        purchases: p.purchases.map((x) => ({
          at: new Date(x.at).toISOString(),
          cuid: x.cuid,
          amount: x.amount,
        })),
        consumption: p.consumption,
        session_keys: p.sessionKeys.map((k) => ({
          key_address: k.keyAddress,
          account_address: k.accountAddress,
          valid_until: new Date(k.validUntil * 1000).toISOString(),
          state: k.state,
          created_at: new Date(k.createdAt).toISOString(),
        })),
      };
    },
  );

  app.post(
    '/v1/orgs/:id/apps/:client_id/players/:user_id/revoke',
    {
      schema: {
        tags: ['orgs'],
        summary:
          "End the player's grant for the app (developer): consent withdrawn, every token revoked on every replica, grant.revoked webhooks",
        security: bearerSecurity,
        params: PlayerParams,
        response: {
          200: Type.Object({ success: Type.Boolean(), revoked_grants: Type.Integer() }),
          ...errorResponses(401, 403, 404, 503),
        },
      },
      preHandler: guard,
    },
    async (request) => {
      const { id, client_id: clientId, user_id: userId } = request.params;
      await requireApp(request, id, clientId, WRITE);
      const { revokedGrants } = await playerDirectory.revoke(clientId, Number(userId));
      return { success: true, revoked_grants: revokedGrants };
    },
  );

  app.post(
    '/v1/orgs/:id/apps/:client_id/players/pregenerate',
    {
      schema: {
        tags: ['orgs'],
        summary:
          'A player made before their first sign-in, by e-mail or platform identity (developer): user_id and the counterfactual wallet address (no gas). The same e-mail or identity again answers the same player (200)',
        security: bearerSecurity,
        params: AppParams,
        body: Type.Object({
          email: Type.Optional(Type.String({ maxLength: 320 })),
          platform: Type.Optional(
            Type.Object({
              provider: Type.String({ minLength: 1, maxLength: 64 }),
              subject: Type.String({ minLength: 1, maxLength: 255 }),
            }),
          ),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            user_id: Type.String(),
            wallet_address: Type.String(),
          }),
          201: Type.Object({
            success: Type.Boolean(),
            user_id: Type.String(),
            wallet_address: Type.String(),
          }),
          ...errorResponses(400, 401, 403, 404, 409, 429),
        },
      },
      preHandler: guard,
      config: { rateLimit: routeLimit(services.config.rateLimits, 'players_pregenerate') },
    },
    async (request, reply) => {
      const { id, client_id: clientId } = request.params;
      await requireApp(request, id, clientId, WRITE);
      const { email, platform } = request.body;
      if ((email === undefined) === (platform === undefined)) {
        throw invalidField('email', 'Give either email or platform {provider, subject}');
      }
      const made = await pregeneration.pregenerate({ orgId: id, clientId, email, platform });
      return reply.status(made.created ? 201 : 200).send({
        success: true,
        user_id: String(made.userUuid),
        wallet_address: made.walletAddress,
      });
    },
  );
}
