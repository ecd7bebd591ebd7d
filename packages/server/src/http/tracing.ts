import {
  type Context,
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { tracer } from '../observability/spans.js';
import type { App } from './types.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's span and the context it is active in (installRequestTracing; tracing on only). */
    tracing?: { span: Span; context: Context };
  }
}

/**
 * One SERVER span per request (docs/operations.md, "Traces"), installed only with tracing on: named by the
 * route template, continuing the caller's W3C `traceparent`, with the route, the answer's status, and the
 * client and user the request acted for (ids only, never a token or a body). Everything the request does
 * (its hooks, the handler, the database statements and chain calls under them) runs with the span active.
 *
 * Fastify parses the body from the socket's events, which run outside the request's async context, so the
 * context is entered twice: at `onRequest` (the hooks before the body) and again at `preValidation`, the
 * first root hook after it (the route's own hooks and the handler then run inside it).
 */
export function installRequestTracing(app: App): void {
  const enter = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    if (request.tracing) context.with(request.tracing.context, done);
    else done();
  };
  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    const parent = propagation.extract(context.active(), request.headers);
    const span = tracer().startSpan(
      route ? `${request.method} ${route}` : request.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          ...(route ? { 'http.route': route } : {}),
          'url.scheme': request.protocol,
          'url.path': request.url.split('?', 1)[0]!,
        },
      },
      parent,
    );
    request.tracing = { span, context: trace.setSpan(parent, span) };
    enter(request, _reply, done);
  });
  app.addHook('preValidation', enter);
  app.addHook('onResponse', (request, reply, done) => {
    finish(request, reply.statusCode);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    request.tracing?.span.setAttribute('http.request.aborted', true);
    finish(request, 499);
    done();
  });
}

function finish(request: FastifyRequest, status: number): void {
  const span = request.tracing?.span;
  if (!span?.isRecording()) return;
  span.setAttribute('http.response.status_code', status);
  const auth = request.auth;
  if (auth) span.setAttribute('user.id', auth.userId);
  const clientId =
    auth?.clientId ?? auth?.azp ?? fieldOf(request.body, 'client_id') ?? fieldOf(request.query, 'client_id');
  if (clientId) span.setAttribute('dauth.client_id', clientId);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** A string field of a parsed body or query (the `client_id` an OAuth request names), else undefined. */
function fieldOf(source: unknown, name: string): string | undefined {
  if (typeof source !== 'object' || source === null) return undefined;
  const value = (source as Record<string, unknown>)[name];
  return typeof value === 'string' && value.length <= 200 ? value : undefined;
}
