import {
  type Attributes,
  context,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  SpanKind,
  type SpanOptions,
  SpanStatusCode,
  trace,
  TraceFlags,
} from '@opentelemetry/api';

/**
 * The spans of dauth's own work, over the `@opentelemetry/api` facade only: any layer may import this file
 * (it constructs nothing). With tracing off (no OTEL_* endpoint) the API's no-op tracer answers every call;
 * the SDK is set up by `observability/tracing.ts` from the composition root.
 */

export { SpanKind };
export type { Link, Span, SpanContext };

/** The tracer of the service's own spans (looked up each time: tests start and stop providers). */
export const tracer = () => trace.getTracer('dauth');

/**
 * Runs `fn` inside a new span of its own trace, or under `parent` (a span context carried with a queued
 * item, possibly of another process's request): background work is never the child of whatever request
 * happened to start its loop.
 */
export function inSpanUnder<T>(
  parent: SpanContext | undefined,
  name: string,
  options: SpanOptions,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const ctx = parent ? trace.setSpanContext(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
  return tracer().startActiveSpan(name, options, ctx, (span) => run(span, fn));
}

/** `fn` bound to the active context: an event listener (a socket's `close`) then runs inside it. */
export function bound<F extends (...args: never[]) => unknown>(fn: F): F {
  return context.bind(context.active(), fn);
}

async function run<T>(span: Span, fn: (span: Span) => Promise<T>): Promise<T> {
  try {
    return await fn(span);
  } catch (err) {
    failed(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/**
 * Runs `fn` inside a new active span: its children (database statements, RPC calls) nest under it; a throw
 * marks the span as an error (its message, never an argument) and is rethrown; the span ends either way.
 */
export function inSpan<T>(name: string, options: SpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(name, options, (span) => run(span, fn));
}

/** Marks a span as failed with the error's name and message (never a stack or an argument). */
export function failed(span: Span, err: unknown): void {
  const name = err instanceof Error ? err.name : 'Error';
  const message = err instanceof Error ? err.message : String(err);
  span.setStatus({ code: SpanStatusCode.ERROR, message: `${name}: ${message}`.slice(0, 300) });
  span.setAttribute('error.type', (err as { code?: unknown }).code?.toString() ?? name);
}

/** Whether a span is active (and recording): a background loop's statements are traced only under one. */
export function activeSpan(): Span | undefined {
  const span = trace.getSpan(context.active());
  return span?.isRecording() ? span : undefined;
}

/**
 * The active span as a link, to carry with a queued item (an operation waiting for a bundle, a consumption
 * record waiting for its batch, a journal entry): the background trace that later handles it links back to
 * the request that fed it. Undefined with tracing off or outside a span.
 */
export function currentLink(): Link | undefined {
  const span = activeSpan();
  return span ? { context: span.spanContext() } : undefined;
}

/** Links of the queued items a background span handles (at most 128, once each). */
export function linksOf(links: Iterable<Link | undefined>): Link[] {
  const seen = new Set<string>();
  const out: Link[] = [];
  for (const link of links) {
    if (!link || out.length >= 128) continue;
    const key = `${link.context.traceId}/${link.context.spanId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(link);
  }
  return out;
}

/**
 * The W3C `traceparent` (and `tracestate`) of the active span, added to the headers of an outgoing request
 * (a webhook delivery, a backend callback): the receiver continues the same trace. Nothing with tracing off.
 */
export function withTraceHeaders(headers: Record<string, string>): Record<string, string> {
  propagation.inject(context.active(), headers);
  return headers;
}

/**
 * An outgoing HTTP call as a CLIENT span whose `traceparent` the callee receives: `send` gets the headers
 * to add. Attributes name the method and the URL's origin and path (never its query, which may hold a code).
 */
export function clientCall<T>(
  name: string,
  target: { method: string; url: string },
  attributes: Attributes,
  send: (traceHeaders: Record<string, string>) => Promise<T>,
): Promise<T> {
  // Outside a sampled trace (tracing off: always): no span of its own and no URL parsed for attributes
  // nobody records; the caller's context, if any, still goes out in the headers. The trace's span may have
  // ended already (a backend callback leaves after its request's answer), so its flags decide, not
  // `isRecording()`.
  const parent = trace.getSpanContext(context.active());
  if (!parent || (parent.traceFlags & TraceFlags.SAMPLED) === 0) return send(withTraceHeaders({}));
  let where: Attributes = {};
  try {
    const url = new URL(target.url);
    where = {
      'server.address': url.hostname,
      'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
      'url.full': `${url.origin}${url.pathname}`,
    };
  } catch {
    // An invalid URL fails in `send`; the span still records it.
  }
  return inSpan(
    name,
    { kind: SpanKind.CLIENT, attributes: { 'http.request.method': target.method, ...where, ...attributes } },
    (span) =>
      send(withTraceHeaders({})).then((answer) => {
        const status =
          typeof answer === 'number' ? answer : (answer as { status?: unknown } | undefined)?.status;
        if (typeof status === 'number') span.setAttribute('http.response.status_code', status);
        return answer;
      }),
  );
}
