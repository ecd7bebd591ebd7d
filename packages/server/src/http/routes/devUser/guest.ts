import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { authOf, bearerSecurity, requireToken } from '../../auth.js';
import { createLimiter, perUser, routeLimit } from '../../rateLimits.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { requestContextOf } from '../../requestContext.js';
import { AltchaField } from '../../defense.js';
import { requestLocale } from '../../requestLocale.js';
import { RegistrationResponse } from './passkeySchemas.js';

const Session = Type.Object({ success: Type.Boolean(), token: Type.String(), uuid: Type.String() });

/**
 * Guest accounts (decisions §8, docs/players.md): `POST /v1/dev-user/guest`, `/guest/login` and
 * `/guest/upgrade`. A wrong guest secret counts like a wrong password: per address and uuid, and per
 * address across uuids.
 */
export async function guestRoutes(app: App, services: Services): Promise<void> {
  const { guests, passkeys } = services;
  const limits = services.config.rateLimits;
  const perGuest = createLimiter(app, limits, 'guest_login', (request) => {
    const uuid = (request.body as { uuid?: unknown } | undefined)?.uuid;
    return `guest_login:${request.ip}:${typeof uuid === 'string' ? uuid : ''}`;
  });
  const perAddress = createLimiter(app, limits, 'guest_login_address');

  app.post(
    '/v1/dev-user/guest',
    {
      schema: {
        tags: ['accounts'],
        summary:
          'A guest account for a player of an app: a login JWT bound to it and the secret the game keeps',
        body: Type.Object({ client_id: Type.String({ minLength: 1, maxLength: 200 }), altcha: AltchaField }),
        response: {
          201: Type.Object({
            success: Type.Boolean(),
            token: Type.String(),
            uuid: Type.String(),
            guest_secret: Type.String({ description: 'Shown once; the game stores it on the device' }),
          }),
          ...errorResponses(400, 429),
        },
      },
      config: { rateLimit: routeLimit(limits, 'guest_create') },
    },
    async (request, reply) => {
      // `BOT_CHALLENGE` with `guest`: a solved challenge first (docs/security.md "Bot challenge").
      await services.botChallenge.require('guest', request.body.altcha);
      const guest = await guests.create(request.body.client_id, requestLocale(request));
      void reply.header('cache-control', 'no-store');
      return reply
        .status(201)
        .send({ success: true, token: guest.token, uuid: guest.uuid, guest_secret: guest.guestSecret });
    },
  );

  app.post(
    '/v1/dev-user/guest/login',
    {
      schema: {
        tags: ['accounts'],
        summary: "A guest's sign-in with its secret: a login JWT bound to the guest's app",
        body: Type.Object({
          uuid: Type.String({ minLength: 1, maxLength: 20 }),
          guest_secret: Type.String({ minLength: 1, maxLength: 200 }),
        }),
        response: { 200: Session, ...errorResponses(400, 401, 429) },
      },
      preHandler: async (request) => {
        await perGuest(request);
        await perAddress(request);
      },
    },
    async (request) => {
      const { token, uuid } = await guests.login(request.body.uuid, request.body.guest_secret);
      return { success: true, token, uuid };
    },
  );

  app.post(
    '/v1/dev-user/guest/upgrade',
    {
      schema: {
        tags: ['accounts'],
        summary:
          'Turns the guest into a full account (same uuid, wallet and slots) with e-mail and password, or with a passkey (a registration response to registration-options); the guest secret stops working',
        security: bearerSecurity,
        body: Type.Union([
          Type.Object({
            email: Type.String({ minLength: 3, maxLength: 320 }),
            password: Type.String({ minLength: 1, maxLength: 1024 }),
            nickname: Type.Optional(Type.String({ maxLength: 100 })),
          }),
          Type.Object({ passkey: RegistrationResponse }),
        ]),
        response: {
          200: Type.Object({ success: Type.Boolean(), uuid: Type.String() }),
          ...errorResponses(400, 401, 409, 429),
        },
      },
      preHandler: requireToken(services.authenticator, 'login'),
      config: perUser(limits, 'passkey_register'),
    },
    async (request) => {
      const userUuid = Number(authOf(request).userId);
      const body = request.body;
      if ('passkey' in body)
        await passkeys.register(userUuid, body.passkey as RegistrationResponseJSON, { upgradeGuest: true });
      else await guests.upgradeWithPassword(userUuid, body);
      // The guest secret died: mailed only where the account already has a verified address.
      services.security.notify(userUuid, { kind: 'guest_upgraded' }, requestContextOf(request));
      return { success: true, uuid: String(userUuid) };
    },
  );
}
