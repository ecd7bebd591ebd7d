import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
} from 'fastify';
import { AppError, isAppError } from '../errors.js';
import { errorPage } from './pages/errorPage.js';
import { newNonce, pageHeaders, prefersHtml } from './pages/html.js';
import { pageTranslator } from './pages/pageLocale.js';
import { methodsOf, runFirstOnRequest } from './routeHooks.js';

/**
 * How a route family renders errors. `default`: decisions §2. `oauth`: the same plus RFC 6749
 * §5.2 `error_description`. `envelope`: the backend-integration `{code, message, data}` envelope.
 */
export type ErrorStyle = 'default' | 'oauth' | 'envelope';

declare module 'fastify' {
  interface FastifyContextConfig {
    errorStyle?: ErrorStyle;
    /** A page a browser opens (the sign-in pages): errors go to a browser as an HTML page. */
    browserPage?: boolean;
  }
}

/** A body of another type where the route takes JSON, e.g. `curl -d '{…}'` without its header. */
export const jsonBodyRequired = (): AppError =>
  new AppError(
    415,
    'unsupported_media_type',
    'This endpoint takes a JSON body: send it with Content-Type: application/json',
  );

/** What `curl -d` (a form) and `fetch` with a string body (text/plain) send when the JSON header is left off. */
const TYPES_MISTAKEN_FOR_JSON = new Set(['application/x-www-form-urlencoded', 'text/plain']);

/** Methods whose body Fastify never reads (its `bodyless` set). */
const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'TRACE']);

/** An upstream identity provider's form_post answer (Apple) to `POST /v1/federation/{id}/callback`. */
const FEDERATION_CALLBACK = /^\/v1\/federation\/[^/?#]+\/callback(?:\?|$)/;

/** The security mail's and the sign-up mail's confirm pages post their forms there (docs/security.md). */
const CONFIRM_PAGES = /^(?:\/account\/secure|\/v1\/dev-user\/verify-email\/confirm)(?:\?|$)/;

/**
 * Form bodies belong to the OAuth and OpenID Connect endpoints and the sign-in pages, all under `/oauth/`
 * (RFC 6749 and its extensions post forms), to the federation callback (`response_mode=form_post`,
 * docs/federation.md) and to the confirm pages of mailed links (`/account/secure`, the sign-up mail's
 * `/v1/dev-user/verify-email/confirm`). Elsewhere a form or plain-text body is a JSON body sent without
 * its Content-Type — what `curl -d` does — and is refused with a 415 that says so, before anything parses it
 * (Fastify would otherwise parse it and answer a puzzling 400 about missing fields).
 *
 * The check is the first `onRequest` hook of each route that takes a body and is none of those (decided by
 * the matched route's path, once, as routes are added), not a root hook: GET routes, token validation among
 * them, never read a body, and a request with no route has none to parse either.
 */
export function refuseFormBodiesOutsideOAuth(app: FastifyInstance): void {
  // A callback hook, not an async one: a request without a body passes at once, without a promise.
  const refuseFormBody = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const header = request.headers['content-type'];
    if (header === undefined) return done();
    const type = header.split(';')[0]?.trim().toLowerCase();
    if (type !== undefined && TYPES_MISTAKEN_FOR_JSON.has(type)) return done(jsonBodyRequired());
    done();
  };
  app.addHook('onRoute', (route) => {
    if (!methodsOf(route).some((method) => !BODYLESS_METHODS.has(method))) return;
    if (
      route.url.startsWith('/oauth/') ||
      FEDERATION_CALLBACK.test(route.url) ||
      CONFIRM_PAGES.test(route.url)
    )
      return;
    runFirstOnRequest(route, refuseFormBody);
  });
}

