import type { BotChallengeKind } from '../../../../config.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../../composition/index.js';
import { AppError, isAppError } from '../../../../errors.js';
import type { MessageKey } from '../../../../i18n/catalogues/index.js';
import type { Translator } from '../../../../i18n/translator.js';
import {
  type AuthorizationParams,
  type AuthorizationRequest,
  authorizationFields,
  checkAuthorizationRequest,
  redirectWith,
} from '../../../../services/oauth/authorizationRequest.js';
import { redirectUriMismatch } from '../../../../services/oauth/oauthErrors.js';
import { MFA_TOKEN_TTL_SECONDS } from '../../../../services/mfa/mfaService.js';
import type { Amr } from '../../../../services/mfa/signIn.js';
import type { PageSession } from '../../../../services/oauth/browserSessions.js';
import { isMultiFactor } from '../../../../services/oidc/authenticationContext.js';
import { afterSignIn } from '../../../../services/oidc/authorizationPrompt.js';
import {
  accountFormPage,
  authorizeAddress,
  completionPage,
  type FormInput,
  loginPage,
} from '../../../pages/authorizePages.js';
import { newNonce, pageHeaders } from '../../../pages/html.js';
import { mfaCodePage, mfaEnrolPage } from '../../../pages/mfaPages.js';
import { pageTranslator } from '../../../pages/pageLocale.js';
import { requestContextOf } from '../../../requestContext.js';
import type { RequestContext } from '../../../../services/security/requestContext.js';
import { optionalString as str } from '../clientEndpoint.js';
import type { PageMessage } from './pageMessages.js';
import { cookieOf } from '../../../cookies.js';

export const SESSION_COOKIE = 'dauth_session';
export const CSRF_COOKIE = 'dauth_csrf';
/** The `mfa_token` of a sign-in waiting for its code on the login or device page (HttpOnly, 5 minutes). */
export const MFA_COOKIE = 'dauth_mfa';

/**
 * The login page's cookie names and attributes. Over https (PUBLIC_URL) they carry the `__Host-`
 * prefix, which the browser honours only for Secure, Path=/, Domain-less cookies: no sibling or
 * parent domain, and no plain-http page, can plant or overwrite them. Over http (development)
 * the prefix would be refused by the browser, so the plain names scoped to /oauth are used.
 */
export function browserCookies(publicUrl: string) {
  const secure = publicUrl.startsWith('https:');
  const prefix = secure ? '__Host-' : '';
  return {
    session: `${prefix}${SESSION_COOKIE}`,
    csrf: `${prefix}${CSRF_COOKIE}`,
    mfa: `${prefix}${MFA_COOKIE}`,
    options: { httpOnly: true, sameSite: 'lax' as const, path: secure ? '/' : '/oauth', secure },
  };
}

/** Authorization request parameters: the query of GET, the hidden fields of the page's forms. */
export const authorizationParamSchema = {
  client_id: Type.String({ minLength: 1, maxLength: 200 }),
  redirect_uri: Type.String({ minLength: 1, maxLength: 4096 }),
  response_type: str(50),
  state: str(4096),
  code_challenge: str(200),
  code_challenge_method: str(20),
  display: str(20),
  // OpenID Connect (docs/oidc.md).
  scope: str(1000),
  nonce: str(1024),
  prompt: str(100),
  max_age: str(20),
  acr_values: str(200),
  // The pages' language (decisions §9): any tags, kept tidied (`uiLocalesOf`), never refused under this bound.
  ui_locales: str(1000),
};

/** The query of the page's GETs: the authorization request itself. */
export const AuthorizeQuery = Type.Object(authorizationParamSchema, { additionalProperties: true });

/** The body of a form of the page: the authorization request in hidden fields, the CSRF token, then `fields`. */
export function pageForm<T extends Parameters<typeof Type.Object>[0]>(fields: T) {
  return Type.Object(
    { ...authorizationParamSchema, csrf_token: str(200), ...fields },
    { additionalProperties: true },
  );
}

export type Outcome =
  { code: string; state?: string | undefined } | { error: string; state?: string | undefined };

