import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { routeLimit } from '../../rateLimits.js';
import { requestLocale } from '../../requestLocale.js';
import { ErrorBody, errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { FederatedSignIn, signInBody } from './accountSchemas.js';

/**
 * A platform credential, by kind (decisions §9): `{ticket}` (hex) for `steam_ticket`, `{id_token}` for
 * `epic`, `{public_key_url, signature, salt, timestamp, team_player_id, bundle_id}` for `game_center`,
 * `{server_auth_code}` for `google_play_games`. Each kind checks its own fields.
 */
export const PlatformCredentialSchema = Type.Record(
  Type.String({ maxLength: 64 }),
  Type.Union([Type.String({ maxLength: 16_000 }), Type.Integer({ minimum: 0 })]),
  {
    maxProperties: 12,
    description:
      'steam_ticket: {ticket} (hex, GetAuthTicketForWebApi); epic: {id_token} (EOS Connect); game_center: {public_key_url, signature, salt, timestamp, team_player_id, bundle_id}; google_play_games: {server_auth_code}',
  },
);

/**
 * `POST /v1/dev-user/platform-login` (decisions §9, docs/federation.md "Platform sign-in"): a game's
 * platform credential (a Steam ticket, an EOS ID token, a Game Center signature, a Play Games server auth
 * code) for a login JWT bound to `client_id`. The platform refusing it → 401 `platform_rejected`; a
 * banned Steam account → 403 `platform_banned`. Its identity signs in, or creates the account
 * (`created: true`), or meets an account that already has the e-mail (409
 * `account_exists_link_required`); an account with TOTP answers `mfa_required`.
 */
export async function platformLoginRoutes(app: App, services: Services): Promise<void> {
  const { federation } = services;

  app.post(
    '/v1/dev-user/platform-login',
    {
      schema: {
        tags: ['accounts'],
        summary:
          'Signs in with a platform credential from inside the game (Steam ticket, EOS ID token, Game Center signature, Play Games server auth code); the login JWT is bound to client_id. 401 platform_rejected, 403 platform_banned',
        body: Type.Object({
          provider: Type.String({ minLength: 1, maxLength: 64 }),
          client_id: Type.String({ minLength: 1, maxLength: 200 }),
          credential: PlatformCredentialSchema,
        }),
        response: {
          200: FederatedSignIn,
          ...errorResponses(400, 404, 409, 429, 503),
          401: Type.Object(ErrorBody.properties, {
            additionalProperties: true,
            description: 'platform_rejected: the platform refused the credential (or it was used before)',
          }),
          403: Type.Object(ErrorBody.properties, {
            additionalProperties: true,
            description: 'platform_banned: the platform bans this account (Steam publisher or VAC ban)',
          }),
        },
      },
      config: { rateLimit: routeLimit(services.config.rateLimits, 'platform_login') },
    },
    async (request, reply) => {
      void reply.header('cache-control', 'no-store');
      const signIn = await federation.platformLogin({
        providerId: request.body.provider,
        credential: request.body.credential,
        clientId: request.body.client_id,
        locale: requestLocale(request),
      });
      if (!signIn.mfaRequired) request.auditUser = signIn.uuid;
      return signInBody(signIn, { created: signIn.created });
    },
  );
}
