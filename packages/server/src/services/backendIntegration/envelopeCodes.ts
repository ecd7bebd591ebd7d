import { AppError } from '../../errors.js';

/**
 * The get_token envelope codes (spec, "get_token envelope codes"), always JSON numbers. Every
 * other failure of a `/v1/oauth-meta/*` route carries its HTTP status as the envelope code.
 */
export const EnvelopeCode = {
  success: 1,
  clientMismatch: 410,
  codeExpired: 510,
  unregistered: 570,
} as const;

/** An error the envelope renders with `code` = `envelopeCode` (see `http/errorHandler.ts`). */
const envelopeError = (status: number, code: string, envelopeCode: number, message: string) =>
  new AppError(status, code, message, { envelopeCode });

export const getTokenErrors = {
  unknownClient: () =>
    envelopeError(
      401,
      'invalid_client',
      EnvelopeCode.unregistered,
      'unregistered: client_id is not a registered app',
    ),
  wrongSecret: () =>
    envelopeError(
      401,
      'invalid_client',
      EnvelopeCode.clientMismatch,
      'client mismatch: client_secret is wrong',
    ),
  unknownCode: () =>
    envelopeError(400, 'invalid_grant', EnvelopeCode.unregistered, 'unregistered: the code is not known'),
  codeOfOtherClient: () =>
    envelopeError(
      400,
      'invalid_grant',
      EnvelopeCode.clientMismatch,
      'client mismatch: the code was issued to another app',
    ),
  codeExpired: () =>
    envelopeError(
      400,
      'invalid_grant',
      EnvelopeCode.codeExpired,
      'code expired: the code has expired or was already used',
    ),
  unknownRefreshToken: () =>
    envelopeError(
      400,
      'invalid_grant',
      EnvelopeCode.unregistered,
      'unregistered: the refresh token is not known',
    ),
  refreshOfOtherClient: () =>
    envelopeError(
      400,
      'invalid_grant',
      EnvelopeCode.clientMismatch,
      'client mismatch: the refresh token was issued to another app',
    ),
  refreshExpired: () =>
    envelopeError(
      400,
      'invalid_grant',
      EnvelopeCode.codeExpired,
      'code expired: the refresh token has expired, was revoked or was already used',
    ),
};
