import { Type } from 'typebox';
import { isAppError } from '../../../../errors.js';
import { authorizationFields } from '../../../../services/oauth/authorizationRequest.js';
import { recoveryCodesPage } from '../../../pages/mfaPages.js';
import { newNonce } from '../../../pages/html.js';
import { mfaAccountGuard, routeLimit } from '../../../rateLimits.js';
import { errorResponses } from '../../../schemas.js';
import type { App } from '../../../types.js';
import { requestContextOf } from '../../../requestContext.js';
import type { PageMessage } from './pageMessages.js';
import { type AuthorizePage, flowTranslator, pageForm } from './shared.js';
import { cookieOf } from '../../../cookies.js';

const CodeForm = pageForm({ code: Type.String({ maxLength: 40 }) });
/** The enrolment's form also carries the marker of the secret it showed. */
const EnrolForm = pageForm({
  code: Type.String({ maxLength: 40 }),
  enrolment: Type.Optional(Type.String({ maxLength: 100 })),
});

const wrongCode: PageMessage = { key: 'signin.error.mfaWrongCode', field: 'code' };
const stepEnded: PageMessage = { key: 'signin.error.mfaStepEnded' };

/**
 * The second factor on the login page (docs/mfa.md "The pages"):
 *
 * - `POST /oauth/authorize/mfa`: the code step after a password or federated sign-in of an account with
 *   TOTP (or a step-up of a one-factor session). The `mfa_token` is the HttpOnly cookie the first step
 *   set, bound to this app; the MFA service checks the code (5 per token, each once). A wrong code shows
 *   the step again; the fifth, or a dead token, ends it (back to the password form). Only a right code
 *   opens the session, with the first step's `auth_time` and `amr` + `otp`, `mfa`.
 * - `POST /oauth/authorize/mfa/enrol`: the first TOTP of an account an app (or `acr_values=mfa`) asks two
 *   factors of, confirmed with a code of it; the recovery codes are shown once, then the request goes on.
 *
 * Both count against `login_mfa` per address (as the JSON second step); the code step's wrong codes
 * count against `login_mfa_account` too (per account, shared with the JSON route and the device page).
 */
export async function mfaPageRoutes(app: App, page: AuthorizePage): Promise<void> {
  const { mfa, browserSessions } = page.services;
  const limit = routeLimit(page.services.config.rateLimits, 'login_mfa');
  const accountGuard = mfaAccountGuard(app, page.services);

  app.post(
    '/oauth/authorize/mfa',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Second step of the login page: the TOTP or recovery code (sets the session cookie)',
        body: CodeForm,
        response: errorResponses(400, 401, 403, 429),
      },
      config: { errorStyle: 'oauth', browserPage: true, rateLimit: limit },
    },
    async (request, reply) => {
      const authz = await page.checkForm(request, reply, request.body);
      if (!authz) return reply;
      const ended = () => {
        void reply.clearCookie(page.cookies.mfa, page.cookies.options);
        return page.showLogin(request, reply, authz, 401, { error: stepEnded });
      };
      const mfaToken = cookieOf(request, page.cookies.mfa);
      if (!mfaToken || mfaToken.length > 100) return ended();
      let proved;
      try {
        proved = await mfa.trySecondStep(
          mfaToken,
          request.body.code,
          { clientId: authz.client.clientId },
          accountGuard(request),
        );
      } catch (err) {
        if (isAppError(err) && err.code === 'invalid_mfa_token') return ended();
        throw err;
      }
      // A wrong code: the step again, or (the fifth) back to the password form.
      if ('attemptsLeft' in proved) {
        if (proved.attemptsLeft === 0) return ended();
        return page.showMfaCode(request, reply, authz, 401, wrongCode);
      }
      void reply.clearCookie(page.cookies.mfa, page.cookies.options);
      return page.signedInBackToAuthorize(reply, authz, {
        userUuid: proved.userUuid,
        authTime: proved.authTime * 1000,
        amr: proved.amr,
      });
    },
  );

  app.post(
    '/oauth/authorize/mfa/enrol',
    {
      schema: {
        tags: ['oauth'],
        summary:
          'Enrolment on the login page when two factors are asked for: a code of the new authenticator turns TOTP on; the recovery codes are shown once',
        body: EnrolForm,
        response: errorResponses(400, 401, 403, 404, 409, 429),
      },
      config: { errorStyle: 'oauth', browserPage: true, rateLimit: limit },
    },
    async (request, reply) => {
      const authz = await page.checkForm(request, reply, request.body);
      if (!authz) return reply;
      const session = await browserSessions.sessionOf(cookieOf(request, page.cookies.session));
      // No session (it expired), or not a fresh one: the request's page says what comes next.
      const fresh =
        session !== undefined &&
        Date.now() - session.authTime <= page.services.config.stepUpMaxAgeSeconds * 1000;
      if (!session || !fresh) return page.backToAuthorize(reply, authz);
      request.auditUser = String(session.userUuid);
      // Only the secret this form showed confirms (a form without its marker matches none).
      const marker = request.body.enrolment ?? '';
      let codes: string[];
      try {
        codes = await mfa.confirm(session.userUuid, request.body.code, marker);
      } catch (err) {
        if (isAppError(err) && err.code === 'invalid_mfa_code') {
          return page.showMfaEnrol(request, reply, authz, session.userUuid, 400, wrongCode, marker);
        }
        // Already on (another tab finished), replaced meanwhile or expired: the request's page starts over
        // (with a new secret).
        if (isAppError(err) && [404, 409].includes(err.status)) return page.backToAuthorize(reply, authz);
        throw err;
      }
      page.services.security.notify(session.userUuid, { kind: 'totp_enabled' }, requestContextOf(request));
      // The password (or federated) sign-in and a code of the new authenticator: two factors.
      await page.openSession(reply, {
        userUuid: session.userUuid,
        authTime: session.authTime,
        amr: [...new Set([...session.amr, 'otp', 'mfa'])],
      });
      const nonce = newNonce();
      const next = `/oauth/authorize?${new URLSearchParams(authorizationFields(authz)).toString()}`;
      const translator = flowTranslator(request, authz);
      return page.sendPage(reply, 200, nonce, recoveryCodesPage({ translator, nonce, codes, next }));
    },
  );
}
