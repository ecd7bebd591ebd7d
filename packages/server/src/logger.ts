import { context, trace } from '@opentelemetry/api';
import type { LoggerOptions } from 'pino';

/**
 * Paths that may carry secrets anywhere in a logged object. pino removes them before serialising,
 * so a careless `log.info({ body })` still cannot leak a password, PIN hash or key share.
 */
const secretKeys = [
  'password',
  'client_secret',
  'clientSecret',
  'code',
  'code_verifier',
  'access_token',
  'refresh_token',
  'token',
  'pin_hash',
  'new_pin_hash',
  'key_share_user',
  'mnemonic',
  'mnemonic_enc',
  'encrypted_message',
  'verification_token',
  'privateKey',
  'encryption_key',
  'encryption_iv',
  'gcm_key',
];

/**
 * Whether the process logs human-readable lines: `pretty`, or `auto` with stdout a terminal (someone
 * watching `npm start`); a pipe or file (a container, a log shipper) gets one JSON object a line.
 */
export function prettyLogs(format: 'auto' | 'json' | 'pretty', stdoutIsTty: boolean | undefined): boolean {
  return format === 'pretty' || (format === 'auto' && stdoutIsTty === true);
}

/**
 * The active span's ids on every line written inside it (docs/operations.md, "Traces"), so a log search by
 * `trace_id` finds a request's lines and a trace view's line finds its logs. With tracing off no span is ever
 * active and lines stay as they were. A fresh object each time: pino merges the line's fields into it.
 */
export function traceIds(): { trace_id?: string; span_id?: string } {
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/**
 * pino's options. `pretty` sends the lines through pino's own pretty transport (a worker thread, so
 * formatting stays off the event loop); redaction happens before, in either format.
 */
export function loggerOptions(level: string, pretty = false): LoggerOptions {
  return {
    level,
    mixin: traceIds,
    ...(pretty
      ? {
          transport: {
            target: 'pino-pretty',
            options: { translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l', ignore: 'pid,hostname' },
          },
        }
      : {}),
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        ...secretKeys,
        ...secretKeys.map((k) => `*.${k}`),
      ],
      censor: censorSecret,
    },
  };
}

/** An ERC-20 contract address (`0x` + 40 hex digits) is public: only addresses stay readable. */
const publicAddress = /^0x[0-9a-fA-F]{40}$/;

/**
 * What a redacted path is written as. `token` names both a bearer token and an ERC-20 contract
 * (`POST /v1/transfer {token, …}`, the chain's transfer logs); an operator chasing a transfer needs the
 * contract, and an address is never a secret, so a value shaped exactly like one is kept.
 */
function censorSecret(value: unknown, path: string[]): unknown {
  if (path.at(-1) === 'token' && typeof value === 'string' && publicAddress.test(value)) return value;
  return '[redacted]';
}
