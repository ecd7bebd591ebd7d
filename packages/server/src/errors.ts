/**
 * The one error catalogue. Services throw `AppError`s; the HTTP error handler renders them as
 * `{success: false, error, message}` (decisions §2). OAuth routes add RFC 6749 fields and the
 * backend-integration routes map them into the `{code, message, data}` envelope.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Extra fields safe to show the caller (never secrets). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const badRequest = (code: string, message: string, details?: Record<string, unknown>) =>
  new AppError(400, code, message, details);
export const invalidField = (field: string, message = `${field} is missing or invalid`) =>
  new AppError(400, 'invalid_request', message, { field });
export const unauthorized = (code = 'unauthorized', message = 'Authentication required') =>
  new AppError(401, code, message);
export const forbidden = (code = 'forbidden', message = 'Not allowed for this caller') =>
  new AppError(403, code, message);
export const notFound = (code = 'not_found', message = 'Not found') => new AppError(404, code, message);
/** RFC 6750 §3.1: the bearer token lacks a scope the resource needs (OpenID Connect userinfo: `openid`). */
export const insufficientScope = (message: string) => new AppError(403, 'insufficient_scope', message);
export const conflict = (code: string, message: string) => new AppError(409, code, message);
export const locked = (code: string, message: string, details?: Record<string, unknown>) =>
  new AppError(423, code, message, details);
export const tooManyRequests = (message = 'Too many requests, slow down') =>
  new AppError(429, 'rate_limited', message);
export const chainUnavailable = (message = 'The blockchain node is unavailable; nothing was changed') =>
  new AppError(503, 'chain_unavailable', message);
export const databaseUnavailable = (message = 'The database is unavailable; nothing was changed') =>
  new AppError(503, 'database_unavailable', message);

/** A bounded CPU queue (PBKDF2, scrypt) is full; `Retry-After` tells the caller when to try again. */
export const overloaded = (retryAfterSeconds: number) =>
  new AppError(503, 'overloaded', 'The service is busy; try again shortly', { retryAfterSeconds });

/** The port answers while the services start (a chain journal recovery can take a while): ask again later. */
export const serviceStarting = (retryAfterSeconds: number) =>
  new AppError(503, 'service_starting', 'The service is starting; retry shortly', { retryAfterSeconds });

/**
 * 403 `forbidden_role` (decisions §9 "Organizations", docs/orgs.md): a member of the app's or the
 * organization's org whose role is below what the route needs (`required_role` names it).
 */
export const forbiddenRole = (needed: string) =>
  new AppError(403, 'forbidden_role', `This needs the ${needed} role (or higher) in the organization`, {
    required_role: needed,
  });

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;

/** A decoded contract revert, as the chain gateway found it. */
export interface Revert {
  /** `Error` for `require`/`revert("…")`, `Panic`, or the custom error's name; undefined when unknown. */
  name: string | undefined;
  /** The error's decoded arguments (bigints, checksummed addresses, strings), in ABI order. */
  args: readonly unknown[];
  /** Human-readable: the reason string, `Name(arg, …)`, or `custom error 0x…` for an unknown selector. */
  message: string;
}

/** Stands in for a revert a mined operation did not report (the chain layer always reports one). */
const UNREPORTED_REVERT: Revert = { name: undefined, args: [], message: 'no reason' };

/**
 * 422 `operation_reverted`: a contract refused a call, either seen by the estimate (nothing was sent) or
 * in the mined operation (only its nonce and gas were used). It carries the decoded revert from the
 * gateway up, so callers act on `revert.name` and `revert.args`, never on the message text. `context` is
 * the sentence the message starts with; `details` are the fields the answer shows (the reason by default).
 */
export class OperationReverted extends AppError {
  readonly revert: Revert;
  constructor(revert: Revert | undefined, context: string, details?: Record<string, unknown>) {
    const known = revert ?? UNREPORTED_REVERT;
    super(
      422,
      'operation_reverted',
      `${context}: ${known.message}`,
      details ?? { revert_reason: known.message },
    );
    this.name = 'OperationReverted';
    this.revert = known;
  }

  /**
   * A mined operation whose call reverted: the answer names the reason and where it landed (its `tx_hash`,
   * and its `user_op_hash` when it went through the bundler). The one builder every write path uses.
   */
  static included(
    result: { revert?: Revert | undefined; txHash: string; userOpHash?: string | undefined },
    context = 'The operation was included but reverted',
  ): OperationReverted {
    return new OperationReverted(result.revert, context, {
      revert_reason: (result.revert ?? UNREPORTED_REVERT).message,
      tx_hash: result.txHash,
      ...(result.userOpHash ? { user_op_hash: result.userOpHash } : {}),
    });
  }
}

/** True when `err` is an `OperationReverted` whose revert is the custom error `name`. */
export const isRevertNamed = (err: unknown, name: string): err is OperationReverted =>
  err instanceof OperationReverted && err.revert.name === name;

/**
 * The node stopped answering after the operation's transaction may have been sent: it may or may not be
 * included. Callers must not record the operation as done, nor as failed.
 */
export class OperationOutcomeUnknownError extends AppError {
  constructor(details: { userOpHash: string; txHash?: string | undefined }) {
    super(
      503,
      'chain_unavailable',
      'The blockchain node stopped answering while the operation was pending; its outcome is not known yet',
      { user_op_hash: details.userOpHash, ...(details.txHash ? { tx_hash: details.txHash } : {}) },
    );
    this.name = 'OperationOutcomeUnknownError';
  }
}

/** True when a chain write may have landed although no receipt came back: record it neither as done nor as failed. */
export const isOutcomeUnknown = (err: unknown): err is OperationOutcomeUnknownError =>
  err instanceof OperationOutcomeUnknownError;
