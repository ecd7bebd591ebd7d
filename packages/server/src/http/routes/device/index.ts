import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { isAppError } from '../../../errors.js';
import type { PendingDeviceAuthorization } from '../../../services/oauth/deviceAuthorizationGrant.js';
import { authOf, bearerSecurity, requireToken } from '../../auth.js';
import { devicePageAddress } from '../../pages/devicePages.js';
import { userCodeGuessLimit } from '../../rateLimits.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';

const UserCodeBody = Type.Object({ user_code: Type.String({ minLength: 1, maxLength: 100 }) });
const DecisionResult = Type.Object({
  success: Type.Boolean(),
  client_id: Type.String(),
  client_name: Type.String(),
  user_code: Type.String({ description: 'XXXX-XXXX' }),
});

/**
 * The player's side of the device authorization grant (RFC 8628, docs/players.md): `GET /device`,
 * the short `verification_uri` a TV shows, and the companion app's `POST /v1/device/approve|deny`
 * with the player's login JWT (one bound to another app, `azp`, is refused: 401 `client_mismatch`;
 * an unbound one approves only an app the player consented to: 403 `consent_required`). Wrong user
 * codes count against the address and the account like on the page (`userCodeGuessLimit`).
 */
export async function deviceRoutes(app: App, services: Services): Promise<void> {
  const { authenticator, devices } = services;
  const guesses = userCodeGuessLimit(app, services);

  app.get(
    '/device',
    {
      schema: {
        tags: ['oauth'],
        summary:
          'Device verification URI (RFC 8628): redirects to the verification page, keeping user_code and ui_locales (its language)',
        querystring: Type.Object({
          user_code: Type.Optional(Type.String({ maxLength: 100 })),
          ui_locales: Type.Optional(
            Type.String({
              maxLength: 200,
              description: 'The page’s language: BCP 47 tags by preference, space-separated (decisions §9)',
            }),
          ),
        }),
      },
    },
    async (request, reply) => {
      const { user_code: userCode, ui_locales: uiLocales } = request.query;
      return reply.redirect(devicePageAddress(userCode, uiLocales), 302);
    },
  );

  /** A decision on the user code of the body, by the user of the login JWT; wrong codes are counted. */
  async function decide(
    request: FastifyRequest,
    userCode: string,
    decision: (
      userCode: string,
      userUuid: number,
      authTime: number,
      boundTo: string | undefined,
    ) => Promise<PendingDeviceAuthorization>,
  ) {
    const claims = authOf(request);
    const userUuid = Number(claims.userId);
    await guesses.check(request, userUuid);
    try {
      const decided = await decision(userCode, userUuid, (claims.authTime ?? claims.iat) * 1000, claims.azp);
      return {
        success: true,
        client_id: decided.client.clientId,
        client_name: decided.client.name,
        user_code: decided.userCode,
      };
    } catch (err) {
      if (isAppError(err) && err.code === 'invalid_user_code') await guesses.wrong(request, userUuid);
      throw err;
    }
  }

  app.post(
    '/v1/device/approve',
    {
      schema: {
        tags: ['oauth'],
        summary: "Approve a device's user code from a companion app (the player's login JWT)",
        description:
          "The device polling `/oauth/token` with its device code gets its tokens on its next poll. The login JWT must be bound to the device's app (`client_id` at sign-in), or the player must have approved that app for the requested scopes before (its consent page or the `/device` page); otherwise 403 `consent_required` and the code stays pending. 400 `invalid_user_code` when the code is wrong, expired or already decided; 401 `client_mismatch` for a login JWT bound to another app; 429 after too many wrong codes from the address or the account.",
        security: bearerSecurity,
        body: UserCodeBody,
        response: { 200: DecisionResult, ...errorResponses(400, 401, 403, 429) },
      },
      preHandler: requireToken(authenticator, 'login'),
    },
    (request) =>
      decide(request, request.body.user_code, (code, user, authTime, boundTo) =>
        devices.approve(code, user, authTime, { via: 'bearer', boundTo }),
      ),
  );

  app.post(
    '/v1/device/deny',
    {
      schema: {
        tags: ['oauth'],
        summary: "Deny a device's user code from a companion app (the player's login JWT)",
        description:
          'The device gets `access_denied` on its next poll. Denying gives the app nothing, so it needs no consent; a login JWT bound to another app: 401 `client_mismatch`.',
        security: bearerSecurity,
        body: UserCodeBody,
        response: { 200: DecisionResult, ...errorResponses(400, 401, 429) },
      },
      preHandler: requireToken(authenticator, 'login'),
    },
    (request) =>
      decide(request, request.body.user_code, (code, user, _authTime, boundTo) =>
        devices.deny(code, user, boundTo),
      ),
  );
}
