import { createRequire } from 'node:module';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Bindings, type ChildLoggerOptions, type Logger, stdSerializers } from 'pino';

type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Write = (...args: unknown[]) => void;

/**
 * A request's logger (`request.log`, `reply.log`): the HTTP logger plus the request id, bound only when a
 * line is actually written. A pino child serialises its bindings the moment it is made, so at the production
 * level (`warn`, no per-request lines) every request would pay for a child it never used. A call at a level
 * the logger has enabled makes the real pino child once and writes through it: the lines written are exactly
 * a pino child's.
 */
class RequestLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
  ) {}

  get level(): string {
    return (this.#child ?? this.parent).level;
  }

  set level(level: string) {
    this.#real().level = level;
  }

  #real(): FastifyBaseLogger {
    return (this.#child ??= this.parent.child(this.bindings));
  }

  #write(level: LevelName, args: unknown[]): void {
    if (!this.isLevelEnabled(level)) return;
    (this.#real()[level] as Write)(...args);
  }

  fatal(...args: unknown[]): void {
    this.#write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#write('error', args);
  }
  warn(...args: unknown[]): void {
    this.#write('warn', args);
  }
  info(...args: unknown[]): void {
    this.#write('info', args);
  }
  debug(...args: unknown[]): void {
    this.#write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#write('trace', args);
  }
  silent(): void {}

  /** The underlying logger's answer; a logger without isLevelEnabled (not pino) decides for itself. */
  isLevelEnabled(level: string): boolean {
    const current = (this.#child ?? this.parent) as FastifyBaseLogger & {
      isLevelEnabled?(l: string): boolean;
    };
    return current.isLevelEnabled?.(level) ?? true;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#real().child(bindings, options);
  }
}

/** A logger for one request's lines: `reqId` is bound when the first line is written. */
export function requestLogger(logger: FastifyBaseLogger, requestId: string): FastifyBaseLogger {
  return new RequestLogger(logger, { reqId: requestId }) as unknown as FastifyBaseLogger;
}

/** The shapes Fastify's own logger gives a request, an answer and an error on its request lines. */
const httpSerializers = {
  req: (request: FastifyRequest) => ({
    method: request.method,
    url: request.url,
    version: request.headers['accept-version'],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  }),
  res: (reply: FastifyReply) => ({ statusCode: reply.statusCode }),
  err: stdSerializers.err,
};

/** The app logger as the HTTP layer writes with it: Fastify's request, answer and error serialisers added. */
export function httpLogger(logger: Logger): Logger {
  return logger.child({}, { serializers: httpSerializers });
}

// Fastify's own keys for the root scope's Request and Reply classes (every scope's derive from them), and for
// the mark that makes its routes use a scope's class rather than the shared base class it derives from.
const { kRequest, kReply, kHasBeenDecorated } = createRequire(import.meta.url)('fastify/lib/symbols.js') as {
  kRequest: symbol;
  kReply: symbol;
  kHasBeenDecorated: symbol;
};

type FastifyClass = { prototype: object } & Record<symbol, unknown>;

/** Defines `log` on the root scope's class, marked decorated as `decorateRequest` would mark it. */
function defineLog(app: FastifyInstance, key: symbol, get: (this: never) => FastifyBaseLogger): void {
  const klass = (app as unknown as Record<symbol, FastifyClass>)[key]!;
  Object.defineProperty(klass.prototype, 'log', { get, set() {} });
  klass[kHasBeenDecorated] = true;
}

/**
 * Makes `request.log` and `reply.log`, in every scope, the request's `requestLogger` of `logger`.
 *
 * Fastify without a logger of its own (`buildApp` gives it none: requestMetrics.ts says why) sets both to its
 * null logger in each request's constructor, and refuses to decorate its instance properties, so the two are
 * accessors on the root's prototypes: the constructor's assignment runs the setter, which keeps nothing, and a
 * read makes the request's logger (nothing is made for a request that never logs). Fastify's own lines (its
 * warnings, its log controller's) and dauth's alike go through them. test/logging/requestLogger.test.ts holds
 * Fastify to the constructor's assignment this relies on.
 */
export function installRequestLoggers(app: FastifyInstance, logger: FastifyBaseLogger): void {
  defineLog(app, kRequest, function (this: FastifyRequest) {
    return requestLogger(logger, this.id);
  } as (this: never) => FastifyBaseLogger);
  defineLog(app, kReply, function (this: FastifyReply) {
    return requestLogger(logger, this.request.id);
  } as (this: never) => FastifyBaseLogger);
}
