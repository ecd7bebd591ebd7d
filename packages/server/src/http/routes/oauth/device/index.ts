import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../../composition/index.js';
import { AppError, isAppError } from '../../../../errors.js';
import { disclosedClaims, grantedOidcScope } from '../../../../services/oidc/scopes.js';
import type { MessageKey } from '../../../../i18n/catalogues/index.js';
import {
  DEVICE_PAGE_PATH,
  deviceCodePage,
  deviceConfirmPage,
  deviceDonePage,
  deviceLoginPage,
  devicePageAddress,
} from '../../../pages/devicePages.js';
import { newNonce } from '../../../pages/html.js';
import { mfaCodePage } from '../../../pages/mfaPages.js';
import { pageTranslator } from '../../../pages/pageLocale.js';
import { MFA_TOKEN_TTL_SECONDS } from '../../../../services/mfa/mfaService.js';
import { mfaAccountGuard, routeLimit, userCodeGuessLimit } from '../../../rateLimits.js';
import { AltchaField, EmailCodeField, passwordSignInGuard } from '../../../defense.js';
import { errorResponses } from '../../../schemas.js';
import type { App } from '../../../types.js';
import { authorizePage } from '../authorize/shared.js';
import { optionalString as str } from '../clientEndpoint.js';
import { cookieOf } from '../../../cookies.js';

/** The flow's language (OpenID Connect `ui_locales`: BCP 47 tags by preference), kept in the page's forms. */
const UiLocales = str(200);
const PageQuery = Type.Object({ user_code: str(100), ui_locales: UiLocales }, { additionalProperties: true });
const LoginForm = Type.Object(
  {
    csrf_token: str(200),
    user_code: str(100),
    ui_locales: UiLocales,
    email: Type.String({ maxLength: 320 }),
    password: Type.String({ maxLength: 1024 }),
    altcha: AltchaField,
    email_code: EmailCodeField,
  },
  { additionalProperties: true },
);
const CodeForm = Type.Object(
  { csrf_token: str(200), user_code: str(100), ui_locales: UiLocales, code: Type.String({ maxLength: 40 }) },
  { additionalProperties: true },
);
const DecisionForm = Type.Object(
  {
    csrf_token: str(200),
    user_code: Type.String({ maxLength: 100 }),
    ui_locales: UiLocales,
    decision: Type.Union([Type.Literal('allow'), Type.Literal('deny')]),
  },
  { additionalProperties: true },
);

const WRONG_CODE: MessageKey = 'device.code.wrong';

/**
 * The verification page of the device authorization grant (RFC 8628 §3.3, docs/players.md), under
 * `/oauth` so the login page's session and CSRF cookies reach it (`GET /device` sends the player
 * here): sign in (the login page's session), enter or check the code, allow or deny, done. Wrong codes
 * count against `device_user_code`; the page never says more than "wrong or expired".
 */