/** What a form of the page posts besides its own fields. */
export type PageFormBody = AuthorizationParams & { csrf_token?: string | undefined };

/** Notes shown on the sign-in and account forms (translated by the page), and the e-mail to fill in again. */
export interface FormExtra {
  email?: string;
  error?: PageMessage;
  notice?: PageMessage;
  /** The account is under guessing (401 `challenge_required`): the form asks for the mailed code too. */
  guessing?: boolean;
}

/** One of the account forms beside the sign-in form (sign-up, reset request, reset code). */
export interface AccountForm {
  /** The page's title and heading. */
  title: MessageKey;
  /** Where the form posts: a path under `/oauth/authorize/`. */
  action: string;
  submit: { id: string; label: MessageKey };
  /** The form's inputs, their labels in the page's language. */
  inputs: (tr: Translator, email: string | undefined) => FormInput[];
  /** The path whose GET shows this form (the language switcher goes back there); none when only a POST does. */
  path?: string;
  /** The `BOT_CHALLENGE` kind that covers the form, when one may (the browser then solves a challenge). */
  challenge?: BotChallengeKind;
}

export const emailInput = (tr: Translator, value?: string): FormInput => ({
  id: 'email',
  label: tr.t('signin.email'),
  type: 'email',
  autocomplete: 'username',
  maxlength: 320,
  value,
});

/** The language of a page of the flow (decisions §9): the request's `ui_locales`, the cookie, the browser's. */
export const flowTranslator = (request: FastifyRequest, authz: AuthorizationRequest): Translator =>
  pageTranslator(request, authz.uiLocales);

/** The steps of a form post that runs an account action (see `runFormAction`). */
export interface FormAction<T> {
  /** The account action (sign-in, sign-up, new password). */
  action: () => Promise<T>;
  /** `AppError` statuses the user can fix: answered by `showForm`; anything else is thrown on. */
  expected: readonly number[];
  /** The form again, with the error (its status is the error's). */
  showForm: (authz: AuthorizationRequest, err: AppError) => FastifyReply;
  /** The answer after the action succeeded. */
  done: (authz: AuthorizationRequest, result: T) => FastifyReply | Promise<FastifyReply>;
}

