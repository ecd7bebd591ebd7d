import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { ServiceMetrics } from '../observability/metrics.js';

/**
 * Counts and times every answer by its route template (`dauth_http_requests_total`,
 * `dauth_http_request_duration_seconds`; `unmatched` when no route matched) from the call Fastify makes
 * for every answer anyway: its log controller's `requestCompleted`, run when the response has finished
 * (or failed), after the route's `onResponse` hooks, for every routed request and every 404 alike. A root
 * `onResponse` hook, which this replaces, saw exactly the same answers but cost each request a hook run
 * on top of that call (with the cookie parse hook also gone, ≈ 4 % of a token validation's server CPU:
 * docs/performance-http.md, round 9).
 *
 * Fastify calls it whenever it has a logger, which `buildApp` always gives it. The log line it writes
 * ("request completed", at info) is still the parent class's.
 */
export class MeteredLogController extends LogController {
  readonly #metrics: ServiceMetrics;

  constructor(metrics: ServiceMetrics) {
    super();
    this.#metrics = metrics;
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
    metadata?: Record<string, unknown>,
  ): void {
    this.#metrics.recordRequest(
      request.method,
      request.routeOptions.url ?? 'unmatched',
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    super.requestCompleted(error, request, reply, metadata);
  }
}
