import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { Logger } from 'pino';
import type { ServiceMetrics } from '../observability/metrics.js';
import { httpLogger, installRequestLoggers } from './requestLogger.js';

/** Node publishes every answer its HTTP servers finish here, with no listener on the response itself. */
const RESPONSE_FINISH_CHANNEL = 'http.server.response.finish';

interface ResponseFinish {
  response: ServerResponse;
  server: Server;
}

/** The server a request came in on (`net.Socket#server`, which Node's types leave out). */
const serverOf = (request: IncomingMessage): unknown =>
  (request.socket as { server?: Server } | undefined)?.server;

/** An answer under way: its reply and when Fastify started it (Fastify's own clock for it is not set). */
interface InFlight {
  reply: FastifyReply;
  startedAt: number;
}

/** Where an answer of the app's server keeps its `InFlight` until Node reports it finished. */
const kInFlight = Symbol('dauth.inFlight');
type TrackedResponse = ServerResponse & { [kInFlight]?: InFlight };

/**
 * Counts and times every answer by its route template (`dauth_http_requests_total`,
 * `dauth_http_request_duration_seconds`; `unmatched` when no route matched) and writes Fastify's two
 * request lines ("incoming request", "request completed", at info), without a listener per request.
 *
 * Fastify, given a logger, adds a `finish` and an `error` listener to every response to report it completed
 * (Node's own `finish` listener is already there, so each response's listeners become an array and are taken
 * apart again): ≈ 2,800 of a token validation's ≈ 73,500 instructions (docs/performance-http.md, round 16).
 * So Fastify gets no logger (`buildApp`): `request.log` and `reply.log` are dauth's (requestLogger.ts), and the
 * answer's end comes from Node's `http.server.response.finish` diagnostics channel, which Node publishes
 * from the listener it has anyway. Fastify still calls `incomingRequest` for every request (routed, unmatched
 * and refused by its framework errors alike): there the answer's Node response is given its reply and start
 * (a property under a symbol: a WeakMap from response to reply cost ≈ 800 instructions a request more).
 *
 * A request that did not come through the app's server (`app.inject`) gets a `finish` listener instead.
 * Fastify's `requestCompleted` (called only for routes with `onResponse` hooks) does nothing: every answer is
 * reported here, once. An answer that never finishes (its connection closed or failed first) is not counted;
 * Fastify's `streamError` line still logs one that failed (its `error` listener no longer counted it).
 */
export class MeteredLogController extends LogController {
  readonly #logger: Logger;
  readonly #metrics: ServiceMetrics;
  #server: Server | undefined;

  constructor(logger: Logger, metrics: ServiceMetrics) {
    super();
    this.#logger = logger;
    this.#metrics = metrics;
  }

  /** Reports the answers `server` finishes from now on; the returned function stops it (the app's `onClose`). */
  reportAnswersOf(server: Server): () => void {
    this.#server = server;
    subscribe(RESPONSE_FINISH_CHANNEL, this.#onResponseFinish);
    return () => {
      unsubscribe(RESPONSE_FINISH_CHANNEL, this.#onResponseFinish);
      this.#server = undefined;
    };
  }

  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    const startedAt = performance.now();
    if (serverOf(request.raw) === this.#server) {
      (reply.raw as TrackedResponse)[kInFlight] = { reply, startedAt };
    } else {
      reply.raw.once('finish', () => this.#completed(reply, startedAt));
    }
    if (this.#logger.isLevelEnabled('info')) super.incomingRequest(request, reply);
  }

  override requestCompleted(): void {}

  /** Fastify hands this line its null logger (it has no logger of its own): written to dauth's. */
  override serviceUnavailable(): void {
    this.#logger.info(
      { res: { statusCode: 503 } },
      'request aborted - refusing to accept new requests as server is closing',
    );
  }

  readonly #onResponseFinish = (message: unknown): void => {
    const { response, server } = message as ResponseFinish;
    if (server !== this.#server) return;
    const inFlight = (response as TrackedResponse)[kInFlight];
    if (inFlight !== undefined) this.#completed(inFlight.reply, inFlight.startedAt);
  };

  #completed(reply: FastifyReply, startedAt: number): void {
    const milliseconds = performance.now() - startedAt;
    const request = reply.request;
    this.#metrics.recordRequest(
      request.method,
      request.routeOptions.url ?? 'unmatched',
      reply.statusCode,
      milliseconds / 1000,
    );
    if (this.#logger.isLevelEnabled('info') && !this.isLogDisabled(request)) {
      reply.log.info({ res: reply, responseTime: milliseconds }, 'request completed');
    }
  }
}

/**
 * The app's request reporting, as `buildApp` wires it: `logController` goes to Fastify's options (with no
 * logger), and `install` makes `request.log`/`reply.log` dauth's and reports the answers of the app's server
 * until the app closes.
 */
export function requestReporting(
  logger: Logger,
  metrics: ServiceMetrics,
): { logController: MeteredLogController; install(app: FastifyInstance): void } {
  const httpLog = httpLogger(logger);
  const logController = new MeteredLogController(httpLog, metrics);
  return {
    logController,
    install(app) {
      installRequestLoggers(app, httpLog);
      const stop = logController.reportAnswersOf(app.server);
      app.addHook('onClose', async () => stop());
    },
  };
}
