import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { AppError, isAppError, unauthorized } from '../../../errors.js';
import {
  type AuthorizationParams,
  type AuthorizationRequest,
  authorizationFields,
  checkAuthorizationRequest,
  redirectWith,
} from '../../../services/oauth/authorizationRequest.js';
import { redirectUriMismatch } from '../../../services/oauth/oauthErrors.js';
import { afterSignIn, nextAuthorizeStep } from '../../../services/oidc/authorizationPrompt.js';
import { disclosedClaims } from '../../../services/oidc/scopes.js';
import { bearerToken } from '../../adminAuth.js';
import {
  accountFormPage,
  completionPage,
  consentPage,
  type FormInput,
  loginPage,
} from '../../pages/authorizePages.js';
import { routeLimit } from '../../rateLimits.js';
import { newNonce, pageHeaders } from '../../pages/html.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';

export const SESSION_COOKIE = 'dauth_session';
export const CSRF_COOKIE = 'dauth_csrf';

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
    options: { httpOnly: true, sameSite: 'lax' as const, path: secure ? '/' : '/oauth', secure },
  };
}

const str = (maxLength: number) => Type.Optional(Type.String({ maxLength }));

/** Authorization request parameters: the query of GET, the hidden fields of the page's forms. */
const authorizationParamSchema = {
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
};

const AuthorizeQuery = Type.Object(authorizationParamSchema, { additionalProperties: true });
const LoginForm = Type.Object(
  {
    ...authorizationParamSchema,
    csrf_token: str(200),
    email: Type.String({ maxLength: 320 }),
    password: Type.String({ maxLength: 1024 }),
  },
  { additionalProperties: true },
);
const ConsentForm = Type.Object(
  {
    ...authorizationParamSchema,
    csrf_token: str(200),
    decision: Type.Union([Type.Literal('allow'), Type.Literal('deny')]),
  },
  { additionalProperties: true },
);

const LogoutForm = Type.Object(
  { ...authorizationParamSchema, csrf_token: str(200) },
  { additionalProperties: true },
);

const SignupForm = Type.Object(
  {
    ...authorizationParamSchema,
    csrf_token: str(200),
    email: Type.String({ maxLength: 320 }),
    password: Type.String({ maxLength: 1024 }),
  },
  { additionalProperties: true },
);
const ResetRequestForm = Type.Object(
  { ...authorizationParamSchema, csrf_token: str(200), email: Type.String({ maxLength: 320 }) },
  { additionalProperties: true },
);
const ResetConfirmForm = Type.Object(
  {
    ...authorizationParamSchema,
    csrf_token: str(200),
    email: Type.String({ maxLength: 320 }),
    code: Type.String({ maxLength: 32 }),
    new_password: Type.String({ maxLength: 1024 }),
  },
  { additionalProperties: true },
);

type Outcome = { code: string; state?: string | undefined } | { error: string; state?: string | undefined };

/**
 * `GET /oauth/authorize` (spec endpoint 2) and the service's own login-and-consent page.
 *
 * - Bearer login JWT → 302 to the redirect URI with `code` and `state` at once.
 * - Session cookie of this page, app approved before → the same 302 at once.
 * - Otherwise the page: sign in (sets the session cookie), approve, then the redirect (or, in a
 *   popup, the browser messages to the opener).
 */
