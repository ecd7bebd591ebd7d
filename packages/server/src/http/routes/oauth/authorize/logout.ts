import { errorResponses } from '../../../schemas.js';
import type { App } from '../../../types.js';
import { type AuthorizePage, pageForm } from './shared.js';
import { cookieOf } from '../../../cookies.js';

const LogoutForm = pageForm({});

/** `POST /oauth/authorize/logout`: "Use another account" on the consent page. */
export async function logoutRoutes(app: App, page: AuthorizePage): Promise<void> {
  const { browserSessions } = page.services;
  const { cookies } = page;

  app.post(
    '/oauth/authorize/logout',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Sign-out form of the consent page: ends the page session, then back to the sign-in form',
        body: LogoutForm,
        response: errorResponses(400, 401, 403),
      },
      config: { errorStyle: 'oauth', browserPage: true },
    },
    async (request, reply) => {
      // CSRF-checked too: a cross-site sign-out is a nuisance, and a forced one could set up a login CSRF.
      const authz = await page.checkForm(request, reply, request.body);
      if (!authz) return reply;
      await browserSessions.endSession(cookieOf(request, cookies.session));
      void reply.clearCookie(cookies.session, cookies.options);
      return page.backToAuthorize(reply, authz);
    },
  );
}
