import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { AppError } from '../../../errors.js';
import { checkAuthorizationRequest } from '../../../services/oauth/authorizationRequest.js';
import {
  CONSOLE_PATH,
  FLOW_TTL_MS,
  FlowFailed,
  type FlowOutcome,
} from '../../../services/federation/federationService.js';
import { routeLimit } from '../../rateLimits.js';
import { requestLocale } from '../../requestLocale.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { requestContextOf } from '../../requestContext.js';
import { authorizePage } from '../oauth/authorize/shared.js';
import { FederatedSignIn, signInBody } from '../devUser/accountSchemas.js';
import { cookieOf } from '../../cookies.js';

/** The flow cookie: the browser binding of a federated flow, sent only to `/v1/federation/*`. */
export const FLOW_COOKIE = 'dauth_federation_flow';
/**
 * The link binder: set by `POST /v1/dev-user/identities/link` on the browser whose console asked for the
 * link; the link ticket's start accepts only that browser (decisions §9). Same path as the flow cookie.
 */
export const LINK_COOKIE = 'dauth_federation_link';
export const FEDERATION_COOKIE_PATH = '/v1/federation';

const ProviderId = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z0-9_-]+$' }),
});

/**
 * Sign in with an upstream provider from a browser (decisions §8, docs/federation.md):
 * - `GET /v1/federation/providers`: the configured providers (anonymous);
 * - `GET /v1/federation/{id}/start?return_to=…`: a 302 to the provider and the flow cookie. `return_to` is
 *   the authorize request the login page shows (`/oauth/authorize?…`) or `/console`; a `link_ticket`
 *   (from `POST /v1/dev-user/identities/link`, valid only with that browser's link cookie; elsewhere the
 *   error page and nothing linked) makes it a link flow back to the console; `reauthenticate`
 *   makes the provider sign the user in again (the console's step-up);
 * - `GET|POST /v1/federation/{id}/callback`: the provider's answer (POST: Apple's `form_post`), checked
 *   against the flow of its `state` and this browser's flow cookie; then the same login-page session a
 *   password sign-in gets and back to the authorize request, or to the console with a one-time login ticket;
 * - `POST /v1/federation/login-ticket`: the console redeems that ticket for a login JWT.
 */
