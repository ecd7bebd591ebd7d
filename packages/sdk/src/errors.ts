/**
 * The SDK's error catalogue and the spec's error-mapping table ("Backend integration error mapping").
 * Each class carries the exact message the table names, so logs read like the spec.
 */

export class DauthError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** `getSlotInfo` was called without a JWT. */
export class MissingJwtError extends DauthError {
  constructor() {
    super('missing jwt');
  }
}

/** The service refused the user's login JWT as expired (envelope message `EXPIRED_TOKEN`). */
export class ExpiredTokenError extends DauthError {
  constructor() {
    super('EXPIRED_TOKEN');
  }
}

/** No callback arrived for the request's `state` within the timeout. */
export class CallbackTimeoutError extends DauthError {
  constructor() {
    super('authorize callback timeout');
  }
}

export interface AuthorizeErrorDetails {
  /** HTTP status of the authorize answer, when there was one. */
  responseStatus?: number;
  /** Envelope `code` of the authorize answer, when it was a well-formed envelope. */
  envelopeCode?: number;
}

/** Any other failure of the authorize step: refused, unreachable, or answered with a malformed body. */
export class AuthorizeError extends DauthError {
  /** The service's message or what went wrong, e.g. `redirect_uri mismatch`. */
  readonly reason: string;
  readonly responseStatus: number | undefined;
  readonly envelopeCode: number | undefined;

  constructor(reason: string, details: AuthorizeErrorDetails = {}, options?: ErrorOptions) {
    super(`AUTHORIZE_ERROR: ${reason}`, options);
    this.reason = reason;
    this.responseStatus = details.responseStatus;
    this.envelopeCode = details.envelopeCode;
  }
}

/**
 * Authorize refused the user because they have no PIN wallet yet (HTTP 409, envelope message
 * `wallet_required`; decisions §7). Send the user to PIN set-up, then retry. It is an
 * `AuthorizeError` too, but `toHttpStatus` gives 409, not 502.
 */
export class WalletRequiredError extends AuthorizeError {
  constructor(details: AuthorizeErrorDetails = {}) {
    super('wallet_required', details);
  }
}

/** The callback arrived with `success` other than 1 (or without a code to exchange). */
export class CallbackRejectedError extends DauthError {
  constructor() {
    super('authorize callback rejected');
  }
}

/** The client was shut down while the call was pending, or before it started. */
export class ShutdownError extends DauthError {
  constructor() {
    super('shutdown');
  }
}

const ENVELOPE_CODE_MEANINGS: Readonly<Record<number, string>> = {
  410: 'client mismatch',
  510: 'code expired',
  570: 'unregistered',
};

/** A well-formed envelope whose `code` is not 1 (get_token, refresh, logout). */
export class EnvelopeError extends DauthError {
  /** The envelope's numeric `code`: 410, 510, 570 or another failure code. */
  readonly code: number;
  /** The envelope's `message`. */
  readonly serviceMessage: string;

  constructor(operation: string, code: number, serviceMessage: string) {
    const meaning = ENVELOPE_CODE_MEANINGS[code] ?? 'failure';
    super(`${operation} failed with code ${code} (${meaning}): ${serviceMessage}`);
    this.code = code;
    this.serviceMessage = serviceMessage;
  }
}

/** A body that is not what the contract promises: not JSON, a string `code`, no slot in `data`, … */
export class MalformedResponseError extends DauthError {
  readonly responseStatus: number | undefined;

  constructor(what: string, responseStatus?: number, options?: ErrorOptions) {
    super(
      `malformed response: ${what}${responseStatus === undefined ? '' : ` (HTTP ${responseStatus})`}`,
      options,
    );
    this.responseStatus = responseStatus;
  }
}

/** The request never got an answer: connection refused, reset, or the request timeout passed. */
export class RequestFailedError extends DauthError {
  constructor(url: string, options?: ErrorOptions) {
    super(`request to ${url} failed`, options);
  }
}

/**
 * The service answered a request with a failure: its HTTP status and stable error code (`error`
 * member, decisions §2), when it sent one. Each call family has its own subclass below.
 */
export class RefusedRequestError extends DauthError {
  readonly responseStatus: number;
  /** The service's stable error code, e.g. `invalid_credentials`; undefined when the body had none. */
  readonly errorCode: string | undefined;

  constructor(what: string, responseStatus: number, errorCode: string | undefined, message: string) {
    super(`${what} (HTTP ${responseStatus}${errorCode ? `, ${errorCode}` : ''}): ${message}`);
    this.responseStatus = responseStatus;
    this.errorCode = errorCode;
  }
}

/**
 * A guest call (create, login, upgrade; docs/players.md) was answered with a failure: `errorCode` is
 * e.g. `invalid_credentials` (wrong secret), `email_taken`, `not_guest` or `rate_limited`.
 */
