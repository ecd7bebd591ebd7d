import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { authOf, bearerSecurity, requireFirstParty, requireToken } from '../../auth.js';
import { perUser, routeLimit } from '../../rateLimits.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { requestContextOf } from '../../requestContext.js';
import { SignInAnswer, signInBody } from './accountSchemas.js';
import { AuthenticationResponse, PublicKeyOptions, RegistrationResponse } from './passkeySchemas.js';

const Passkey = Type.Object({
  id: Type.String({ description: 'The credential id (base64url)' }),
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
  last_used_at: Type.Union([Type.String(), Type.Null()]),
  backed_up: Type.Boolean({ description: 'A synced (multi-device) passkey' }),
});

/** Passkeys (decisions §8, docs/players.md): registration, discoverable sign-in, list and delete. */
export async function passkeyRoutes(app: App, services: Services): Promise<void> {
  const { passkeys } = services;
  const limits = services.config.rateLimits;
  const maxAge = services.config.stepUpMaxAgeSeconds;
  /** A new passkey: the console's fresh JWT, or a guest's own (its upgrade); decisions §9 "Ways in". */
  const firstPartyOrGuest = requireFirstParty(services.authenticator, maxAge, services.guests);

  app.post(
    '/v1/dev-user/passkeys/registration-options',
    {
      schema: {
        tags: ['accounts'],
        summary:
          "PublicKeyCredentialCreationOptionsJSON for a new passkey of the signed-in user; the challenge is single-use for 5 minutes. First-party only: a fresh console login (STEP_UP_MAX_AGE), or a guest's own token for its upgrade",
        security: bearerSecurity,
        response: { 200: PublicKeyOptions, ...errorResponses(401, 403, 429) },
      },
      preHandler: firstPartyOrGuest,
      config: perUser(limits, 'passkey_register'),
    },
    async (request, reply) => {
      void reply.header('cache-control', 'no-store');
      return passkeys.registrationOptions(Number(authOf(request).userId));
    },
  );

  app.post(
    '/v1/dev-user/passkeys',
    {
      schema: {
        tags: ['accounts'],
        summary:
          'Registers a passkey from the RegistrationResponseJSON answering registration-options. First-party only, as registration-options',
        security: bearerSecurity,
        body: RegistrationResponse,
        response: {
          201: Type.Object({ id: Type.String(), created_at: Type.String({ description: 'ISO 8601 UTC' }) }),
          ...errorResponses(400, 401, 403, 409, 429),
        },
      },
      preHandler: firstPartyOrGuest,
      config: perUser(limits, 'passkey_register'),
    },
    async (request, reply) => {
      const userUuid = Number(authOf(request).userId);
      // A guest's first passkey is its upgrade (decisions §9): after it, the game's token adds nothing more.
      const upgradeGuest = await services.guests.isGuest(userUuid);
      const passkey = await passkeys.register(userUuid, request.body as RegistrationResponseJSON, {
        upgradeGuest,
      });
      services.security.notify(
        passkey.userUuid,
        upgradeGuest ? { kind: 'guest_upgraded' } : { kind: 'passkey_added', passkeyId: passkey.id },
        requestContextOf(request),
      );
      return reply
        .status(201)
        .send({ id: passkey.id, created_at: new Date(passkey.createdAt).toISOString() });
    },
  );

  app.get(
    '/v1/dev-user/passkeys',
    {
      schema: {
        tags: ['accounts'],
        summary: "The signed-in user's passkeys",
        security: bearerSecurity,
        response: {
          200: Type.Object({ success: Type.Boolean(), passkeys: Type.Array(Passkey) }),
          ...errorResponses(401),
        },
      },
      preHandler: requireToken(services.authenticator, 'login'),
    },
    async (request) => {
      const list = await passkeys.list(Number(authOf(request).userId));
      return {
        success: true,
        passkeys: list.map((p) => ({
          id: p.id,
          created_at: new Date(p.createdAt).toISOString(),
          last_used_at: p.lastUsedAt === undefined ? null : new Date(p.lastUsedAt).toISOString(),
          backed_up: p.backedUp,
        })),
      };
    },
  );

  app.delete(
    '/v1/dev-user/passkeys/:id',
    {
      schema: {
        tags: ['accounts'],
        summary:
          'Deletes one of your passkeys (not the only way into an account without password). First-party only: a fresh console login',
        security: bearerSecurity,
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 1400 }) }),
        response: {
          200: Type.Object({ success: Type.Boolean() }),
          ...errorResponses(401, 403, 404, 409, 429),
        },
      },
      preHandler: requireFirstParty(services.authenticator, maxAge),
      config: perUser(limits, 'passkey_register'),
    },
    async (request) => {
      await passkeys.remove(Number(authOf(request).userId), request.params.id);
      services.security.notify(
        Number(authOf(request).userId),
        { kind: 'passkey_removed', passkeyId: request.params.id },
        requestContextOf(request),
      );
      return { success: true };
    },
  );

  app.post(
    '/v1/dev-user/passkeys/authentication-options',
    {
      schema: {
        tags: ['accounts'],
        summary:
          'PublicKeyCredentialRequestOptionsJSON for a discoverable-credential sign-in; the challenge is single-use for 5 minutes',
        response: { 200: PublicKeyOptions, ...errorResponses(429) },
      },
      config: { rateLimit: routeLimit(limits, 'passkey_options') },
    },
    async (_request, reply) => {
      void reply.header('cache-control', 'no-store');
      return passkeys.authenticationOptions();
    },
  );

  app.post(
    '/v1/dev-user/passkeys/login',
    {
      schema: {
        tags: ['accounts'],
        summary:
          'Signs in with a passkey (the AuthenticationResponseJSON); with client_id the login JWT is bound to that app',
        body: Type.Intersect([
          AuthenticationResponse,
          Type.Object({ client_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) }),
        ]),
        response: {
          200: SignInAnswer,
          ...errorResponses(400, 401, 429),
        },
      },
      config: { rateLimit: routeLimit(limits, 'passkey_login') },
    },
    async (request) => {
      const { client_id: clientId, ...response } = request.body;
      // Without user verification the passkey is one factor: an account with TOTP gets its mfa_token.
      return signInBody(await passkeys.login(response as AuthenticationResponseJSON, clientId));
    },
  );
}
