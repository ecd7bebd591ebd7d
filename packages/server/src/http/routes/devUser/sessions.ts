import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import type { AccountSession } from '../../../services/accountSessions/accountSessionsService.js';
import { authOf, bearerSecurity, requireFirstParty, requireToken } from '../../auth.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';

const Time = Type.String({ description: 'ISO 8601 UTC' });
const OptionalTime = Type.Union([Time, Type.Null()]);

const Session = Type.Object({
  id: Type.String({ description: 'Give it to DELETE /v1/dev-user/sessions/{id}' }),
  kind: Type.Union([Type.Literal('browser'), Type.Literal('app')], {
    description: "browser: a session of the service's login page; app: an app's grant (its refresh tokens)",
  }),
  app: Type.Union([Type.Object({ client_id: Type.String(), name: Type.String() }), Type.Null()]),
  created_at: Time,
  last_seen_at: Time,
  expires_at: OptionalTime,
  device: Type.Union([Type.String(), Type.Null()], { description: 'A short name of the user agent' }),
  user_agent: Type.Union([Type.String(), Type.Null()], { description: 'At most 200 characters' }),
  network: Type.Union([Type.String(), Type.Null()], {
    description: 'The /24 (IPv4) or /48 (IPv6) it was opened from',
  }),
});

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

const shape = (s: AccountSession) => ({
  id: s.id,
  kind: s.kind,
  app: s.app ? { client_id: s.app.clientId, name: s.app.name } : null,
  created_at: new Date(s.createdAt).toISOString(),
  last_seen_at: new Date(s.lastSeenAt).toISOString(),
  expires_at: iso(s.expiresAt),
  device: s.device ?? null,
  user_agent: s.userAgent ?? null,
  network: s.network ?? null,
});

/**
 * The account's Security page (decisions §9, docs/account.md "Sessions"): where it is signed in (the
 * login page's browser sessions and the apps' grants), each revocable, and its ways in with their last use.
 * Sessions show devices and networks and end them: first-party only (a fresh console login JWT).
 */
export async function sessionRoutes(app: App, services: Services): Promise<void> {
  const { accountSessions } = services;
  const firstParty = requireFirstParty(services.authenticator, services.config.stepUpMaxAgeSeconds);

  app.get(
    '/v1/dev-user/sessions',
    {
      schema: {
        tags: ['accounts'],
        summary:
          "Where you are signed in: the login page's browser sessions and the apps' grants, with device, network and last use. First-party only",
        security: bearerSecurity,
        response: {
          200: Type.Object({ success: Type.Boolean(), sessions: Type.Array(Session) }),
          ...errorResponses(401, 403),
        },
      },
      preHandler: firstParty,
    },
    async (request, reply) => {
      const sessions = await accountSessions.list(Number(authOf(request).userId));
      void reply.header('cache-control', 'no-store');
      return { success: true, sessions: sessions.map(shape) };
    },
  );

  app.delete(
    '/v1/dev-user/sessions/:id',
    {
      schema: {
        tags: ['accounts'],
        summary:
          "Ends one session: a browser session is signed out; an app's grant is revoked (its access and refresh tokens refused on every replica). First-party only",
        security: bearerSecurity,
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: {
          200: Type.Object({ success: Type.Boolean(), kind: Type.String() }),
          ...errorResponses(401, 403, 404),
        },
      },
      preHandler: firstParty,
    },
    async (request) => {
      const kind = await accountSessions.end(Number(authOf(request).userId), request.params.id);
      return { success: true, kind };
    },
  );

  app.get(
    '/v1/dev-user/ways-in',
    {
      schema: {
        tags: ['accounts'],
        summary:
          'Your ways in with their last use: the password, passkeys, linked identities, and whether TOTP is on',
        security: bearerSecurity,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            password: Type.Object({ set: Type.Boolean(), last_used_at: OptionalTime }),
            passkeys: Type.Array(
              Type.Object({
                id: Type.String(),
                created_at: Time,
                last_used_at: OptionalTime,
                backed_up: Type.Boolean(),
              }),
            ),
            identities: Type.Array(
              Type.Object({
                id: Type.String(),
                provider: Type.String(),
                provider_name: Type.String(),
                created_at: Time,
                last_used_at: OptionalTime,
              }),
            ),
            totp: Type.Object({ enabled: Type.Boolean(), recovery_codes_left: Type.Integer() }),
          }),
          ...errorResponses(401),
        },
      },
      preHandler: requireToken(services.authenticator, 'login'),
    },
    async (request, reply) => {
      const w = await accountSessions.waysIn(Number(authOf(request).userId));
      void reply.header('cache-control', 'no-store');
      return {
        success: true,
        password: { set: w.password.set, last_used_at: iso(w.password.lastUsedAt) },
        passkeys: w.passkeys.map((p) => ({
          id: p.id,
          created_at: new Date(p.createdAt).toISOString(),
          last_used_at: iso(p.lastUsedAt),
          backed_up: p.backedUp,
        })),
        identities: w.identities.map((i) => ({
          id: i.id,
          provider: i.provider,
          provider_name: i.providerName,
          created_at: new Date(i.createdAt).toISOString(),
          last_used_at: iso(i.lastUsedAt),
        })),
        totp: { enabled: w.totp.enabled, recovery_codes_left: w.totp.recoveryCodesLeft },
      };
    },
  );
}