export async function oauthAuthorizeRoutes(app: App, services: Services): Promise<void> {
  const { clients, oauth, browserSessions, accounts, authenticator } = services;
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
    let cookie = request.cookies[cookies.csrf];
    if (!cookie || cookie.length > 100) {
      cookie = browserSessions.newCsrfCookie();
      void reply.setCookie(cookies.csrf, cookie, cookieOptions);
    }
    return browserSessions.csrfTokenFor(cookie);
  }

  function requireCsrf(request: FastifyRequest, token: string | undefined): void {
    if (!browserSessions.verifyCsrf(request.cookies[cookies.csrf], token)) {
      throw new AppError(
        403,
        'invalid_csrf_token',
        'The form was not sent from the dauth page or has expired; reload it',
      );
    }
  }

  function sendPage(
    reply: FastifyReply,
    status: number,
    nonce: string,
    body: string,
    formTargets: string[] = [],
  ) {
    return reply.status(status).headers(pageHeaders(nonce, formTargets)).send(body);
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

  /** After a sign-in or sign-up on the page: a browser session, then back to the same request. */
  async function signedInBackToAuthorize(reply: FastifyReply, authz: AuthorizationRequest, userUuid: number) {
    reply.request.auditUser = String(userUuid); // the audit entry's actor (auditRecorder.ts)
    const session = await browserSessions.createSession(userUuid);
    void reply.setCookie(cookies.session, session.cookieValue, {
      ...cookieOptions,
      maxAge: session.maxAgeSeconds,
    });
    return backToAuthorize(reply, { ...authz, oidc: afterSignIn(authz.oidc) });
  }

  /** `authTime`: when the user signed in (ms), the OIDC `auth_time` of an `openid` request. */
  async function grantCode(userUuid: number, request: AuthorizationRequest, authTime: number) {
    const { scope, nonce } = request.oidc;
    const { code } = await oauth.issueCode({
      client: request.client,
      userUuid,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      codeChallengeMethod: request.codeChallengeMethod,
      oidc: scope === undefined ? undefined : { scope, nonce, authTime },
    });
    return { code, state: request.state };
  }

  function showLogin(
    request: FastifyRequest,
    reply: FastifyReply,
    authz: AuthorizationRequest,
    status = 200,
    extra: { email?: string; error?: string; notice?: string } = {},
  ) {
    const nonce = newNonce();
    const page = loginPage({
      nonce,
      clientName: authz.client.name,
      csrfToken: csrfFor(request, reply),
      fields: authorizationFields(authz),
      ...extra,
    });
    // The sign-in ends at the app when it is already approved (303 here, then 302 there), and
    // browsers apply form-action to that redirect chain: the app's origin must be allowed too.
    return sendPage(reply, status, nonce, page, [new URL(authz.redirectUri).origin]);
  }

  async function showConsent(
    request: FastifyRequest,
    reply: FastifyReply,
    authz: AuthorizationRequest,
    userUuid: number,
  ) {
    const user = await accounts.findUser(userUuid);
    if (!user) return showLogin(request, reply, authz);
    const nonce = newNonce();
    const redirectOrigin = new URL(authz.redirectUri).origin;
    const page = consentPage({
      nonce,
      clientName: authz.client.name,
      accountEmail: user.email,
      redirectOrigin,
      dapp: authz.client.dapp,
      sharedClaims: disclosedClaims(authz.oidc.scope),
      csrfToken: csrfFor(request, reply),
      fields: authorizationFields(authz),
    });
    return sendPage(reply, 200, nonce, page, [redirectOrigin]);
  }

  app.get(
    '/oauth/authorize',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Authorize (spec endpoint 2): redirect with code and state, or the login-and-consent page',
        description:
          'With `Authorization: Bearer <login JWT>` (or the session cookie of this page for an app the user approved before) the answer is a 302 to `redirect_uri` with `code` and `state`. Otherwise the HTML login-and-consent page. Unknown `client_id` or unregistered `redirect_uri`: 401 `redirect_uri mismatch`, never a redirect. PKCE: `code_challenge` with `code_challenge_method=S256`.',
        querystring: AuthorizeQuery,
        response: errorResponses(400, 401),
      },
      config: { errorStyle: 'oauth' },
    },
    async (request, reply) => {
      const authz = await check(request.query, reply);
      if (!authz) return reply;
      if (request.headers.authorization !== undefined) {
        const token = bearerToken(request);
        if (!token) throw unauthorized('invalid_token', 'Send Authorization: Bearer <login JWT>');
        const claims = await authenticator.authenticate(token, 'login');
        // No page on this path, so `prompt` does not apply; `max_age` is checked against the sign-in
        // that issued the login JWT.
        const { maxAge } = authz.oidc;
        if (maxAge !== undefined && Math.floor(Date.now() / 1000) - claims.iat > maxAge) {
          return finish(reply, authz, { error: 'login_required', state: authz.state }, 302);
        }
        return finish(reply, authz, await grantCode(Number(claims.userId), authz, claims.iat * 1000), 302);
      }
      const session = await browserSessions.sessionOf(request.cookies[cookies.session]);
      const step = nextAuthorizeStep({
        oidc: authz.oidc,
        session,
        consented: session
          ? await browserSessions.hasConsent(session.userUuid, authz.client.clientId)
          : false,
        now: Date.now(),
      });
      if (typeof step === 'object')
        return finish(reply, authz, { error: step.error, state: authz.state }, 302);
      if (step === 'login' || !session) return showLogin(request, reply, authz);
      if (step === 'issue')
        return finish(reply, authz, await grantCode(session.userUuid, authz, session.authTime), 302);
      return showConsent(request, reply, authz, session.userUuid);
    },
  );

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
      config: { errorStyle: 'oauth' },
    },
    async (request, reply) => {
      const authz = await check(request.body, reply);
      if (!authz) return reply;
      requireCsrf(request, request.body.csrf_token);
      let userUuid: number;
      try {
        userUuid = (await accounts.authenticate(request.body.email, request.body.password)).userUuid;
      } catch (err) {
        if (isAppError(err) && err.status === 401) {
          return showLogin(request, reply, authz, 401, {
            email: request.body.email,
            error: 'E-mail or password is wrong.',
          });
        }
        throw err;
      }
      return signedInBackToAuthorize(reply, authz, userUuid);
    },
  );

  app.post(
    '/oauth/authorize/consent',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Consent form of the login-and-consent page: allow or deny, then the redirect',
        body: ConsentForm,
        response: errorResponses(400, 401, 403),
      },
      config: { errorStyle: 'oauth' },
    },
    async (request, reply) => {
      const authz = await check(request.body, reply);
      if (!authz) return reply;
      requireCsrf(request, request.body.csrf_token);
      const session = await browserSessions.sessionOf(request.cookies[cookies.session]);
      if (session === undefined) {
        // The session expired between the two pages: back to sign-in, nothing granted.
        return backToAuthorize(reply, authz);
      }
      if (request.body.decision === 'deny') {
        return finish(reply, authz, { error: 'access_denied', state: authz.state }, 303);
      }
      await browserSessions.recordConsent(session.userUuid, authz.client.clientId);
      return finish(reply, authz, await grantCode(session.userUuid, authz, session.authTime), 303);
    },
  );

  app.post(
    '/oauth/authorize/logout',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Sign-out form of the consent page: ends the page session, then back to the sign-in form',
        body: LogoutForm,
        response: errorResponses(400, 401, 403),
      },
      config: { errorStyle: 'oauth' },
    },
    async (request, reply) => {
      const authz = await check(request.body, reply);
      if (!authz) return reply;
      // CSRF-checked too: a cross-site sign-out is a nuisance, and a forced one could set up a login CSRF.
      requireCsrf(request, request.body.csrf_token);
      await browserSessions.endSession(request.cookies[cookies.session]);
      void reply.clearCookie(cookies.session, cookieOptions);
      return backToAuthorize(reply, authz);
    },
  );

  // ── Sign-up and password reset beside the sign-in form (docs/accounts.md): same CSP and CSRF rules,
  // the authorization request carried in hidden fields, ending back at `GET /oauth/authorize`. ──

  const emailInput = (value?: string): FormInput => ({
    id: 'email',
    label: 'E-mail',
    type: 'email',
    autocomplete: 'username',
    maxlength: 320,
    value,
  });

  function showAccountForm(
    request: FastifyRequest,
    reply: FastifyReply,
    authz: AuthorizationRequest,
    page: 'signup' | 'reset' | 'reset_confirm',
    status = 200,
    extra: { email?: string; error?: string; notice?: string } = {},
  ) {
    const nonce = newNonce();
    const common = {
      nonce,
      clientName: authz.client.name,
      csrfToken: csrfFor(request, reply),
      fields: authorizationFields(authz),
      error: extra.error,
      notice: extra.notice,
    };
    const body =
      page === 'signup'
        ? accountFormPage({
            ...common,
            title: 'Create a dauth account',
            action: '/oauth/authorize/signup',
            inputs: [
              emailInput(extra.email),
              {
                id: 'password',
                label: 'Password (at least 8 characters)',
                type: 'password',
                autocomplete: 'new-password',
                maxlength: 1024,
              },
            ],
            submit: { id: 'sign-up', label: 'Create account' },
          })
        : page === 'reset'
          ? accountFormPage({
              ...common,
              title: 'Reset your password',
              action: '/oauth/authorize/reset',
              inputs: [emailInput(extra.email)],
              submit: { id: 'send-code', label: 'Send reset code' },
            })
          : accountFormPage({
              ...common,
              title: 'Set a new password',
              action: '/oauth/authorize/reset/confirm',
              inputs: [
                emailInput(extra.email),
                {
                  id: 'code',
                  label: 'Code from the e-mail',
                  type: 'text',
                  autocomplete: 'one-time-code',
                  maxlength: 32,
                },
                {
                  id: 'new_password',
                  label: 'New password',
                  type: 'password',
                  autocomplete: 'new-password',
                  maxlength: 1024,
                },
              ],
              submit: { id: 'set-password', label: 'Set new password' },
            });
    return sendPage(reply, status, nonce, body, [new URL(authz.redirectUri).origin]);
  }

  for (const page of ['signup', 'reset'] as const) {
    app.get(
      `/oauth/authorize/${page}`,
      {
        schema: {
          tags: ['oauth'],
          summary:
            page === 'signup'
              ? 'Sign-up form beside the login page; returns to the authorize request'
              : 'Password reset form beside the login page; returns to the authorize request',
          querystring: AuthorizeQuery,
          response: errorResponses(400, 401),
        },
        config: { errorStyle: 'oauth' },
      },
      async (request, reply) => {
        const authz = await check(request.query, reply);
        if (!authz) return reply;
        return showAccountForm(request, reply, authz, page);
      },
    );
  }

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
      config: { errorStyle: 'oauth', rateLimit: routeLimit(services.config.rateLimits, 'register') },
    },
    async (request, reply) => {
      const authz = await check(request.body, reply);
      if (!authz) return reply;
      requireCsrf(request, request.body.csrf_token);
      let userUuid: number;
      try {
        userUuid = (await accounts.register({ email: request.body.email, password: request.body.password }))
          .userUuid;
      } catch (err) {
        if (isAppError(err) && (err.status === 400 || err.status === 409)) {
          return showAccountForm(request, reply, authz, 'signup', err.status, {
            email: request.body.email,
            error: err.message,
          });
        }
        throw err;
      }
      return signedInBackToAuthorize(reply, authz, userUuid);
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
      config: { errorStyle: 'oauth', rateLimit: routeLimit(services.config.rateLimits, 'password_reset') },
    },
    async (request, reply) => {
      const authz = await check(request.body, reply);
      if (!authz) return reply;
      requireCsrf(request, request.body.csrf_token);
      services.passwords.requestReset(request.body.email);
      return showAccountForm(request, reply, authz, 'reset_confirm', 200, {
        email: request.body.email,
        notice: 'If an account uses this address, a code is on its way. Enter it below.',
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
      config: { errorStyle: 'oauth', rateLimit: routeLimit(services.config.rateLimits, 'password_reset') },
    },
    async (request, reply) => {
      const authz = await check(request.body, reply);
      if (!authz) return reply;
      requireCsrf(request, request.body.csrf_token);
      try {
        await services.passwords.reset(request.body.email, request.body.code, request.body.new_password);
      } catch (err) {
        if (isAppError(err) && (err.status === 400 || err.status === 429)) {
          return showAccountForm(request, reply, authz, 'reset_confirm', err.status, {
            email: request.body.email,
            error: err.message,
          });
        }
        throw err;
      }
      return showLogin(request, reply, authz, 200, {
        email: request.body.email,
        notice: 'Your password was changed. Sign in with the new one.',
      });
    },
  );
}
