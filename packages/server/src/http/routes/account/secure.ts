import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { AppError, isAppError } from '../../../errors.js';
import { SECURE_PATH } from '../../../services/security/accountSecurityService.js';
import { sendMailedLinkPage } from '../../pages/mailedLinkPage.js';
import { secureConfirmPage, securedPage, secureLinkFailedPage } from '../../pages/securePages.js';
import { routeLimit } from '../../rateLimits.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';

const Token = Type.String({ maxLength: 100 });

/**
 * The security mail's "this wasn't me" link (decisions §9, docs/security.md): `GET` shows a confirm form and
 * changes nothing; the form's `POST` (the token is the capability; a foreign `Origin` is refused) ends every
 * session of the account, undoes the reported way in and requires a password reset.
 */
export async function accountSecureRoutes(app: App, services: Services): Promise<void> {
  const { security } = services;
  const limit = { rateLimit: routeLimit(services.config.rateLimits, 'account_secure') };
  const ownOrigin = new URL(services.config.publicUrl).origin;

  app.get(
    SECURE_PATH,
    {
      schema: {
        tags: ['accounts'],
        summary: 'The security mail’s link: a page that asks to confirm (a GET changes nothing)',
        querystring: Type.Object({ token: Token }),
        response: errorResponses(429),
      },
      config: { browserPage: true, ...limit },
    },
    async (request, reply) => {
      const { token } = request.query;
      if (!(await security.linkWorks(token)))
        return sendMailedLinkPage(request, reply, 400, secureLinkFailedPage);
      return sendMailedLinkPage(request, reply, 200, (tr, nonce) =>
        secureConfirmPage(tr, nonce, token, SECURE_PATH),
      );
    },
  );

  app.post(
    SECURE_PATH,
    {
      schema: {
        tags: ['accounts'],
        summary:
          'Confirms the link: every session, login JWT, refresh token and session key ends, the reported passkey or identity is removed, and sign-in needs a password reset',
        body: Type.Object({ token: Token }),
        response: errorResponses(400, 403, 429),
      },
      config: { browserPage: true, ...limit },
    },
    async (request, reply) => {
      const origin = request.headers.origin;
      // The token alone is the capability; a form posted from another site is refused all the same.
      if (origin !== undefined && origin !== ownOrigin) {
        throw new AppError(403, 'invalid_origin', 'The form was not sent from the dauth page');
      }
      try {
        await security.confirm(request.body.token);
      } catch (err) {
        if (isAppError(err) && err.code === 'invalid_security_link') {
          return sendMailedLinkPage(request, reply, 400, secureLinkFailedPage);
        }
        throw err;
      }
      return sendMailedLinkPage(request, reply, 200, securedPage);
    },
  );
}
