import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { AppError, isAppError } from '../../../errors.js';
import {
  VERIFY_LINK_CONFIRM_PATH,
  VERIFY_LINK_PATH,
} from '../../../services/verification/addressVerificationService.js';
import { authOf, bearerSecurity, requireToken } from '../../auth.js';
import type { Translator } from '../../../i18n/translator.js';
import { newNonce, pageHeaders } from '../../pages/html.js';
import { pageTranslator } from '../../pages/pageLocale.js';
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
  /** The page in the language of the cookie or `Accept-Language` (a mailed link carries no `ui_locales`). */
  const page = (
    request: FastifyRequest,
    reply: unknown,
    status: number,
    render: (translator: Translator, nonce: string) => string,
  ) => {
    const nonce = newNonce();
    // An HTML page whatever the outcome (the typed replies are the JSON error shapes).
    return (
      (reply as FastifyReply)
        .status(status)
        // same-origin: the confirm form's POST then carries our Origin, which the POST checks (html.ts).
        .headers(pageHeaders(nonce, [], { referrerPolicy: 'same-origin' }))
        .send(render(pageTranslator(request), nonce))
    );
  };

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
        return page(request, reply, 400, (tr, nonce) => emailVerifiedPage(tr, nonce, false));
      }
      return page(request, reply, 200, (tr, nonce) =>
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
      return page(request, reply, verified ? 200 : 400, (tr, nonce) =>
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