export class GuestRequestError extends RefusedRequestError {
  constructor(responseStatus: number, errorCode: string | undefined, message: string) {
    super('guest request failed', responseStatus, errorCode, message);
  }
}

/** A login-status call (report or check) was answered with a failure. */
export class StatusRequestError extends RefusedRequestError {
  constructor(responseStatus: number, errorCode: string | undefined, message: string) {
    super('login status request failed', responseStatus, errorCode, message);
  }
}

/**
 * A consumption record was refused (`increase_used_content_token` answered 4xx or 5xx). Nothing was
 * recorded: the service changes nothing on a refusal.
 */
export class ConsumptionError extends RefusedRequestError {
  constructor(responseStatus: number, errorCode: string | undefined, message: string) {
    super('consumption refused', responseStatus, errorCode, message);
  }
}

/**
 * The device authorization grant ended without tokens: the player denied (`access_denied`), the codes
 * expired (`expired_token`: start again), or the service refused the request (`invalid_client`,
 * `invalid_grant`, `rate_limited`, …).
 */
export class DeviceFlowError extends RefusedRequestError {
  constructor(responseStatus: number, errorCode: string | undefined, message: string) {
    super('device authorization failed', responseStatus, errorCode, message);
  }
}

/**
 * A content-provider registration (or the sign-in before it) was refused: the service's status and
 * stable error code, e.g. 401 `reauthentication_required` (the login is older than the service's
 * `STEP_UP_MAX_AGE`), 403 `not_client_owner`, 409 `cuid_taken` or `terms_frozen`.
 */
export class ProviderRegistrationError extends RefusedRequestError {
  constructor(responseStatus: number, errorCode: string | undefined, message: string) {
    super('provider registration refused', responseStatus, errorCode, message);
  }
}

/**
 * A federated sign-in or an identity call (docs/federation.md) was refused: the service's status and
 * stable code. The codes a caller acts on have their own classes below; others stay this class, e.g.
 * 400 `id_token_unsupported` (an oauth2 or steam provider issues no id_token), 404 `unknown_provider`,
 * 409 `identity_in_use` (linked to another account), 401 `reauthentication_required` (a console JWT older
 * than the service's `STEP_UP_MAX_AGE`), 429 `rate_limited`, 503 `provider_unavailable`.
 */
export class FederationError extends RefusedRequestError {
  constructor(responseStatus: number, errorCode: string | undefined, message: string) {
    super('federation request failed', responseStatus, errorCode, message);
  }
}

/** 401 `invalid_id_token`: the upstream id_token is not valid for that provider (signature, `iss`, `aud`, `exp`). */
export class InvalidIdTokenError extends FederationError {}

/**
 * 409 `account_exists_link_required`: an account with the upstream e-mail exists and is never linked
 * automatically. The player signs in to it (password, passkey, …) and links the identity there.
 */
export class AccountLinkRequiredError extends FederationError {}

/** 409 `last_sign_in_method`: unlinking would leave the account with no way to sign in. */
export class LastSignInMethodError extends FederationError {}

/**
 * 403 `first_party_required`: a change to the account's ways in (link, unlink; decisions §9) takes
 * only a fresh login JWT of the dauth console, never the app-bound JWT a game holds (a guest's own
 * JWT may still link its first identity). Send the player to the dauth console to do it there.
 */
export class FirstPartyRequiredError extends FederationError {}

/**
 * 401 `id_token_replayed`: the service accepts an upstream id_token once. Get a new one from the
 * platform's SDK; retrying the same one is refused again.
 */
export class IdTokenReplayedError extends FederationError {}

/**
 * 401 `platform_rejected`: the platform refused the credential of a platform sign-in (a Steam ticket for
 * another app or identity, an expired EOS token, a stale or replayed Game Center signature, a used Play
 * Games code). Get a new credential from the platform's SDK; never retry the same one.
 */
export class PlatformRejectedError extends FederationError {}

/** 403 `platform_banned`: the platform bans this account (Steam publisher ban, or VAC ban). */
export class PlatformBannedError extends FederationError {}

/** The typed error of a federation refusal. */
export function federationError(
  responseStatus: number,
  errorCode: string | undefined,
  message: string,
): FederationError {
  switch (errorCode) {
    case 'invalid_id_token':
      return new InvalidIdTokenError(responseStatus, errorCode, message);
    case 'account_exists_link_required':
      return new AccountLinkRequiredError(responseStatus, errorCode, message);
    case 'last_sign_in_method':
      return new LastSignInMethodError(responseStatus, errorCode, message);
    case 'first_party_required':
      return new FirstPartyRequiredError(responseStatus, errorCode, message);
    case 'id_token_replayed':
      return new IdTokenReplayedError(responseStatus, errorCode, message);
    case 'platform_rejected':
      return new PlatformRejectedError(responseStatus, errorCode, message);
    case 'platform_banned':
      return new PlatformBannedError(responseStatus, errorCode, message);
    default:
      return new FederationError(responseStatus, errorCode, message);
  }
}

