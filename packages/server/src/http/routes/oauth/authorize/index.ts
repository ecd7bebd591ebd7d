import type { Services } from '../../../../composition/index.js';
import { unauthorized } from '../../../../errors.js';
import { bearerMayAuthorize } from '../../../../services/oauth/loginBinding.js';
import { isMultiFactor } from '../../../../services/oidc/authenticationContext.js';
import { nextAuthorizeStep } from '../../../../services/oidc/authorizationPrompt.js';
import { bearerToken } from '../../../adminAuth.js';
import { routeLimit } from '../../../rateLimits.js';
import { errorResponses } from '../../../schemas.js';
import type { App } from '../../../types.js';
import { consentRoutes, showConsent } from './consent.js';
import { loginRoutes } from './login.js';
import { passkeyLoginRoutes } from './passkey.js';
import { logoutRoutes } from './logout.js';
import { resetRoutes } from './reset.js';
import { mfaPageRoutes } from './mfa.js';
import { requestContextOf } from '../../../requestContext.js';
import { AuthorizeQuery, authorizePage, needsMfa } from './shared.js';
import { signupRoutes } from './signup.js';
import { cookieOf } from '../../../cookies.js';

export { browserCookies, CSRF_COOKIE, SESSION_COOKIE } from './shared.js';

/**
 * `GET /oauth/authorize` (spec endpoint 2) and the service's own login-and-consent page.
 *
 * - Bearer login JWT → 302 to the redirect URI with `code` and `state` at once, when the login is
 *   bound to this app, or the request is plain OAuth under LOGIN_BINDING=spec, or the user approved
 *   the app for these scopes; otherwise `error=consent_required` (`bearerMayAuthorize`).
 * - Session cookie of this page, app approved before for these scopes → the same 302 at once.
 * - Otherwise the page: sign in (sets the session cookie), approve, then the redirect (or, in a
 *   popup, the browser messages to the opener).
 *
 * The page's forms are the modules beside this one, one per URL under `/oauth/authorize/`.
 */
export async function oauthAuthorizeRoutes(app: App, services: Services): Promise<void> {
  const { browserSessions, authenticator } = services;
  const page = authorizePage(services);
  const { check, cookies, finish, grantCode, showLogin } = page;

  app.get(
    '/oauth/authorize',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Authorize: redirect with code and state, or the login-and-consent page',
        description:
          'With `Authorization: Bearer <login JWT>` (or the session cookie of this page for an app the user approved before) the answer is a 302 to `redirect_uri` with `code` and `state`. Otherwise the HTML login-and-consent page. Unknown `client_id` or unregistered `redirect_uri`: 401 `redirect_uri mismatch`, never a redirect. PKCE: `code_challenge` with `code_challenge_method=S256`.',
        querystring: AuthorizeQuery,
        response: errorResponses(400, 401, 429),
      },
      config: {
        errorStyle: 'oauth',
        browserPage: true,
        rateLimit: routeLimit(services.config.rateLimits, 'authorize'),
      },
    },
    async (request, reply) => {
      const authz = await check(request.query, reply);
      if (!authz) return reply;
      if (request.headers.authorization !== undefined) {
        const token = bearerToken(request);
        if (!token) throw unauthorized('invalid_token', 'Send Authorization: Bearer <login JWT>');
        const claims = await authenticator.authenticate(token, 'login');
        // Login binding (docs/security.md): another app's JWT → 401 `client_mismatch`; an unbound one
        // signs the user in to an OpenID app (any app under LOGIN_BINDING=strict) only with consent.
        const clientId = authz.client.clientId;
        const allowed = await bearerMayAuthorize({
          claims,
          clientId,
          scope: authz.oidc.scope,
          mode: services.config.loginBinding,
          consented: () => browserSessions.hasConsent(Number(claims.userId), clientId, authz.oidc.scope),
        });
        if (!allowed) return finish(reply, authz, { error: 'consent_required', state: authz.state }, 302);
        // No page on this path, so `prompt` does not apply; `max_age` is checked against when the person
        // proved a credential (`auth_time`), not when the JWT was issued: a federated JWT carries the
        // upstream's, possibly 0 (never proven). A password JWT's equals its iat.
        const { maxAge } = authz.oidc;
        const authTime = claims.authTime ?? claims.iat;
        if (maxAge !== undefined && Math.floor(Date.now() / 1000) - authTime > maxAge) {
          return finish(reply, authz, { error: 'login_required', state: authz.state }, 302);
        }
        // Two factors asked for (require_mfa, acr_values=mfa): the login JWT's own amr must say so.
        if (needsMfa(authz) && !isMultiFactor(claims.amr)) {
          return finish(reply, authz, { error: 'interaction_required', state: authz.state }, 302);
        }
        const code = await grantCode(
          Number(claims.userId),
          authz,
          authTime * 1000,
          claims.amr,
          requestContextOf(request),
        );
        return finish(reply, authz, code, 302);
      }
      const session = await browserSessions.sessionOf(cookieOf(request, cookies.session));
      const step = nextAuthorizeStep({
        oidc: authz.oidc,
        session,
        consented: session
          ? await browserSessions.hasConsent(session.userUuid, authz.client.clientId, authz.oidc.scope)
          : false,
        now: Date.now(),
      });
      if (typeof step === 'object')
        return finish(reply, authz, { error: step.error, state: authz.state }, 302);
      if (step === 'login' || !session) return showLogin(request, reply, authz);
      // Two factors asked for and the session's sign-in was one: the code (or an enrolment) first.
      if (needsMfa(authz) && !isMultiFactor(session.amr)) {
        if (authz.oidc.prompt.includes('none')) {
          return finish(reply, authz, { error: 'interaction_required', state: authz.state }, 302);
        }
        return page.stepUp(request, reply, authz, session);
      }
      if (step === 'issue') {
        const code = await grantCode(
          session.userUuid,
          authz,
          session.authTime,
          session.amr,
          requestContextOf(request),
        );
        return finish(reply, authz, code, 302);
      }
      return showConsent(page, request, reply, authz, session.userUuid);
    },
  );

  await loginRoutes(app, page);
  await passkeyLoginRoutes(app, page);
  await mfaPageRoutes(app, page);
  await consentRoutes(app, page);
  await logoutRoutes(app, page);
  await signupRoutes(app, page);
  await resetRoutes(app, page);
}