/** The helpers every page of `/oauth/authorize` shares, bound to the services and the cookie names. */
export function authorizePage(services: Services) {
  const { clients, oauth, browserSessions } = services;
  const cookies = browserCookies(services.config.publicUrl);
  const cookieOptions = cookies.options;

  async function check(
    params: AuthorizationParams,
    reply: FastifyReply,
  ): Promise<AuthorizationRequest | undefined> {
    const result = await checkAuthorizationRequest(clients, params);
    if (result.kind === 'mismatch') throw redirectUriMismatch();
    if (result.kind === 'redirect_error') {
      void reply.redirect(
        redirectWith(result.redirectUri, {
          error: result.error,
          error_description: result.description,
          state: result.state,
        }),
        302,
      );
      return undefined;
    }
    return result.request;
  }

  /** The CSRF cookie of this browser, created when missing; returns the matching form token. */
  function csrfFor(request: FastifyRequest, reply: FastifyReply): string {
    let cookie = cookieOf(request, cookies.csrf);
    if (!cookie || cookie.length > 100) {
      cookie = browserSessions.newCsrfCookie();
      void reply.setCookie(cookies.csrf, cookie, cookieOptions);
    }
    return browserSessions.csrfTokenFor(cookie);
  }

  function requireCsrf(request: FastifyRequest, token: string | undefined): void {
    if (!browserSessions.verifyCsrf(cookieOf(request, cookies.csrf), token)) {
      throw new AppError(
        403,
        'invalid_csrf_token',
        'The form was not sent from the dauth page or has expired; reload it',
      );
    }
  }

  /**
   * The first steps of every form post: the authorization request of its hidden fields (undefined when
   * `check` already answered with the redirect), then the CSRF token.
   */
  async function checkForm(
    request: FastifyRequest,
    reply: FastifyReply,
    body: PageFormBody,
  ): Promise<AuthorizationRequest | undefined> {
    const authz = await check(body, reply);
    if (!authz) return undefined;
    requireCsrf(request, body.csrf_token);
    return authz;
  }

  /**
   * A form post that runs an account action: `checkForm`, the action, then `done`; an `AppError` with
   * an `expected` status answers with the form again (`showForm`), any other error is thrown on.
   */
  async function runFormAction<T>(
    request: FastifyRequest,
    reply: FastifyReply,
    body: PageFormBody,
    steps: FormAction<T>,
  ): Promise<FastifyReply> {
    const authz = await checkForm(request, reply, body);
    if (!authz) return reply;
    let result: T;
    try {
      result = await steps.action();
    } catch (err) {
      if (isAppError(err) && steps.expected.includes(err.status)) return steps.showForm(authz, err);
      throw err;
    }
    return steps.done(authz, result);
  }

  function sendPage(
    reply: FastifyReply,
    status: number,
    nonce: string,
    body: string,
    formTargets: string[] = [],
    options: { connectSelf?: boolean; altcha?: boolean } = {},
  ) {
    return reply
      .status(status)
      .headers(pageHeaders(nonce, formTargets, options))
      .send(body);
  }

  /** Delivers the outcome: a redirect, or in a popup the page that posts the two messages. */
  function finish(reply: FastifyReply, request: AuthorizationRequest, outcome: Outcome, status: 302 | 303) {
    const params: Record<string, string | undefined> =
      'code' in outcome
        ? { code: outcome.code, state: outcome.state }
        : { error: outcome.error, state: outcome.state };
    const redirectUrl = redirectWith(request.redirectUri, params);
    if (!request.popup) return reply.redirect(redirectUrl, status);
    const nonce = newNonce();
    const page = completionPage({
      translator: flowTranslator(reply.request, request),
      nonce,
      redirectUrl,
      targetOrigin: new URL(request.redirectUri).origin,
      clientId: request.client.clientId,
      result: outcome,
    });
    return sendPage(reply, 200, nonce, page);
  }

  /** 303 to `GET /oauth/authorize` with the same request: the page the session's state now calls for. */
  function backToAuthorize(reply: FastifyReply, authz: AuthorizationRequest) {
    const query = new URLSearchParams(authorizationFields(authz));
    return reply.redirect(`/oauth/authorize?${query.toString()}`, 303);
  }

  /**
   * After a sign-in or sign-up on the page (every factor it needs proved): a browser session carrying
   * when and how, replacing the browser's previous one, then back to the same request.
   */
  async function signedInBackToAuthorize(
    reply: FastifyReply,
    authz: AuthorizationRequest,
    proof: { userUuid: number; authTime?: number | undefined; amr: readonly string[] },
  ) {
    await openSession(reply, proof);
    return backToAuthorize(reply, { ...authz, oidc: afterSignIn(authz.oidc) });
  }

  /** A new login-page session for `proof` (the one the browser had, if any, ends: no fixation, no stale amr). */
  async function openSession(
    reply: FastifyReply,
    proof: { userUuid: number; authTime?: number | undefined; amr: readonly string[] },
  ) {
    reply.request.auditUser = String(proof.userUuid); // the audit entry's actor (auditRecorder.ts)
    const session = await browserSessions.createSession(
      proof.userUuid,
      { ...(proof.authTime !== undefined ? { authTime: proof.authTime } : {}), amr: proof.amr },
      requestContextOf(reply.request),
    );
    await browserSessions.endSession(cookieOf(reply.request, cookies.session));
    void reply.setCookie(cookies.session, session.cookieValue, {
      ...cookieOptions,
      maxAge: session.maxAgeSeconds,
    });
  }

  /**
   * A first credential was proved on the page (password, federated, or the session a step-up starts
   * from). An account with TOTP gets the code step (its `mfa_token` in an HttpOnly cookie, bound to this
   * app); any other gets its session at once. The session is made only once every factor is proved.
   */
  async function afterFirstFactor(
    request: FastifyRequest,
    reply: FastifyReply,
    authz: AuthorizationRequest,
    proof: PageProof,
  ) {
    if (isMultiFactor(proof.amr)) return signedInBackToAuthorize(reply, authz, proof);
    const second = await services.mfa.startSecondStep({
      userUuid: proof.userUuid,
      authTime: Math.floor(proof.authTime / 1000),
      amr: proof.amr as Amr[],
      clientId: authz.client.clientId,
    });
    if (!second) return signedInBackToAuthorize(reply, authz, proof);
    void reply.setCookie(cookies.mfa, second.mfaToken, { ...cookieOptions, maxAge: MFA_TOKEN_TTL_SECONDS });
    return showMfaCode(request, reply, authz);
  }

  /**
   * The code step's form (`POST /oauth/authorize/mfa`). The language switcher only where the request's own
   * GET showed it (a step-up): after a password or a provider's callback that address is the sign-in
   * form, so switching would lose the step.
   */
  function showMfaCode(
    request: FastifyRequest,
    reply: FastifyReply,
    authz: AuthorizationRequest,
    status = 200,
    error?: PageMessage,
  ) {
    const nonce = newNonce();
    const tr = flowTranslator(request, authz);
    const fields = authorizationFields(authz);
    const body = mfaCodePage({
      translator: tr,
      nonce,
      csrfToken: csrfFor(request, reply),
      action: '/oauth/authorize/mfa',
      fields,
      clientName: authz.client.name,
      error: error && tr.t(error.key, error.values),
      returnTo:
        request.method === 'GET' && request.routeOptions.url === '/oauth/authorize'
          ? authorizeAddress(fields)
          : undefined,
    });
    return sendPage(reply, status, nonce, body, [new URL(authz.redirectUri).origin]);
  }

  /** Enrolment of a first TOTP (`POST /oauth/authorize/mfa/enrol`), for a fresh session's account. */
  async function showMfaEnrol(
    request: FastifyRequest,
    reply: FastifyReply,
    authz: AuthorizationRequest,
    userUuid: number,
    status = 200,
    error?: PageMessage,
    /** The form's marker of the secret it showed (a re-render after a wrong code shows that one again). */
    marker?: string,
  ) {
    const user = await services.accounts.findUser(userUuid);
    if (!user) return showLogin(request, reply, authz);
    const enrolment = await services.mfa.pendingEnrolment(userUuid, user.email ?? user.nickname, marker);
    const nonce = newNonce();
    const tr = flowTranslator(request, authz);
    const fields = authorizationFields(authz);
    const body = mfaEnrolPage({
      translator: tr,
      nonce,
      csrfToken: csrfFor(request, reply),
      action: '/oauth/authorize/mfa/enrol',
      fields,
      clientName: authz.client.name,
      otpauthUri: enrolment.otpauthUri,
      enrolment: enrolment.marker,
      error: error && tr.t(error.key, error.values),
      // Only a GET of the request shows the enrolment (a step-up), so that address shows it again.
      returnTo: authorizeAddress(fields),
    });
    return sendPage(reply, status, nonce, body, [new URL(authz.redirectUri).origin]);
  }

  /**
   * A session whose sign-in was one factor, for an app or request asking for two: an account with TOTP
   * proves a code (step-up; the new session keeps the sign-in's `auth_time`); an account without any
   * second factor enrols one, if it signed in recently (STEP_UP_MAX_AGE), else signs in again first.
   */
  async function stepUp(
    request: FastifyRequest,
    reply: FastifyReply,
    authz: AuthorizationRequest,
    session: PageSession,
  ) {
    if (await services.mfa.hasTotp(session.userUuid)) {
      return afterFirstFactor(request, reply, authz, session);
    }
    const ageMs = Date.now() - session.authTime;
    if (ageMs > services.config.stepUpMaxAgeSeconds * 1000) {
      return showLogin(request, reply, authz, 200, { notice: { key: 'signin.notice.stepUp' } });
    }
    return showMfaEnrol(request, reply, authz, session.userUuid);
  }

  /**
   * `authTime`: when the user signed in (ms), the OIDC `auth_time` of an `openid` request; `amr`: how,
   * kept on the grant for its `id_token`s and introspection; `origin`: the authorizing browser's request
   * (its device and network are kept with the grant, for the account's Security page).
   */
  async function grantCode(
    userUuid: number,
    request: AuthorizationRequest,
    authTime: number,
    amr: readonly string[] | undefined,
    origin: RequestContext,
  ) {
    const { scope, nonce } = request.oidc;
    const { code } = await oauth.issueCode({
      origin,
      client: request.client,
      userUuid,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      codeChallengeMethod: request.codeChallengeMethod,
      oidc: scope === undefined ? undefined : { scope, nonce, authTime },
      amr,
    });
    return { code, state: request.state };
  }

  function showLogin(
    request: FastifyRequest,
    reply: FastifyReply,
    authz: AuthorizationRequest,
    status = 200,
    extra: FormExtra = {},
  ) {
    const nonce = newNonce();
    const { guessing, error, notice, email } = extra;
    const tr = flowTranslator(request, authz);
    const fields = authorizationFields(authz);
    // The browser solves a proof of work on submit (docs/security.md "Bot challenge").
    const challenge = guessing === true || services.botChallenge.covers('login');
    const page = loginPage({
      translator: tr,
      nonce,
      clientName: authz.client.name,
      csrfToken: csrfFor(request, reply),
      fields,
      returnTo: authorizeAddress(fields),
      providers: services.federation.list(),
      challenge,
      emailCode: guessing === true,
      email,
      error: error && tr.t(error.key, error.values),
      errorField: error?.field,
      notice: notice && tr.t(notice.key, notice.values),
    });
    // The sign-in ends at the app when it is already approved (303 here, then 302 there), and
    // browsers apply form-action to that redirect chain: the app's origin must be allowed too.
    return sendPage(reply, status, nonce, page, [new URL(authz.redirectUri).origin], {
      connectSelf: true,
      altcha: challenge,
    });
  }

  // Sign-up and password reset beside the sign-in form (docs/accounts.md): same CSP and CSRF rules,
  // the authorization request carried in hidden fields, ending back at `GET /oauth/authorize`.
  function showAccountForm(
    request: FastifyRequest,
    reply: FastifyReply,
    authz: AuthorizationRequest,
    form: AccountForm,
    status = 200,
    extra: FormExtra = {},
  ) {
    const nonce = newNonce();
    const challenge = form.challenge !== undefined && services.botChallenge.covers(form.challenge);
    const tr = flowTranslator(request, authz);
    const fields = authorizationFields(authz);
    const { error, notice } = extra;
    const body = accountFormPage({
      translator: tr,
      nonce,
      clientName: authz.client.name,
      csrfToken: csrfFor(request, reply),
      fields,
      returnTo: form.path && `${form.path}?${new URLSearchParams(fields).toString()}`,
      error: error && tr.t(error.key, error.values),
      errorField: error?.field,
      notice: notice && tr.t(notice.key, notice.values),
      title: tr.t(form.title),
      action: form.action,
      inputs: form.inputs(tr, extra.email),
      submit: { id: form.submit.id, label: tr.t(form.submit.label) },
      challenge,
    });
    return sendPage(reply, status, nonce, body, [new URL(authz.redirectUri).origin], {
      connectSelf: true,
      altcha: challenge,
    });
  }

  return {
    services,
    cookies,
    check,
    csrfFor,
    checkForm,
    runFormAction,
    sendPage,
    finish,
    backToAuthorize,
    signedInBackToAuthorize,
    openSession,
    afterFirstFactor,
    showMfaCode,
    showMfaEnrol,
    stepUp,
    grantCode,
    showLogin,
    showAccountForm,
  };
}

/** A first credential proved on a page: who, when (ms) and how (RFC 8176). */
export interface PageProof {
  userUuid: number;
  authTime: number;
  amr: readonly string[];
}

/** Whether the app or the request (`acr_values=mfa`) asks for two factors (docs/oidc.md). */
export const needsMfa = (authz: AuthorizationRequest): boolean =>
  authz.client.requireMfa === true || authz.oidc.mfa;

/** The shared helpers of the `/oauth/authorize` pages (see `authorizePage`). */
export type AuthorizePage = ReturnType<typeof authorizePage>;