export async function devicePageRoutes(app: App, services: Services): Promise<void> {
  const { accounts, browserSessions, devices } = services;
  const guard = passwordSignInGuard(app, services);
  const page = authorizePage(services);
  const guesses = userCodeGuessLimit(app, services);

  const send = (reply: FastifyReply, status: number, render: (nonce: string) => string, altcha = false) => {
    const nonce = newNonce();
    // The sign-in form may fetch a challenge of the service's own API and solve it in the ALTCHA
    // widget's worker (docs/security.md "Bot challenge").
    return page.sendPage(reply, status, nonce, render(nonce), [], { connectSelf: true, altcha });
  };
  const backToPage = (reply: FastifyReply, userCode: string | undefined, uiLocales: string | undefined) =>
    reply.redirect(devicePageAddress(userCode, uiLocales), 303);
  const requireCsrf = (request: FastifyRequest, token: string | undefined) => {
    if (!browserSessions.verifyCsrf(cookieOf(request, page.cookies.csrf), token)) {
      throw new AppError(
        403,
        'invalid_csrf_token',
        'The form was not sent from the dauth page or has expired; reload it',
      );
    }
  };

  /** The second step of the page's sign-in (an account with TOTP); the flow's language rides in its fields. */
  function codeStep(
    request: FastifyRequest,
    reply: FastifyReply,
    flow: { userCode?: string | undefined; uiLocales?: string | undefined },
    error?: 'signin.error.mfaWrongCode',
  ) {
    const csrfToken = page.csrfFor(request, reply);
    const translator = pageTranslator(request, flow.uiLocales);
    return send(reply, error ? 401 : 200, (nonce) =>
      mfaCodePage({
        translator,
        nonce,
        csrfToken,
        action: `${DEVICE_PAGE_PATH}/mfa`,
        fields: { user_code: flow.userCode ?? '', ...(flow.uiLocales ? { ui_locales: flow.uiLocales } : {}) },
        error: error ? translator.t(error) : undefined,
      }),
    );
  }

  /** The code form again with the error; a wrong code is counted (the next one over the limit: 429). */
  async function wrongCode(
    request: FastifyRequest,
    reply: FastifyReply,
    userUuid: number,
    userCode: string,
    uiLocales: string | undefined,
  ) {
    await guesses.wrong(request, userUuid);
    const csrfToken = page.csrfFor(request, reply);
    const translator = pageTranslator(request, uiLocales);
    return send(reply, 400, (nonce) =>
      deviceCodePage({ translator, nonce, csrfToken, userCode, uiLocales, error: WRONG_CODE }),
    );
  }

  /** Why a sign-in on the page was refused, in the page's words (the API's messages are for developers). */
  const signInRefusal = (err: AppError, emailCode: string | undefined): MessageKey => {
    if (err.code !== 'challenge_required') return 'device.login.wrongPassword';
    // 400: the bot challenge (`BOT_CHALLENGE`) was missing or wrong; 401: the account is under guessing.
    if (err.status !== 401) return 'device.login.challengeFailed';
    return emailCode ? 'device.login.emailCodeWrong' : 'device.login.accountGuarded';
  };

  app.get(
    DEVICE_PAGE_PATH,
    {
      schema: {
        tags: ['oauth'],
        summary:
          'Device verification page (RFC 8628): sign in, enter the code, allow or deny; `ui_locales` picks its language',
        querystring: PageQuery,
        response: errorResponses(400, 429),
      },
      config: { errorStyle: 'oauth', browserPage: true },
    },
    async (request, reply) => {
      const userCode = request.query.user_code?.trim() || undefined;
      const uiLocales = request.query.ui_locales;
      const translator = pageTranslator(request, uiLocales);
      const csrfToken = page.csrfFor(request, reply);
      const session = await browserSessions.sessionOf(cookieOf(request, page.cookies.session));
      const user = session && (await accounts.findUser(session.userUuid));
      if (!session || !user) {
        const challenge = services.botChallenge.covers('login');
        return send(
          reply,
          200,
          (nonce) => deviceLoginPage({ translator, nonce, csrfToken, userCode, uiLocales, challenge }),
          challenge,
        );
      }
      if (userCode === undefined) {
        return send(reply, 200, (nonce) => deviceCodePage({ translator, nonce, csrfToken, uiLocales }));
      }
      await guesses.check(request, session.userUuid);
      let pending;
      try {
        pending = await devices.pending(userCode);
      } catch (err) {
        if (isAppError(err) && err.code === 'invalid_user_code')
          return wrongCode(request, reply, session.userUuid, userCode, uiLocales);
        throw err;
      }
      const walletPolicy = await services.sessionKeys
        .describePolicy(pending.client.clientId)
        .catch(() => undefined);
      return send(reply, 200, (nonce) =>
        deviceConfirmPage({
          translator,
          nonce,
          csrfToken,
          userCode: pending.userCode,
          uiLocales,
          clientName: pending.client.name,
          accountEmail: user.email ?? user.nickname,
          dapp: pending.client.dapp,
          sharedClaims: disclosedClaims(pending.record.scope),
          walletPolicy,
        }),
      );
    },
  );

  app.post(
    `${DEVICE_PAGE_PATH}/login`,
    {
      schema: {
        tags: ['oauth'],
        summary: 'Sign-in form of the device verification page (sets the login page session cookie)',
        body: LoginForm,
        response: errorResponses(400, 401, 403, 429),
      },
      preHandler: app.loginRateLimit,
      config: { errorStyle: 'oauth', browserPage: true },
    },
    async (request, reply) => {
      const { email, password, user_code: userCode, ui_locales: uiLocales } = request.body;
      requireCsrf(request, request.body.csrf_token);
      let userUuid: number;
      try {
        // The bot challenge and the account's guessing defense (docs/security.md) wrap the password check.
        ({ userUuid } = await guard(request)(email, request.body, () =>
          accounts.authenticate(email, password),
        ));
      } catch (err) {
        if (!isAppError(err) || (err.status !== 401 && err.code !== 'challenge_required')) throw err;
        const csrfToken = page.csrfFor(request, reply);
        const translator = pageTranslator(request, uiLocales);
        const challenged = err.code === 'challenge_required';
        const challenge = challenged || services.botChallenge.covers('login');
        return send(
          reply,
          err.status,
          (nonce) =>
            deviceLoginPage({
              translator,
              nonce,
              csrfToken,
              userCode,
              uiLocales,
              email,
              error: signInRefusal(err, request.body.email_code),
              challenge,
              emailCode: challenged && err.status === 401,
            }),
          challenge,
        );
      }
      request.auditUser = String(userUuid); // the audit entry's actor (auditRecorder.ts)
      const authTime = Date.now();
      // An account with TOTP proves a code first (docs/mfa.md "The pages"); the session waits for it.
      const second = await services.mfa.startSecondStep({
        userUuid,
        authTime: Math.floor(authTime / 1000),
        amr: ['pwd'],
      });
      if (second) {
        void reply.setCookie(page.cookies.mfa, second.mfaToken, {
          ...page.cookies.options,
          maxAge: MFA_TOKEN_TTL_SECONDS,
        });
        return codeStep(request, reply, { userCode, uiLocales });
      }
      await page.openSession(reply, { userUuid, authTime, amr: ['pwd'] });
      return backToPage(reply, userCode, uiLocales);
    },
  );

  app.post(
    `${DEVICE_PAGE_PATH}/mfa`,
    {
      schema: {
        tags: ['oauth'],
        summary:
          'Second step of the device page sign-in: the TOTP or recovery code (sets the session cookie)',
        body: CodeForm,
        response: errorResponses(400, 401, 403, 429),
      },
      config: {
        errorStyle: 'oauth',
        browserPage: true,
        rateLimit: routeLimit(services.config.rateLimits, 'login_mfa'),
      },
    },
    async (request, reply) => {
      const { user_code: userCode, ui_locales: uiLocales } = request.body;
      requireCsrf(request, request.body.csrf_token);
      const ended = () => {
        void reply.clearCookie(page.cookies.mfa, page.cookies.options);
        const csrfToken = page.csrfFor(request, reply);
        const translator = pageTranslator(request, uiLocales);
        return send(reply, 401, (nonce) =>
          deviceLoginPage({
            translator,
            nonce,
            csrfToken,
            userCode,
            uiLocales,
            error: 'device.login.stepEnded',
          }),
        );
      };
      const mfaToken = cookieOf(request, page.cookies.mfa);
      if (!mfaToken || mfaToken.length > 100) return ended();
      let proved;
      try {
        // The device page's sign-ins are bound to no app (the login page's are bound to theirs).
        proved = await services.mfa.trySecondStep(
          mfaToken,
          request.body.code,
          { clientId: undefined },
          mfaAccountGuard(app, services)(request),
        );
      } catch (err) {
        if (isAppError(err) && err.code === 'invalid_mfa_token') return ended();
        throw err;
      }
      // A wrong code: the step again, or (the fifth) back to the password form.
      if ('attemptsLeft' in proved) {
        if (proved.attemptsLeft === 0) return ended();
        return codeStep(request, reply, { userCode, uiLocales }, 'signin.error.mfaWrongCode');
      }
      void reply.clearCookie(page.cookies.mfa, page.cookies.options);
      await page.openSession(reply, {
        userUuid: proved.userUuid,
        authTime: proved.authTime * 1000,
        amr: proved.amr,
      });
      return backToPage(reply, userCode, uiLocales);
    },
  );

  app.post(
    `${DEVICE_PAGE_PATH}/decision`,
    {
      schema: {
        tags: ['oauth'],
        summary: 'Allow or deny the device on the verification page (allow records the consent)',
        body: DecisionForm,
        response: errorResponses(400, 403, 429),
      },
      config: { errorStyle: 'oauth', browserPage: true },
    },
    async (request, reply) => {
      const { user_code: userCode, ui_locales: uiLocales, decision } = request.body;
      requireCsrf(request, request.body.csrf_token);
      const session = await browserSessions.sessionOf(cookieOf(request, page.cookies.session));
      // The session expired between the two pages: back to sign-in, nothing decided.
      if (!session) return backToPage(reply, userCode, uiLocales);
      await guesses.check(request, session.userUuid);
      request.auditUser = String(session.userUuid);
      let decided;
      try {
        decided =
          decision === 'allow'
            ? await devices.approve(
                userCode,
                session.userUuid,
                session.authTime,
                { via: 'page' },
                session.amr,
              )
            : await devices.deny(userCode, session.userUuid);
      } catch (err) {
        if (isAppError(err) && err.code === 'invalid_user_code')
          return wrongCode(request, reply, session.userUuid, userCode, uiLocales);
        throw err;
      }
      // Allow on the confirmation (the app and what it receives, shown) is the player's consent, for
      // these scopes, as on the authorize page: it later covers the same app's companion approvals.
      if (decision === 'allow') {
        const scope = grantedOidcScope(decided.record.scope);
        await browserSessions.recordConsent(session.userUuid, decided.client.clientId, scope);
      }
      const translator = pageTranslator(request, uiLocales);
      return send(reply, 200, (nonce) =>
        deviceDonePage({
          translator,
          nonce,
          clientName: decided.client.name,
          approved: decision === 'allow',
        }),
      );
    },
  );
}
