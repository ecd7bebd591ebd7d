import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { forbidden } from '../../../errors.js';
import type { LoginStatus } from '../../../services/status/loginStatusService.js';
import type { TokenClaims } from '../../../services/tokens/tokenService.js';
import { authOf, bearerSecurity, requireToken } from '../../auth.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';

const StatusQuery = Type.Object({
  user_id: Type.String({ minLength: 1, maxLength: 32 }),
  client_id: Type.String({ minLength: 1, maxLength: 64 }),
});

const StatusResult = Type.Object({
  success: Type.Boolean(),
  message: Type.String(),
  user_id: Type.String(),
  status: Type.Union([Type.Literal('logged_in'), Type.Literal('logged_out')]),
  transfer_enabled: Type.Boolean(),
  timestamp: Type.String({ description: 'ISO 8601 UTC' }),
});

/** A token acts only for its own user and app (decisions §3), else 403. */
function requireOwn(claims: TokenClaims, userId: string, clientId: string): void {
  if (claims.userId !== userId || claims.clientId !== clientId) {
    throw forbidden('forbidden', 'The token may only act for its own user_id and client_id');
  }
}

const result = (s: LoginStatus, message: string) => ({
  success: true,
  message,
  user_id: s.userId,
  status: s.status,
  transfer_enabled: s.transferEnabled,
  timestamp: new Date().toISOString(),
});

/** Login status of a user's OAuth rights per app (spec endpoints 5 and 6). */
export async function statusRoutes(app: App, services: Services): Promise<void> {
  const { loginStatus } = services;
  const auth = requireToken(services.authenticator, 'access');

  for (const transition of ['login', 'logout'] as const) {
    const next = transition === 'login' ? 'logged_in' : 'logged_out';
    app.post(
      `/v1/oauth/status/${transition}`,
      {
        schema: {
          tags: ['status'],
          summary: `Report the user's ${transition}: status becomes ${next}`,
          security: bearerSecurity,
          body: StatusQuery,
          response: { 200: StatusResult, ...errorResponses(400, 401, 403, 413, 415) },
        },
        preHandler: auth,
      },
      async (request) => {
        requireOwn(authOf(request), request.body.user_id, request.body.client_id);
        const s = await loginStatus.setStatus(request.body.user_id, request.body.client_id, next);
        return result(s, transition === 'login' ? 'Login status updated' : 'Logout status updated');
      },
    );
  }

  app.get(
    '/v1/oauth/status/check',
    {
      schema: {
        tags: ['status'],
        summary: 'Current status and whether the rights may be listed',
        security: bearerSecurity,
        querystring: StatusQuery,
        response: { 200: StatusResult, ...errorResponses(400, 401, 403) },
      },
      preHandler: auth,
    },
    async (request) => {
      requireOwn(authOf(request), request.query.user_id, request.query.client_id);
      const s = await loginStatus.getStatus(request.query.user_id, request.query.client_id);
      return result(s, s.status === 'logged_in' ? 'User is logged in' : 'User is logged out');
    },
  );
}
