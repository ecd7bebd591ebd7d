import { Type } from 'typebox';
import { AltchaField } from '../../../defense.js';
import { pageTranslator } from '../../../pages/pageLocale.js';
import { routeLimit } from '../../../rateLimits.js';
import { errorResponses } from '../../../schemas.js';
import type { App } from '../../../types.js';
import { MIN_PASSWORD_LENGTH } from '../../../../services/accounts/accountService.js';
import { formError } from './pageMessages.js';
import { type AccountForm, type AuthorizePage, AuthorizeQuery, emailInput, pageForm } from './shared.js';

const SignupForm = pageForm({
  email: Type.String({ maxLength: 320 }),
  password: Type.String({ maxLength: 1024 }),
  altcha: AltchaField,
});

const SIGNUP_PATH = '/oauth/authorize/signup';

const signupForm: AccountForm = {
  title: 'signin.signup.title',
  action: SIGNUP_PATH,
  path: SIGNUP_PATH,
  inputs: (tr, email) => [
    emailInput(tr, email),
    {
      id: 'password',
      label: tr.t('signin.signup.password', { min: MIN_PASSWORD_LENGTH }),
      type: 'password',
      autocomplete: 'new-password',
      maxlength: 1024,
    },
  ],
  submit: { id: 'sign-up', label: 'signin.signup.submit' },
  challenge: 'signup',
};

/** `GET`/`POST /oauth/authorize/signup`: the sign-up form beside the sign-in form (docs/accounts.md). */
export async function signupRoutes(app: App, page: AuthorizePage): Promise<void> {
  const { services } = page;

  app.get(
    '/oauth/authorize/signup',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Sign-up form beside the login page; returns to the authorize request',
        querystring: AuthorizeQuery,
        response: errorResponses(400, 401),
      },
      config: { errorStyle: 'oauth', browserPage: true },
    },
    async (request, reply) => {
      const authz = await page.check(request.query, reply);
      if (!authz) return reply;
      return page.showAccountForm(request, reply, authz, signupForm);
    },
  );

  app.post(
    '/oauth/authorize/signup',
    {
      schema: {
        tags: ['oauth'],
        summary:
          'Sign-up form: creates the account, signs in (session cookie), back to the authorize request',
        body: SignupForm,
        response: errorResponses(400, 401, 403, 429),
      },
      config: {
        errorStyle: 'oauth',
        browserPage: true,
        rateLimit: routeLimit(services.config.rateLimits, 'register'),
      },
    },
    async (request, reply) => {
      const { email, password } = request.body;
      return page.runFormAction(request, reply, request.body, {
        // `BOT_CHALLENGE` with `signup`: the browser solved a challenge on submit (docs/security.md).
        action: async () => {
          await services.botChallenge.require('signup', request.body.altcha);
          // The page's language (the flow's `ui_locales`, the cookie, Accept-Language) becomes the account's.
          const { locale } = pageTranslator(request, request.body.ui_locales);
          return services.accounts.register({ email, password, locale });
        },
        expected: [400, 409],
        showForm: (authz, err) =>
          page.showAccountForm(request, reply, authz, signupForm, err.status, {
            email,
            error: formError(err, { password }),
          }),
        done: (authz, { userUuid }) => page.signedInBackToAuthorize(reply, authz, { userUuid, amr: ['pwd'] }),
      });
    },
  );
}