export async function federationRoutes(app: App, services: Services): Promise<void> {
  const { federation, clients } = services;
  const page = authorizePage(services);
  const limit = { rateLimit: routeLimit(services.config.rateLimits, 'federation') };
  const secure = services.config.publicUrl.startsWith('https:');
  const flowCookieOptions = {
    httpOnly: true,
    sameSite: 'lax' as const,
    path: FEDERATION_COOKIE_PATH,
    secure,
  };

  app.get(
    '/v1/federation/providers',
    {
      schema: {
        tags: ['federation'],
        summary: 'The upstream identity providers this service offers ("Continue with …")',
        response: {
          200: Type.Object({
            providers: Type.Array(
              Type.Object({ id: Type.String(), kind: Type.String(), name: Type.String() }),
            ),
          }),
        },
      },
    },
    async () => ({ providers: federation.list() }),
  );

  app.get(
    '/v1/federation/:id/start',
    {
      schema: {
        tags: ['federation'],
        summary:
          'Starts a sign-in with the provider: 302 to it, with an HttpOnly flow cookie binding the flow to this browser',
        params: ProviderId,
        querystring: Type.Object({
          return_to: Type.Optional(Type.String({ maxLength: 16_000 })),
          link_ticket: Type.Optional(Type.String({ maxLength: 200 })),
          reauthenticate: Type.Optional(
            Type.Union([Type.Literal('true'), Type.Literal('false')], {
              description:
                'A step-up: the provider must sign the user in again rather than answer from its own session (oidc: prompt=login, max_age=0 and a fresh auth_time; docs/federation.md, "Step-up")',
            }),
          ),
        }),
        response: errorResponses(400, 404, 429, 503),
      },
      config: { browserPage: true, ...limit },
    },
    async (request, reply) => {
      const { return_to: returnTo, link_ticket: linkTicket, reauthenticate } = request.query;
      if (linkTicket === undefined) await checkReturnTo(returnTo);
      try {
        const { url, cookie } = await federation.start({
          providerId: request.params.id,
          returnTo: returnTo ?? CONSOLE_PATH,
          linkTicket,
          linkBinder: linkTicket === undefined ? undefined : cookieOf(request, LINK_COOKIE),
          reauthenticate: reauthenticate === 'true',
        });
        void reply.setCookie(FLOW_COOKIE, cookie, { ...flowCookieOptions, maxAge: FLOW_TTL_MS / 1000 });
        if (linkTicket !== undefined) void reply.clearCookie(LINK_COOKIE, flowCookieOptions);
        void reply.header('cache-control', 'no-store');
        return reply.redirect(url.toString(), 302);
      } catch (err) {
        return failed(reply, err);
      }
    },
  );

  app.get(
    '/v1/federation/:id/callback',
    {
      schema: {
        tags: ['federation'],
        summary:
          "The provider's answer: checked against the flow's state and this browser's flow cookie, then signed in (or linked)",
        params: ProviderId,
        querystring: Type.Object({}, { additionalProperties: true }),
        response: errorResponses(400, 401, 404, 409, 429, 503),
      },
      config: { browserPage: true, ...limit },
    },
    async (request, reply) => {
      void reply.clearCookie(FLOW_COOKIE, flowCookieOptions);
      void reply.header('cache-control', 'no-store');
      let outcome: FlowOutcome;
      try {
        outcome = await federation.complete({
          providerId: request.params.id,
          params: new URL(request.url, 'http://callback.invalid').searchParams,
          cookie: cookieOf(request, FLOW_COOKIE),
          locale: requestLocale(request),
        });
      } catch (err) {
        return failed(reply, err);
      }
      return finished(request, reply, outcome);
    },
  );

  // Apple's `response_mode=form_post` answers with a cross-site POST, which carries no SameSite=Lax
  // cookie; a 303 to the GET callback with the same parameters is a top-level GET, which does.
  app.post(
    '/v1/federation/:id/callback',
    {
      schema: {
        tags: ['federation'],
        summary: "The provider's form_post answer: 303 to the GET callback with the same parameters",
        params: ProviderId,
        body: Type.Record(Type.String(), Type.Unknown()),
        response: errorResponses(400, 429),
      },
      config: { browserPage: true, ...limit },
    },
    async (request, reply) => {
      const query = new URLSearchParams();
      for (const [key, value] of Object.entries(request.body)) {
        if (typeof value === 'string') query.set(key, value);
      }
      return reply.redirect(`/v1/federation/${request.params.id}/callback?${query.toString()}`, 303);
    },
  );

  app.post(
    '/v1/federation/login-ticket',
    {
      schema: {
        tags: ['federation'],
        summary:
          "The console's one-time login ticket (60 s, from a federated sign-in) for a login JWT bound to the console",
        body: Type.Object({ ticket: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: {
          200: FederatedSignIn,
          ...errorResponses(400, 401, 429),
        },
      },
      config: limit,
    },
    async (request, reply) => {
      void reply.header('cache-control', 'no-store');
      const session = await federation.redeemConsoleTicket(request.body.ticket);
      if (!session.mfaRequired) request.auditUser = session.uuid;
      return signInBody(session, { created: session.created });
    },
  );

  /** `/console`, or an authorize request of a registered app (the login page's own URL). */
  async function checkReturnTo(returnTo: string | undefined): Promise<void> {
    const refuse = () => {
      throw new AppError(
        400,
        'invalid_request',
        'return_to must be /console or the /oauth/authorize request',
        {
          field: 'return_to',
        },
      );
    };
    if (returnTo === CONSOLE_PATH) return;
    if (returnTo === undefined || !returnTo.startsWith('/oauth/authorize?')) return refuse();
    const params = authorizeParams(returnTo);
    if (!params.client_id || !params.redirect_uri) return refuse();
    const check = await checkAuthorizationRequest(clients, params);
    if (check.kind !== 'ok') refuse();
  }

  async function finished(request: FastifyRequest, reply: FastifyReply, outcome: FlowOutcome) {
    if (outcome.kind === 'linked') {
      request.auditUser = String(outcome.userUuid);
      services.security.notify(
        outcome.userUuid,
        { kind: 'identity_linked', provider: outcome.provider },
        requestContextOf(request),
      );
      return reply.redirect(`${CONSOLE_PATH}#identity_linked=${encodeURIComponent(outcome.provider)}`, 302);
    }
    if (outcome.returnTo === CONSOLE_PATH) {
      request.auditUser = String(outcome.userUuid);
      const ticket = await federation.consoleTicket(outcome.userUuid, outcome.created, outcome.authTime);
      return reply.redirect(`${CONSOLE_PATH}#login_ticket=${ticket}`, 302);
    }
    // Back into the authorize request the login page showed, signed in like a password sign-in: an
    // account with TOTP gets the code step first. The session's auth_time is the upstream's (seconds; 0 =
    // never proven), not now: a silent upstream sign-in must not give the app a fresh one (docs/federation.md).
    const authz = await page.check(authorizeParams(outcome.returnTo), reply);
    if (!authz) return reply;
    return page.afterFirstFactor(request, reply, authz, {
      userUuid: outcome.userUuid,
      authTime: outcome.authTime * 1000,
      amr: ['fed'],
    });
  }

  /** A failed console flow goes back to the console with the code; any other shows the error page. */
  function failed(reply: FastifyReply, err: unknown) {
    if (!(err instanceof FlowFailed)) throw err;
    if (err.returnTo === CONSOLE_PATH) {
      return reply.redirect(`${CONSOLE_PATH}#federation_error=${encodeURIComponent(err.error.code)}`, 302);
    }
    throw err.error;
  }
}

/** The authorization request's parameters from the login page's URL. */
function authorizeParams(returnTo: string) {
  const query = new URL(returnTo, 'http://return.invalid').searchParams;
  const params: Record<string, string> = {};
  for (const [key, value] of query) params[key] = value;
  return params as { client_id: string; redirect_uri: string } & Record<string, string>;
}
