import { Type } from 'typebox';
import { errorResponses } from '../../../schemas.js';
import type { App } from '../../../types.js';
import { type AuthorizePage, pageForm } from './shared.js';

const LoginForm = pageForm({
  email: Type.String({ maxLength: 320 }),
  password: Type.String({ maxLength: 1024 }),
});

/** `POST /oauth/authorize/login`: the sign-in form of the page (`GET /oauth/authorize` shows it). */
export async function loginRoutes(app: App, page: AuthorizePage): Promise<void> {
  const { accounts } = page.services;

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
      const { email, password } = request.body;
      return page.runFormAction(request, reply, request.body, {
        action: () => accounts.authenticate(email, password),
        expected: [401],
        showForm: (authz) =>
          page.showLogin(request, reply, authz, 401, { email, error: 'E-mail or password is wrong.' }),
        // An account with TOTP gets the code step first (docs/mfa.md "The pages").
        done: (authz, { userUuid }) =>
          page.afterFirstFactor(request, reply, authz, { userUuid, authTime: Date.now(), amr: ['pwd'] }),
      });
    },
  );
}
