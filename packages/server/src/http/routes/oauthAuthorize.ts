import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../composition.js';
import { AppError, isAppError, unauthorized } from '../../errors.js';
import {
  type AuthorizationParams,
  type AuthorizationRequest,
  authorizationFields,
  checkAuthorizationRequest,
  redirectWith,
} from '../../services/oauth/authorizationRequest.js';
import { redirectUriMismatch } from '../../services/oauth/oauthErrors.js';
import { bearerToken } from '../adminAuth.js';
import { completionPage, consentPage, loginPage } from '../pages/authorizePages.js';
import { newNonce, pageHeaders } from '../pages/html.js';
import { errorResponses } from '../schemas.js';
import type { App } from '../types.js';

export const SESSION_COOKIE = 'dauth_session';
export const CSRF_COOKIE = 'dauth_csrf';

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
  const secureCookies = services.config.publicUrl.startsWith('https:');
  const cookieOptions = { httpOnly: true, sameSite: 'lax' as const, path: '/oauth', secure: secureCookies };

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
    let cookie = request.cookies[CSRF_COOKIE];
    if (!cookie || cookie.length > 100) {
      cookie = browserSessions.newCsrfCookie();
      void reply.setCookie(CSRF_COOKIE, cookie, cookieOptions);
    }
    return browserSessions.csrfTokenFor(cookie);
  }

  function requireCsrf(request: FastifyRequest, token: string | undefined): void {
    if (!browserSessions.verifyCsrf(request.cookies[CSRF_COOKIE], token)) {
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

  async function grantCode(userUuid: number, request: AuthorizationRequest) {
    const { code } = await oauth.issueCode({
      client: request.client,
      userUuid,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      codeChallengeMethod: request.codeChallengeMethod,
    });
    return { code, state: request.state };
  }

  function showLogin(
    request: FastifyRequest,
    reply: FastifyReply,
    authz: AuthorizationRequest,
    status = 200,
    extra: { email?: string; error?: string } = {},
  ) {
    const nonce = newNonce();
    const page = loginPage({
      nonce,
      clientName: authz.client.name,
      csrfToken: csrfFor(request, reply),
      fields: authorizationFields(authz),
      ...extra,
    });
    return sendPage(reply, status, nonce, page);
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
        return finish(reply, authz, await grantCode(Number(claims.userId), authz), 302);
      }
      const userUuid = await browserSessions.userOfSession(request.cookies[SESSION_COOKIE]);
      if (userUuid === undefined) return showLogin(request, reply, authz);
      if (await browserSessions.hasConsent(userUuid, authz.client.clientId)) {
        return finish(reply, authz, await grantCode(userUuid, authz), 302);
      }
      return showConsent(request, reply, authz, userUuid);
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
      const session = await browserSessions.createSession(userUuid);
      void reply.setCookie(SESSION_COOKIE, session.cookieValue, {
        ...cookieOptions,
        maxAge: session.maxAgeSeconds,
      });
      return backToAuthorize(reply, authz);
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
      const userUuid = await browserSessions.userOfSession(request.cookies[SESSION_COOKIE]);
      if (userUuid === undefined) {
        // The session expired between the two pages: back to sign-in, nothing granted.
        return backToAuthorize(reply, authz);
      }
      if (request.body.decision === 'deny') {
        return finish(reply, authz, { error: 'access_denied', state: authz.state }, 303);
      }
      await browserSessions.recordConsent(userUuid, authz.client.clientId);
      return finish(reply, authz, await grantCode(userUuid, authz), 303);
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
      await browserSessions.endSession(request.cookies[SESSION_COOKIE]);
      void reply.clearCookie(SESSION_COOKIE, cookieOptions);
      return backToAuthorize(reply, authz);
    },
  );
}
