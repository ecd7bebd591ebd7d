import { Type } from 'typebox';
import { AltchaField, EmailCodeField, passwordSignInGuard } from '../../../defense.js';
import { errorResponses } from '../../../schemas.js';
import type { App } from '../../../types.js';
import { formError } from './pageMessages.js';
import { type AuthorizePage, pageForm } from './shared.js';

const LoginForm = pageForm({
  email: Type.String({ maxLength: 320 }),
  password: Type.String({ maxLength: 1024 }),
  altcha: AltchaField,
  email_code: EmailCodeField,
});

/** `POST /oauth/authorize/login`: the sign-in form of the page (`GET /oauth/authorize` shows it). */
export async function loginRoutes(app: App, page: AuthorizePage): Promise<void> {
  const { accounts } = page.services;
  const guard = passwordSignInGuard(app, page.services);

  app.post(
    '/oauth/authorize/login',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Sign-in form of the login-and-consent page (sets the session cookie)',
        body: LoginForm,
        response: errorResponses(400, 401, 403, 429),
      },
      preHandler: app.loginRateLimit,
      config: { errorStyle: 'oauth', browserPage: true },
    },
    async (request, reply) => {
      const { email, password, email_code: emailCode } = request.body;
      return page.runFormAction(request, reply, request.body, {
        // The bot challenge and the account's guessing defense (docs/security.md) wrap the password check.
        action: () => guard(request)(email, request.body, () => accounts.authenticate(email, password)),
        expected: [400, 401],
        showForm: (authz, err) =>
          page.showLogin(
            request,
            reply,
            authz,
            err.status,
            err.code === 'challenge_required'
              ? { email, error: formError(err, { emailCode }), guessing: err.status === 401 }
              : { email, error: { key: 'signin.error.wrongPassword', field: 'password' } },
          ),
        // An account with TOTP gets the code step first (docs/mfa.md "The pages").
        done: (authz, { userUuid }) =>
          page.afterFirstFactor(request, reply, authz, { userUuid, authTime: Date.now(), amr: ['pwd'] }),
      });
    },
  );
}
