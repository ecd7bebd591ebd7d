import { AppError } from '../../errors.js';

/**
 * The OAuth error catalogue (RFC 6749 §5.2 codes as the stable `error`). `reason` says which check
 * failed, so the backend-integration envelope can map it (code_expired → 510, client_mismatch → 410, …).
 */
export type InvalidGrantReason =
  | 'code_unknown'
  | 'code_used'
  | 'code_expired'
  | 'client_mismatch'
  | 'redirect_uri_mismatch'
  | 'pkce_failed'
  | 'pkce_unexpected'
  | 'refresh_token_unknown'
  | 'refresh_token_expired'
  | 'refresh_token_reused'
  | 'grant_revoked'
  | 'device_code_unknown';

export const invalidGrant = (reason: InvalidGrantReason, message: string) =>
  new AppError(400, 'invalid_grant', message, { reason });

export const invalidClient = (message = 'Client authentication failed') =>
  new AppError(401, 'invalid_client', message);

export const invalidRequest = (field: string, message: string) =>
  new AppError(400, 'invalid_request', message, { field });

export const unsupportedGrantType = () =>
  new AppError(
    400,
    'unsupported_grant_type',
    'grant_type must be authorization_code, refresh_token, urn:ietf:params:oauth:grant-type:device_code or client_credentials',
    { field: 'grant_type' },
  );

// The device-code grant's answers while the device polls (RFC 8628 §3.5).
export const authorizationPending = () =>
  new AppError(400, 'authorization_pending', 'The user has not yet approved this device; keep polling');
export const slowDown = (intervalSeconds: number) =>
  new AppError(400, 'slow_down', `Polling too fast: wait ${intervalSeconds} s between polls`, {
    interval: intervalSeconds,
  });
export const accessDenied = () => new AppError(400, 'access_denied', 'The user denied this device');
export const expiredDeviceCode = () =>
  new AppError(400, 'expired_token', 'The device code has expired; start the device flow again');

/** Unknown client_id or a redirect_uri not registered exactly (spec: 401 `redirect_uri mismatch`). */
export const redirectUriMismatch = () => new AppError(401, 'redirect_uri_mismatch', 'redirect_uri mismatch');

export const reasonOf = (err: AppError): InvalidGrantReason | undefined =>
  err.code === 'invalid_grant' ? (err.details?.reason as InvalidGrantReason | undefined) : undefined;
