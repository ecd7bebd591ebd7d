import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { loginBindingFor } from '../../../services/oauth/loginBinding.js';
import { AltchaField, EmailCodeField, passwordSignInGuard } from '../../defense.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { Credentials, SignInAnswer, signInBody } from './accountSchemas.js';

/**
 * `POST /v1/dev-user/login_devuser`: developer login with e-mail and password, for a login JWT. With
 * `client_id` the JWT is bound to that app (`azp`) and opens no other (docs/security.md). An account with
 * TOTP gets `{mfa_required, mfa_token, methods}` instead, for `POST /v1/dev-user/login/mfa` (docs/mfa.md).
 * `altcha` answers `BOT_CHALLENGE=login`; `altcha` or `email_code` lets an account under guessing in
 * (401 `challenge_required` `{methods}` otherwise; docs/security.md).
 */
export async function devUserLoginRoutes(app: App, services: Services): Promise<void> {
  const { accounts } = services;
  const guard = passwordSignInGuard(app, services);

  app.post(
    '/v1/dev-user/login_devuser',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Developer login: e-mail and password for a login JWT',
        body: Type.Intersect([
          Credentials,
          Type.Object({
            altcha: AltchaField,
            email_code: EmailCodeField,
            client_id: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 200,
                description:
                  'Binds the login JWT to this app (`azp`): the authorize endpoints refuse it for any other',
              }),
            ),
          }),
        ]),
        response: {
          200: SignInAnswer,
          ...errorResponses(400, 401, 429),
        },
      },
      preHandler: app.loginRateLimit,
    },
    async (request) => {
      const { email, password } = request.body;
      const binding = await loginBindingFor(services.clients, request.body.client_id);
      // The bot challenge and the account's guessing defense (docs/security.md) wrap the password check.
      const signIn = await guard(request)(email, request.body, () =>
        accounts.login(email, password, binding),
      );
      return signInBody(signIn);
    },
  );
}
