import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { AppError, isAppError } from '../../../errors.js';
import {
  VERIFY_LINK_CONFIRM_PATH,
  VERIFY_LINK_PATH,
} from '../../../services/verification/addressVerificationService.js';
import { authOf, bearerSecurity, requireToken } from '../../auth.js';
import { sendMailedLinkPage } from '../../pages/mailedLinkPage.js';
import { confirmEmailPage, emailVerifiedPage } from '../../pages/verifyEmailPages.js';
import { perUser, routeLimit } from '../../rateLimits.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';

/**
 * Verification of the account's own e-mail address (decisions §8, docs/accounts.md): the sign-up mail's
 * 6-digit code with the login JWT, or its link, whose page verifies when its button posts the token (the GET
 * changes nothing: mail scanners open links, and a first verification purges earlier ways in); and a resend.
 */
export async function devUserVerifyEmailRoutes(app: App, services: Services): Promise<void> {
  const { addressVerification } = services;
  const limits = services.config.rateLimits;
  const requireLogin = requireToken(services.authenticator, 'login');

  app.post(
    VERIFY_LINK_PATH,
    {
      onRequest: [requireLogin],
      schema: {
        tags: ['accounts'],
        summary: 'Verify the account’s e-mail address with the 6-digit code of the sign-up mail',
        security: bearerSecurity,
        body: Type.Object({
          code: Type.String({ pattern: '^[0-9]{6}$', description: 'The 6 digits from the e-mail' }),
        }),
        response: {
          200: Type.Object({ success: Type.Boolean(), email_verified: Type.Boolean() }),
          ...errorResponses(400, 401, 429),
        },
      },
      config: perUser(limits, 'verify_email'),
    },
    async (request) => {
      const auth = authOf(request);
      await addressVerification.verifyCode(Number(auth.userId), request.body.code, auth.jti);
      return { success: true, email_verified: true };
    },
  );

  const linkLimit = { rateLimit: routeLimit(limits, 'verify_email_link') };
  const ownOrigin = new URL(services.config.publicUrl).origin;
  const Token = Type.String({ maxLength: 100 });

  app.get(
    VERIFY_LINK_PATH,
    {
      schema: {
        tags: ['accounts'],
        summary:
          'The sign-up mail’s link: a page whose button verifies the address (a GET changes nothing: mail scanners open links)',
        querystring: Type.Object({ token: Token }),
        // 200 and 400 answer the HTML page; a missing token is the JSON 400 of every route.
        response: errorResponses(429),
      },
      config: { browserPage: true, ...linkLimit },
    },
    async (request, reply) => {
      const { token } = request.query;
      if (!(await addressVerification.linkWorks(token))) {
        return sendMailedLinkPage(request, reply, 400, (tr, nonce) => emailVerifiedPage(tr, nonce, false));
      }
      return sendMailedLinkPage(request, reply, 200, (tr, nonce) =>
        confirmEmailPage(tr, nonce, token, VERIFY_LINK_CONFIRM_PATH),
      );
    },
  );

  app.post(
    VERIFY_LINK_CONFIRM_PATH,
    {
      schema: {
        tags: ['accounts'],
        summary:
          'The link’s page confirms: verifies the address by the link’s token (a first verification removes the ways in added before it)',
        body: Type.Object({ token: Token }),
        // 200 and 400 answer the HTML page.
        response: errorResponses(403, 429),
      },
      config: { browserPage: true, ...linkLimit },
    },
    async (request, reply) => {
      const origin = request.headers.origin;
      // The token alone is the capability; a form posted from another site is refused all the same.
      if (origin !== undefined && origin !== ownOrigin) {
        throw new AppError(403, 'invalid_origin', 'The form was not sent from the dauth page');
      }
      let verified = true;
      try {
        await addressVerification.verifyLink(request.body.token);
      } catch (err) {
        if (!isAppError(err) || err.code !== 'invalid_verification_token') throw err;
        verified = false;
      }
      return sendMailedLinkPage(request, reply, verified ? 200 : 400, (tr, nonce) =>
        emailVerifiedPage(tr, nonce, verified),
      );
    },
  );

  app.post(
    `${VERIFY_LINK_PATH}/resend`,
    {
      onRequest: [requireLogin],
      schema: {
        tags: ['accounts'],
        summary: 'Mail a new verification code and link (one a minute, five an hour)',
        security: bearerSecurity,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            expires_in: Type.Integer({ description: 'Seconds the code and the link stay valid' }),
          }),
          ...errorResponses(401, 409, 429, 503),
        },
      },
      config: perUser(limits, 'verify_email_resend'),
    },
    async (request) => {
      const { expiresIn } = await addressVerification.resend(Number(authOf(request).userId));
      return { success: true, expires_in: expiresIn };
    },
  );
}
