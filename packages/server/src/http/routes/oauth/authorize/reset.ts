import { Type } from 'typebox';
import { routeLimit } from '../../../rateLimits.js';
import { errorResponses } from '../../../schemas.js';
import type { App } from '../../../types.js';
import { formError } from './pageMessages.js';
import { type AccountForm, type AuthorizePage, AuthorizeQuery, emailInput, pageForm } from './shared.js';
import { requestContextOf } from '../../../requestContext.js';

const ResetRequestForm = pageForm({ email: Type.String({ maxLength: 320 }) });
const ResetConfirmForm = pageForm({
  email: Type.String({ maxLength: 320 }),
  code: Type.String({ maxLength: 32 }),
  new_password: Type.String({ maxLength: 1024 }),
});

const RESET_PATH = '/oauth/authorize/reset';

const resetForm: AccountForm = {
  title: 'signin.reset.title',
  action: RESET_PATH,
  path: RESET_PATH,
  inputs: (tr, email) => [emailInput(tr, email)],
  submit: { id: 'send-code', label: 'signin.reset.submit' },
};

/** Shown only by the request form's POST: no GET address, so no language switcher (it would lose the step). */
const resetConfirmForm: AccountForm = {
  title: 'signin.resetConfirm.title',
  action: `${RESET_PATH}/confirm`,
  inputs: (tr, email) => [
    emailInput(tr, email),
    {
      id: 'code',
      label: tr.t('signin.resetConfirm.code'),
      type: 'text',
      autocomplete: 'one-time-code',
      maxlength: 32,
    },
    {
      id: 'new_password',
      label: tr.t('signin.resetConfirm.newPassword'),
      type: 'password',
      autocomplete: 'new-password',
      maxlength: 1024,
    },
  ],
  submit: { id: 'set-password', label: 'signin.resetConfirm.submit' },
};

/**
 * `GET`/`POST /oauth/authorize/reset` and `POST /oauth/authorize/reset/confirm`: the password reset
 * beside the sign-in form (docs/accounts.md), ending at the sign-in form.
 */
export async function resetRoutes(app: App, page: AuthorizePage): Promise<void> {
  const { services } = page;

  app.get(
    '/oauth/authorize/reset',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Password reset form beside the login page; returns to the authorize request',
        querystring: AuthorizeQuery,
        response: errorResponses(400, 401),
      },
      config: { errorStyle: 'oauth', browserPage: true },
    },
    async (request, reply) => {
      const authz = await page.check(request.query, reply);
      if (!authz) return reply;
      return page.showAccountForm(request, reply, authz, resetForm);
    },
  );

  app.post(
    '/oauth/authorize/reset',
    {
      schema: {
        tags: ['oauth'],
        summary:
          'Password reset request form: mails a code (the same answer for any address), then the code form',
        body: ResetRequestForm,
        response: errorResponses(400, 401, 403, 429),
      },
      config: {
        errorStyle: 'oauth',
        browserPage: true,
        rateLimit: routeLimit(services.config.rateLimits, 'password_reset'),
      },
    },
    async (request, reply) => {
      const authz = await page.checkForm(request, reply, request.body);
      if (!authz) return reply;
      services.passwords.requestReset(request.body.email);
      return page.showAccountForm(request, reply, authz, resetConfirmForm, 200, {
        email: request.body.email,
        notice: { key: 'signin.notice.resetCodeSent' },
      });
    },
  );

  app.post(
    '/oauth/authorize/reset/confirm',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Password reset code form: sets the new password, then back to the sign-in form',
        body: ResetConfirmForm,
        response: errorResponses(400, 401, 403, 429),
      },
      config: {
        errorStyle: 'oauth',
        browserPage: true,
        rateLimit: routeLimit(services.config.rateLimits, 'password_reset'),
      },
    },
    async (request, reply) => {
      const { email, code, new_password: newPassword } = request.body;
      return page.runFormAction(request, reply, request.body, {
        action: async () => {
          const userUuid = await services.passwords.reset(email, code, newPassword);
          // The same security mail as the JSON reset route (decisions §9).
          services.security.notify(userUuid, { kind: 'password_reset' }, requestContextOf(request));
        },
        expected: [400, 429],
        showForm: (authz, err) =>
          page.showAccountForm(request, reply, authz, resetConfirmForm, err.status, {
            email,
            error: formError(err, { password: newPassword }),
          }),
        done: (authz) =>
          page.showLogin(request, reply, authz, 200, {
            email,
            notice: { key: 'signin.notice.passwordChanged' },
          }),
      });
    },
  );
}
