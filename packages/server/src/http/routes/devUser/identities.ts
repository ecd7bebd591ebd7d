import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import type { IdentityRecord } from '../../../services/federation/federationService.js';
import { authOf, bearerSecurity, requireFirstParty, requireToken } from '../../auth.js';
import { perUser } from '../../rateLimits.js';
import { ErrorBody, errorResponses } from '../../schemas.js';
import { invalidField } from '../../../errors.js';
import { PlatformCredentialSchema } from './platformLogin.js';
import type { App } from '../../types.js';
import { requestContextOf } from '../../requestContext.js';
import { FEDERATION_COOKIE_PATH, LINK_COOKIE } from '../federation/index.js';
import { LINK_TICKET_TTL_MS } from '../../../services/federation/federationService.js';

const Identity = Type.Object({
  id: Type.String(),
  provider: Type.String({
    description: 'The provider id of IDENTITY_PROVIDERS (`steam` for every Steam identity, web or in-game)',
  }),
  provider_name: Type.String({
    description: 'The platform or provider name (Steam, Epic Games, Game Center, …)',
  }),
  subject: Type.String({ description: "The upstream account's stable id (OpenID `sub`, Steam's steamid64)" }),
  email: Type.Union([Type.String(), Type.Null()], {
    description: 'As the upstream gave it (never used to link)',
  }),
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
});

const ProviderBody = Type.Object({ provider: Type.String({ minLength: 1, maxLength: 64 }) });

/**
 * The signed-in user's linked identities (decisions §8, docs/federation.md "Accounts and linking"): list,
 * link by an upstream id_token or by a redirect through the provider, unlink (never the last way in).
 * Linking an identity another account holds is 409 `identity_in_use`; a guest who links upgrades.
 */
export async function identityRoutes(app: App, services: Services): Promise<void> {
  const { federation } = services;
  const limits = services.config.rateLimits;
  const maxAge = services.config.stepUpMaxAgeSeconds;
  /** A new identity: the console's fresh JWT, or a guest's own (its upgrade); decisions §9 "Ways in". */
  const firstPartyOrGuest = requireFirstParty(services.authenticator, maxAge, services.guests);
  const shape = (i: IdentityRecord) => ({
    id: i.id,
    provider: i.provider,
    provider_name: federation.providerName(i.provider),
    subject: i.subject,
    email: i.email,
    created_at: new Date(i.createdAt).toISOString(),
  });

  app.get(
    '/v1/dev-user/identities',
    {
      schema: {
        tags: ['accounts'],
        summary: "The signed-in user's linked identities (Google, Apple, Discord, Steam, …)",
        security: bearerSecurity,
        response: { 200: Type.Object({ identities: Type.Array(Identity) }), ...errorResponses(401) },
      },
      preHandler: requireToken(services.authenticator, 'login'),
    },
    async (request) => ({
      identities: (await federation.listIdentities(Number(authOf(request).userId))).map(shape),
    }),
  );

  app.post(
    '/v1/dev-user/identities',
    {
      schema: {
        tags: ['accounts'],
        summary:
          "Links the upstream identity of an id_token, or of a platform credential (a platform kind: the credential of platform-login), to the signed-in user (a guest upgrades: same uuid and wallet); 409 identity_in_use when another account has it; each id_token is accepted once (401 id_token_replayed, shared with federated-login); a refused credential is 401 platform_rejected. First-party only: a fresh console login (STEP_UP_MAX_AGE), or a guest's own token for its upgrade",
        security: bearerSecurity,
        body: Type.Object({
          provider: Type.String({ minLength: 1, maxLength: 64 }),
          id_token: Type.Optional(Type.String({ minLength: 1, maxLength: 16_000 })),
          credential: Type.Optional(PlatformCredentialSchema),
        }),
        response: {
          201: Identity,
          ...errorResponses(400, 403, 404, 409, 429, 503),
          401: Type.Object(ErrorBody.properties, {
            additionalProperties: true,
            description:
              'reauthentication_required, invalid_id_token, id_token_replayed (this id_token was used before, here or at federated-login), or platform_rejected',
          }),
        },
      },
      preHandler: firstPartyOrGuest,
      config: perUser(limits, 'identities_manage'),
    },
    async (request, reply) => {
      const { provider, id_token: idToken, credential } = request.body;
      if ((idToken === undefined) === (credential === undefined))
        throw invalidField(
          'id_token',
          'Send either id_token (an OpenID provider) or credential (a platform kind)',
        );
      const userUuid = Number(authOf(request).userId);
      const identity =
        credential !== undefined
          ? await federation.linkPlatform(userUuid, provider, credential)
          : await federation.linkIdToken(userUuid, provider, idToken!);
      services.security.notify(
        identity.userUuid,
        { kind: 'identity_linked', provider: identity.provider, identityId: identity.id },
        requestContextOf(request),
      );
      return reply.status(201).send(shape(identity));
    },
  );

  app.post(
    '/v1/dev-user/identities/link',
    {
      schema: {
        tags: ['accounts'],
        summary:
          'A start URL (one use, 5 minutes) whose sign-in at the provider links that identity to the signed-in user, then returns to /console#identity_linked=<provider>. Sets an HttpOnly link cookie: the URL works only in this browser (elsewhere 400 link_browser_mismatch, nothing linked). First-party only, as linking by id_token',
        security: bearerSecurity,
        body: ProviderBody,
        response: { 200: Type.Object({ url: Type.String() }), ...errorResponses(400, 401, 403, 404, 429) },
      },
      preHandler: firstPartyOrGuest,
      config: perUser(limits, 'identities_manage'),
    },
    async (request, reply) => {
      void reply.header('cache-control', 'no-store');
      const { url, binder } = await federation.linkUrl(Number(authOf(request).userId), request.body.provider);
      // The asking browser's binding (decisions §9): the console's same-origin fetch keeps it.
      void reply.setCookie(LINK_COOKIE, binder, {
        httpOnly: true,
        sameSite: 'lax',
        secure: services.config.publicUrl.startsWith('https:'),
        path: FEDERATION_COOKIE_PATH,
        maxAge: LINK_TICKET_TTL_MS / 1000,
      });
      return { url };
    },
  );

  app.delete(
    '/v1/dev-user/identities/:id',
    {
      schema: {
        tags: ['accounts'],
        summary:
          'Unlinks one of your identities; 409 last_sign_in_method when it is the only way in (no password, passkey or other identity). First-party only: a fresh console login',
        security: bearerSecurity,
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 40 }) }),
        response: {
          200: Type.Object({ success: Type.Boolean() }),
          ...errorResponses(401, 403, 404, 409, 429),
        },
      },
      preHandler: requireFirstParty(services.authenticator, maxAge),
      config: perUser(limits, 'identities_manage'),
    },
    async (request) => {
      await federation.unlink(Number(authOf(request).userId), request.params.id);
      services.security.notify(
        Number(authOf(request).userId),
        { kind: 'identity_unlinked', identityId: request.params.id },
        requestContextOf(request),
      );
      return { success: true };
    },
  );
}
