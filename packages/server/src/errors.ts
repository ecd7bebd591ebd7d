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
export const conflict = (code: string, message: string) => new AppError(409, code, message);
export const locked = (code: string, message: string, details?: Record<string, unknown>) =>
  new AppError(423, code, message, details);
export const tooManyRequests = (message = 'Too many requests, slow down') =>
  new AppError(429, 'rate_limited', message);
export const chainUnavailable = (message = 'The blockchain node is unavailable; nothing was changed') =>
  new AppError(503, 'chain_unavailable', message);
export const databaseUnavailable = (message = 'The database is unavailable; nothing was changed') =>
  new AppError(503, 'database_unavailable', message);

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
