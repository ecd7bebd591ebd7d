import {
  AuthorizeError,
  ExpiredTokenError,
  MalformedResponseError,
  RequestFailedError,
  WalletRequiredError,
} from '../errors.js';
import { send } from './apiContext.js';
import type { ApiContext } from './apiContext.js';
import { envelopeMessageText, parseEnvelope } from './envelope.js';

export interface AuthorizeParameters {
  clientId: string;
  redirectUri: string;
  state: string;
  /** The user's login JWT. */
  jwt: string;
  signal?: AbortSignal;
}

/**
 * `GET /v1/oauth-meta/authorize`. Resolves when the service accepted the request (2xx with envelope
 * code 1); the code itself then arrives by callback. Throws `ExpiredTokenError` for an expired JWT,
 * `WalletRequiredError` for a user without a PIN wallet, and `AuthorizeError` for every other
 * failure, including an unreachable service.
 */
export async function authorize(context: ApiContext, parameters: AuthorizeParameters): Promise<void> {
  const query = new URLSearchParams({
    client_id: parameters.clientId,
    redirect_uri: parameters.redirectUri,
    // Spelled so by the contract; the service refuses the correct spelling.
    respose_type: 'code',
    state: parameters.state,
  });
  let response;
  try {
    response = await send(context, `/v1/oauth-meta/authorize?${query.toString()}`, {
      method: 'GET',
      bearer: parameters.jwt,
      signal: parameters.signal,
    });
  } catch (error) {
    if (error instanceof RequestFailedError)
      throw new AuthorizeError('service unreachable', {}, { cause: error });
    throw error;
  }

  let envelope;
  try {
    envelope = parseEnvelope(response.body, response.status);
  } catch (error) {
    const reason = error instanceof MalformedResponseError ? error.message : 'malformed response';
    throw new AuthorizeError(reason, { responseStatus: response.status }, { cause: error });
  }
  const accepted = response.status >= 200 && response.status < 300 && envelope.code === 1;
  if (accepted) return;
  const message = envelopeMessageText(envelope);
  if (message === 'EXPIRED_TOKEN') throw new ExpiredTokenError();
  const details = { responseStatus: response.status, envelopeCode: envelope.code };
  // The envelope has no error field: its message is the identifier (docs/backend-integration.md).
  if (message === 'wallet_required') throw new WalletRequiredError(details);
  throw new AuthorizeError(message || `code ${envelope.code}`, details);
}
