import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { AppError } from '../../../errors.js';
import { END_SESSION_PATH } from '../../../services/oidc/discovery.js';
import type { EndSessionParams, EndSessionRequest } from '../../../services/oidc/endSessionService.js';
import { newNonce, pageHeaders } from '../../pages/html.js';
import { loggedOutPage, logoutConfirmPage } from '../../pages/logoutPages.js';
import { pageTranslator } from '../../pages/pageLocale.js';
import { routeLimit } from '../../rateLimits.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { browserCookies } from '../oauth/authorize/shared.js';
import { optionalString as str } from '../oauth/clientEndpoint.js';
import { uiLocalesOf } from '../../../services/oauth/authorizationRequest.js';
import { cookieOf } from '../../cookies.js';

const endSessionParams = {
  id_token_hint: str(8192),
  client_id: str(200),
  post_logout_redirect_uri: str(2000),
  state: str(2048),
  // RP-Initiated Logout 1.0 §2: the pages' language, as on the authorize request (decisions §9).
  ui_locales: str(1000),
};
const EndSessionQuery = Type.Object(endSessionParams, { additionalProperties: true });
const ConfirmForm = Type.Object(
  {
    client_id: str(200),
    post_logout_redirect_uri: str(2000),
    state: str(2048),
    ui_locales: str(1000),
    csrf_token: str(200),
  },
  { additionalProperties: true },
);

/**
 * RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0) at `GET`/`POST /oauth/end_session`.
 * With a valid `id_token_hint` the user is signed out at once; without one a confirmation page
 * (CSRF-protected form to `/oauth/end_session/confirm`) stands between any site and the logout.
 */
export async function endSessionRoutes(app: App, services: Services): Promise<void> {
  const { oidc, browserSessions } = services;
  // The login page's own cookies (`__Host-` prefixed over https), so signing out ends that session.
  const cookies = browserCookies(services.config.publicUrl);
  const cookieOptions = cookies.options;

  function csrfFor(request: FastifyRequest, reply: FastifyReply): string {
    let cookie = cookieOf(request, cookies.csrf);
    if (!cookie || cookie.length > 100) {
      cookie = browserSessions.newCsrfCookie();
      void reply.setCookie(cookies.csrf, cookie, cookieOptions);
    }
    return browserSessions.csrfTokenFor(cookie);
  }

  const targets = (checked: EndSessionRequest) =>
    checked.redirectTo ? [new URL(checked.redirectTo).origin] : [];

  async function signOut(
    request: FastifyRequest,
    reply: FastifyReply,
    checked: EndSessionRequest,
    status: 302 | 303,
    uiLocales: string | undefined,
  ) {
    const { sessionEnded } = await oidc.endSession.signOut({
      request: checked,
      sessionCookie: cookieOf(request, cookies.session),
    });
    if (sessionEnded) void reply.clearCookie(cookies.session, cookieOptions);
    if (checked.redirectTo) return reply.redirect(checked.redirectTo, status);
    const nonce = newNonce();
    const page = loggedOutPage(pageTranslator(request, uiLocales), nonce);
    return reply.status(200).headers(pageHeaders(nonce)).send(page);
  }

  async function endSession(
    params: EndSessionParams & { ui_locales?: string | undefined },
    request: FastifyRequest,
    reply: FastifyReply,
  ) {
    const checked = await oidc.endSession.check(params);
    const uiLocales = uiLocalesOf(params.ui_locales);
    if (checked.hintUserId !== undefined) return signOut(request, reply, checked, 302, uiLocales);
    const fields: Record<string, string> = {};
    for (const name of ['client_id', 'post_logout_redirect_uri', 'state'] as const) {
      const value = params[name];
      if (value !== undefined) fields[name] = value;
    }
    // A hint too old to act on still named the app: the confirmation form carries it on.
    if (fields.client_id === undefined && checked.client) fields.client_id = checked.client.clientId;
    if (uiLocales !== undefined) fields.ui_locales = uiLocales;
    const nonce = newNonce();
    const page = logoutConfirmPage({
      translator: pageTranslator(request, uiLocales),
      // The same request without the hint (too old to act on anyway): it shows this confirmation again.
      returnTo: `${END_SESSION_PATH}?${new URLSearchParams(fields).toString()}`,
      nonce,
      csrfToken: csrfFor(request, reply),
      clientName: checked.client?.name,
      fields,
    });
    return reply
      .status(200)
      .headers(pageHeaders(nonce, targets(checked)))
      .send(page);
  }

  const schema = {
    tags: ['oidc'],
    summary: 'RP-initiated logout: ends the dauth browser session and sets the login status logged_out',
    description:
      '`id_token_hint` (an ID token dauth issued, expired ones accepted; one issued more than 24 hours ago names the app but not the user, so the user confirms), `post_logout_redirect_uri` (registered for the app, exact match), `state` (returned unchanged). Without `id_token_hint` the user confirms on a page first.',
  };
  // One bucket per address for the three (RATE_LIMITS `end_session`).
  const limit = routeLimit(services.config.rateLimits, 'end_session');
  app.get(
    END_SESSION_PATH,
    {
      schema: { ...schema, querystring: EndSessionQuery, response: errorResponses(400, 429) },
      config: { errorStyle: 'oauth', browserPage: true, rateLimit: limit },
    },
    (request, reply) => endSession(request.query, request, reply),
  );
  app.post(
    END_SESSION_PATH,
    {
      schema: { ...schema, body: EndSessionQuery, response: errorResponses(400, 429) },
      config: { errorStyle: 'oauth', browserPage: true, rateLimit: limit },
    },
    (request, reply) => endSession(request.body, request, reply),
  );
  app.post(
    `${END_SESSION_PATH}/confirm`,
    {
      schema: {
        tags: ['oidc'],
        summary: 'The logout confirmation form (CSRF-protected)',
        body: ConfirmForm,
        response: errorResponses(400, 403, 429),
      },
      config: { errorStyle: 'oauth', browserPage: true, rateLimit: limit },
    },
    async (request, reply) => {
      if (!browserSessions.verifyCsrf(cookieOf(request, cookies.csrf), request.body.csrf_token)) {
        throw new AppError(
          403,
          'invalid_csrf_token',
          'The form was not sent from the dauth page or has expired; reload it',
        );
      }
      const { client_id, post_logout_redirect_uri, state, ui_locales } = request.body;
      const checked = await oidc.endSession.check({ client_id, post_logout_redirect_uri, state });
      return signOut(request, reply, checked, 303, uiLocalesOf(ui_locales));
    },
  );
}
