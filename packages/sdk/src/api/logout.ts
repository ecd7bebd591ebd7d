import { EnvelopeError } from '../errors.js';
import { send } from './apiContext.js';
import type { ApiContext } from './apiContext.js';
import { envelopeMessageText, parseEnvelope } from './envelope.js';

/** `POST /v1/oauth-meta/user/logout`: revokes the token pair of `accessToken`. */
export async function logout(context: ApiContext, accessToken: string): Promise<void> {
  const response = await send(context, '/v1/oauth-meta/user/logout', { method: 'POST', bearer: accessToken });
  const envelope = parseEnvelope(response.body, response.status);
  if (envelope.code !== 1) throw new EnvelopeError('logout', envelope.code, envelopeMessageText(envelope));
}