/**
 * A sign-in's first credential (password, upstream id_token) was right, but the account has a second
 * factor (docs/mfa.md): there is no session yet. Ask the player for their authenticator app's current
 * code (or a recovery code) and call `loginMfa(mfaToken, code)` within `expiresIn` seconds. The
 * `mfaToken` is kept out of the message, `util.inspect` and `JSON.stringify`, so logging the error
 * does not log it.
 */
export class MfaRequiredError extends DauthError {
  readonly #mfaToken: string;
  /** The codes the second step accepts: `totp`, `recovery_code`. */
  readonly methods: readonly string[];
  /** Seconds the `mfaToken` lives (5 minutes), when the service said. */
  readonly expiresIn: number | undefined;
  /** A federated sign-in's `created` (this sign-in made the account); undefined for a password sign-in. */
  readonly created: boolean | undefined;

  constructor(mfaToken: string, methods: readonly string[], expiresIn?: number, created?: boolean) {
    super('mfa_required: the account has a second factor; send a code with loginMfa');
    this.#mfaToken = mfaToken;
    this.methods = methods;
    this.expiresIn = expiresIn;
    this.created = created;
  }

  /** Single use, 5 codes at most: the second step's `mfa_token`. */
  get mfaToken(): string {
    return this.#mfaToken;
  }
}

/**
 * The second step of a sign-in (`POST /v1/dev-user/login/mfa`) was refused, e.g. 429 `rate_limited`.
 * The codes a caller acts on have their own classes below.
 */
export class LoginMfaError extends RefusedRequestError {
  constructor(responseStatus: number, errorCode: string | undefined, message: string) {
    super('second sign-in step refused', responseStatus, errorCode, message);
  }
}

/** 401 `invalid_mfa_code`: the code is wrong or already used. Ask again: the mfaToken takes 5 codes. */
export class InvalidMfaCodeError extends LoginMfaError {}

/** 401 `invalid_mfa_token`: the mfaToken is unknown, expired, used, or ended after 5 codes. Sign in again. */
export class InvalidMfaTokenError extends LoginMfaError {}

/** The typed error of a refused second step. */
export function loginMfaError(
  responseStatus: number,
  errorCode: string | undefined,
  message: string,
): LoginMfaError {
  switch (errorCode) {
    case 'invalid_mfa_code':
      return new InvalidMfaCodeError(responseStatus, errorCode, message);
    case 'invalid_mfa_token':
      return new InvalidMfaTokenError(responseStatus, errorCode, message);
    default:
      return new LoginMfaError(responseStatus, errorCode, message);
  }
}

/**
 * A session operation (docs/session-keys.md) was refused; nothing was signed. E.g. 401 `invalid_token`
 * (the access token), 404 `session_key_not_found` (the player has not granted this app, or revoked
 * it), 429 `sponsorship_quota_exceeded`.
 */
export class SessionOperationError extends RefusedRequestError {
  constructor(responseStatus: number, errorCode: string | undefined, message: string) {
    super('session operation refused', responseStatus, errorCode, message);
  }
}

/**
 * 403 `outside_session_policy`: a call is outside the wallet policy the player granted the app
 * (target, selector, value or token limit, expiry). Nothing was signed; the wallet contract would
 * refuse it too. `callIndex` is the refused call's index in `calls`, `reason` the service's words.
 */
export class OutsideSessionPolicyError extends SessionOperationError {
  readonly callIndex: number | undefined;
  readonly reason: string | undefined;

  constructor(
    responseStatus: number,
    message: string,
    callIndex: number | undefined,
    reason: string | undefined,
  ) {
    super(responseStatus, 'outside_session_policy', message);
    this.callIndex = callIndex;
    this.reason = reason;
  }
}

/**
 * The HTTP status a backend should answer with when a slot-info call fails, row by row as in the
 * spec's table, plus `wallet_required` (409, decisions §7). The row for a cancelled or expired
 * request context (499/504) belongs to Go.
 */
export function toHttpStatus(error: unknown): number {
  if (error instanceof ExpiredTokenError) return 401;
  // Before AuthorizeError, which it extends: the user must set up a PIN, not retry later.
  if (error instanceof WalletRequiredError) return 409;
  if (error instanceof CallbackTimeoutError) return 408;
  if (error instanceof AuthorizeError) return 502;
  if (error instanceof CallbackRejectedError) return 502;
  if (error instanceof ShutdownError) return 503;
  if (error instanceof MissingJwtError) return 400;
  return 500;
}
