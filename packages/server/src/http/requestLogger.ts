import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Write = (...args: unknown[]) => void;

/**
 * The logger Fastify gives each request (`request.log`): the app logger plus the request id, bound
 * only when a line is actually written. Fastify makes one per request, and a pino child serialises
 * its bindings the moment it is made, so at the production level (`warn`, no per-request lines) every
 * request paid for a child it never used. A call at a level the app logger has enabled makes the real
 * pino child once and writes through it: the lines written are exactly a pino child's.
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

/**
 * Fastify's `childLoggerFactory`: a `RequestLogger` (the request id bound on the first line written),
 * or a plain pino child when the route sets its own level or serialisers.
 */
export function requestLoggerFactory(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  if (options.level !== undefined || options.serializers !== undefined)
    return logger.child(bindings, options);
  return new RequestLogger(logger, bindings) as unknown as FastifyBaseLogger;
}

/**
 * The logger `buildApp` hands Fastify (`loggerInstance`): the app logger itself for every line, except that
 * its `child()` is `requestLoggerFactory`'s. Fastify makes each request's logger with `child(bindings,
 * options)` when no `childLoggerFactory` is set, so requests get a `RequestLogger` as before; given a custom
 * factory instead, Fastify checks the logger it returns on every request (seven method lookups and an array
 * filter: 1–3 % of a trivial route's CPU, docs/performance-http.md round 4). A real child (Fastify makes one
 * at start, with its serializers, and uses it as `app.log`) is wrapped the same way, so its requests' loggers
 * are lazy too. Made as pino makes its children (`Object.create`), so every method, binding and level is the
 * logger's.
 */
export function fastifyLogger(logger: FastifyBaseLogger): FastifyBaseLogger {
  const appLogger = Object.create(logger) as FastifyBaseLogger;
  appLogger.child = (bindings: Bindings, options: ChildLoggerOptions = {}) => {
    const child = requestLoggerFactory(logger, bindings, options);
    return child instanceof RequestLogger ? child : fastifyLogger(child);
  };
  return appLogger;
}
