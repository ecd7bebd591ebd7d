import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { authOf, bearerSecurity, requireFirstParty, requireToken } from '../../auth.js';
import { createLimiter, mfaAccountGuard } from '../../rateLimits.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { requestContextOf } from '../../requestContext.js';
import { Session } from './accountSchemas.js';

const Code = Type.String({
  minLength: 1,
  maxLength: 40,
  description: "The authenticator app's current 6-digit code, or an unused recovery code",
});

/**
 * Second factors (decisions §9, docs/mfa.md): TOTP enrolment, confirmation (the recovery codes, shown
 * once), removal and status, and the sign-in's second step `POST /v1/dev-user/login/mfa`. Enrolment,
 * confirmation and removal are first-party changes to the account's ways in (a fresh console login JWT).
 */
export async function mfaRoutes(app: App, services: Services): Promise<void> {
  const { mfa } = services;
  const limits = services.config.rateLimits;
  const firstParty = requireFirstParty(services.authenticator, services.config.stepUpMaxAgeSeconds);
  // Per user, counted after the token is checked (a route's own `rateLimit` runs before it, by address).
  const perAccount = createLimiter(
    app,
    limits,
    'mfa_manage',
    (request) => `mfa_manage:${authOf(request).userId}`,
  );
  const manage = [firstParty, perAccount];
  // Codes tried at the second step, per address (each mfa_token also ends after 5).
  const secondStep = createLimiter(app, limits, 'login_mfa');
  // And wrong codes per account, across its mfa_tokens and addresses (the pages count in the same one).
  const accountGuard = mfaAccountGuard(app, services);

  app.get(
    '/v1/dev-user/mfa',
    {
      schema: {
        tags: ['accounts'],
        summary: "The signed-in user's second factors: TOTP on or off, recovery codes left, passkeys",
        security: bearerSecurity,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            totp: Type.Boolean(),
            recovery_codes_left: Type.Integer(),
            passkeys: Type.Integer({
              description: 'How many passkeys the account has (each is two factors)',
            }),
          }),
          ...errorResponses(401),
        },
      },
      preHandler: requireToken(services.authenticator, 'login'),
    },
    async (request, reply) => {
      const userUuid = Number(authOf(request).userId);
      const [status, passkeys] = await Promise.all([mfa.status(userUuid), services.passkeys.list(userUuid)]);
      void reply.header('cache-control', 'no-store');
      return {
        success: true,
        totp: status.totp,
        recovery_codes_left: status.recoveryCodesLeft,
        passkeys: passkeys.length,
      };
    },
  );

  app.post(
    '/v1/dev-user/mfa/totp',
    {
      schema: {
        tags: ['accounts'],
        summary:
          'Starts TOTP enrolment: a new secret (base32) and its otpauth:// URI, pending until confirmed (a new call replaces a pending one). First-party only: a fresh console login',
        security: bearerSecurity,
        response: {
          201: Type.Object({ success: Type.Boolean(), secret: Type.String(), otpauth_uri: Type.String() }),
          ...errorResponses(401, 403, 409, 429),
        },
      },
      preHandler: manage,
    },
    async (request, reply) => {
      const userUuid = Number(authOf(request).userId);
      const user = await services.accounts.findUser(userUuid);
      const label = user?.email ?? user?.nickname ?? String(userUuid);
      const { secret, otpauthUri } = await mfa.enrol(userUuid, label);
      void reply.header('cache-control', 'no-store');
      return reply.status(201).send({ success: true, secret, otpauth_uri: otpauthUri });
    },
  );

  app.post(
    '/v1/dev-user/mfa/totp/confirm',
    {
      schema: {
        tags: ['accounts'],
        summary:
          'Confirms the pending TOTP secret with a current code; answers the 10 single-use recovery codes, shown once. First-party only',
        security: bearerSecurity,
        body: Type.Object({ code: Code }),
        response: {
          200: Type.Object({ success: Type.Boolean(), recovery_codes: Type.Array(Type.String()) }),
          ...errorResponses(400, 401, 403, 404, 409, 429),
        },
      },
      preHandler: manage,
    },
    async (request, reply) => {
      const userUuid = Number(authOf(request).userId);
      const codes = await mfa.confirm(userUuid, request.body.code);
      services.security.notify(userUuid, { kind: 'totp_enabled' }, requestContextOf(request));
      void reply.header('cache-control', 'no-store');
      return { success: true, recovery_codes: codes };
    },
  );

  app.delete(
    '/v1/dev-user/mfa/totp',
    {
      schema: {
        tags: ['accounts'],
        summary:
          'Removes TOTP and the recovery codes, proved by a current TOTP code or an unused recovery code. First-party only',
        security: bearerSecurity,
        body: Type.Object({ code: Code }),
        response: {
          200: Type.Object({ success: Type.Boolean() }),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
      preHandler: manage,
    },
    async (request) => {
      const userUuid = Number(authOf(request).userId);
      await mfa.remove(userUuid, request.body.code);
      services.security.notify(userUuid, { kind: 'totp_removed' }, requestContextOf(request));
      return { success: true };
    },
  );

  app.post(
    '/v1/dev-user/login/mfa',
    {
      schema: {
        tags: ['accounts'],
        summary:
          "A sign-in's second step: the mfa_token of the first and a TOTP or recovery code, for the login JWT (the first step's binding and auth_time; amr adds otp and mfa)",
        body: Type.Object({ mfa_token: Type.String({ minLength: 1, maxLength: 100 }), code: Code }),
        response: { 200: Session, ...errorResponses(400, 401, 429) },
      },
      preHandler: secondStep,
    },
    async (request, reply) => {
      void reply.header('cache-control', 'no-store');
      const { token, uuid } = await mfa.completeSignIn(
        request.body.mfa_token,
        request.body.code,
        accountGuard(request),
      );
      request.auditUser = uuid;
      return { success: true, token, uuid };
    },
  );
}
