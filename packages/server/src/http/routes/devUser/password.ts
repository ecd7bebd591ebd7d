import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { authOf, bearerSecurity, requireFreshLogin } from '../../auth.js';
import { routeLimit } from '../../rateLimits.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { requestContextOf } from '../../requestContext.js';

const Email = Type.String({ minLength: 3, maxLength: 320 });
const NewPassword = Type.String({ minLength: 1, maxLength: 1024 });

/** Password reset by e-mail and password change (docs/accounts.md); both log the user out everywhere. */
export async function passwordRoutes(app: App, services: Services): Promise<void> {
  const { passwords } = services;
  const limit = { rateLimit: routeLimit(services.config.rateLimits, 'password_reset') };

  app.post(
    '/v1/dev-user/password/reset-request',
    {
      schema: {
        tags: ['accounts'],
        summary:
          'Mail a password reset code and link to the address; 200 whether or not it has an account (no enumeration)',
        body: Type.Object({ email: Email }),
        response: { 200: Type.Object({ success: Type.Boolean() }), ...errorResponses(400, 429) },
      },
      config: limit,
    },
    async (request) => {
      passwords.requestReset(request.body.email);
      return { success: true };
    },
  );

  app.post(
    '/v1/dev-user/password/reset',
    {
      schema: {
        tags: ['accounts'],
        summary:
          'Set a new password with the mailed code (single use, 30 min); every earlier session of the account ends',
        body: Type.Object({
          email: Email,
          code: Type.String({ minLength: 1, maxLength: 32 }),
          new_password: NewPassword,
        }),
        response: { 200: Type.Object({ success: Type.Boolean() }), ...errorResponses(400, 429) },
      },
      config: limit,
    },
    async (request) => {
      const userUuid = await passwords.reset(
        request.body.email,
        request.body.code,
        request.body.new_password,
      );
      services.security.notify(userUuid, { kind: 'password_reset' }, requestContextOf(request));
      return { success: true };
    },
  );

  app.post(
    '/v1/dev-user/password',
    {
      schema: {
        tags: ['accounts'],
        summary:
          'Change your password (fresh login, STEP_UP_MAX_AGE); this login JWT keeps working, every other session of yours ends',
        security: bearerSecurity,
        body: Type.Object({ current_password: NewPassword, new_password: NewPassword }),
        response: { 200: Type.Object({ success: Type.Boolean() }), ...errorResponses(400, 401, 429) },
      },
      preHandler: requireFreshLogin(services.authenticator, services.config.stepUpMaxAgeSeconds),
      config: limit,
    },
    async (request) => {
      const auth = authOf(request);
      await passwords.change(
        Number(auth.userId),
        auth.jti,
        request.body.current_password,
        request.body.new_password,
      );
      services.security.notify(Number(auth.userId), { kind: 'password_changed' }, requestContextOf(request));
      return { success: true };
    },
  );
}