/** Turns anything thrown into an `AppError` whose message is safe to show. */
export function toAppError(error: unknown): AppError {
  if (isAppError(error)) return error;
  const e = error as FastifyError & {
    validation?: { instancePath?: string; params?: Record<string, unknown> }[];
  };
  if (e.validation) {
    const first = e.validation[0] as {
      instancePath?: string;
      message?: string;
      params?: Record<string, unknown>;
    };
    const missing = first?.params?.missingProperty as string | undefined;
    const pathField = first?.instancePath?.replace(/^\//, '').replace(/\//g, '.');
    const field = missing ?? (pathField || e.validationContext || 'body');
    const reason = missing ? 'is required' : (first?.message ?? 'is invalid');
    return new AppError(400, 'invalid_request', `${field} ${reason}`, { field });
  }
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError(413, 'payload_too_large', 'The request body is larger than 1 MiB');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return jsonBodyRequired();
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError(400, 'invalid_request', 'The JSON body is empty', { field: 'body' });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError(400, 'invalid_json', 'The body is not valid JSON');
  }
  if (e.statusCode === 429) return new AppError(429, 'rate_limited', 'Too many requests, slow down');
  if (e instanceof SyntaxError && e.statusCode === 400) {
    return new AppError(400, 'invalid_json', 'The body is not valid JSON');
  }
  if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
    return new AppError(e.statusCode, 'bad_request', 'The request could not be processed');
  }
  return new AppError(500, 'internal_error', 'Something went wrong on our side');
}

export function renderError(style: ErrorStyle, err: AppError): Record<string, unknown> {
  if (style === 'envelope') {
    const envelopeCode =
      typeof err.details?.envelopeCode === 'number' ? err.details.envelopeCode : err.status;
    return { code: envelopeCode, message: err.message, data: [] };
  }
  const { envelopeCode: _ignored, ...details } = err.details ?? {};
  const body: Record<string, unknown> = { success: false, error: err.code, message: err.message, ...details };
  if (style === 'oauth') body.error_description = err.message;
  return body;
}

/**
 * Errors Fastify raises before routing (an over-long path parameter, a malformed URL) would
 * otherwise be sent in Fastify's own shape; `buildApp` passes this as `frameworkErrors`.
 */
export function renderFrameworkError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const appError = toAppError(error);
  void reply.status(appError.status).send(renderError(styleFor(request.url), appError));
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error);
    if (appError.status >= 500 && !isAppError(error)) {
      request.log.error({ err: error }, 'unhandled error');
    }
    const style = request.routeOptions.config?.errorStyle ?? styleFor(request.url);
    if (appError.status === 401 && style === 'oauth' && appError.code === 'invalid_client') {
      reply.header('WWW-Authenticate', 'Basic realm="dauth"');
    }
    if ((appError.status === 429 || appError.status === 503) && appError.details?.retryAfterSeconds) {
      reply.header('Retry-After', String(appError.details.retryAfterSeconds));
    }
    if (request.routeOptions.config?.browserPage === true && prefersHtml(request.headers.accept)) {
      const nonce = newNonce();
      const page = errorPage({
        translator: pageTranslator(request, flowUiLocales(request)),
        nonce,
        status: appError.status,
        code: appError.code,
        message: appError.message,
      });
      return reply.status(appError.status).headers(pageHeaders(nonce)).send(page);
    }
    void reply.status(appError.status).send(renderError(style, appError));
  });
  app.setNotFoundHandler((request, reply) => {
    const err = new AppError(404, 'not_found', `No route for ${request.method} ${request.url.split('?')[0]}`);
    void reply.status(404).send(renderError(styleFor(request.url), err));
  });
}

/** The flow's `ui_locales` when the failed request carried one: a GET's query, or a form's hidden field. */
function flowUiLocales(request: FastifyRequest): string | undefined {
  for (const source of [request.query, request.body]) {
    if (source === null || typeof source !== 'object') continue;
    const value = (source as Record<string, unknown>).ui_locales;
    if (typeof value === 'string' && value.length <= 200) return value;
  }
  return undefined;
}

/** Fallback when a request never reached a route (404, body parse errors before routing). */
function styleFor(url: string): ErrorStyle {
  if (url.startsWith('/v1/oauth-meta/')) return 'envelope';
  if (url.startsWith('/oauth/')) return 'oauth';
  return 'default';
}
