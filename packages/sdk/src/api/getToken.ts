import { EnvelopeError, MalformedResponseError } from '../errors.js';
import { stringifyJson } from '../losslessJson.js';
import { parseSlotInfo } from '../slotInfo.js';
import type { SlotInfo } from '../slotInfo.js';
import { send } from './apiContext.js';
import type { ApiContext } from './apiContext.js';
import { envelopeMessageText, parseEnvelope } from './envelope.js';

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

export type TokenGrant =
  { grant_type: 'authorization_code'; code: string } | { grant_type: 'refresh_token'; refresh_token: string };

/**
 * `POST /v1/oauth-meta/get_token` for either grant. The envelope `code` decides, whatever the HTTP
 * status: 1 gives the slot in `data[0]`, anything else is an `EnvelopeError` (410, 510, 570, …).
 */
export async function getToken(
  context: ApiContext,
  credentials: ClientCredentials,
  grant: TokenGrant,
  signal?: AbortSignal,
): Promise<SlotInfo> {
  const response = await send(context, '/v1/oauth-meta/get_token', {
    method: 'POST',
    json: stringifyJson({
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
      ...grant,
    }),
    signal,
  });
  return readSlotEnvelope(response.body, response.status, 'get_token');
}

/** Reads a get_token answer body; shared with the test vectors, which feed bodies straight in. */
export function readSlotEnvelope(body: string, responseStatus: number, operation = 'get_token'): SlotInfo {
  const envelope = parseEnvelope(body, responseStatus);
  if (envelope.code !== 1) throw new EnvelopeError(operation, envelope.code, envelopeMessageText(envelope));
  if (envelope.data === undefined || envelope.data.length === 0) {
    throw new MalformedResponseError('envelope data holds no slot', responseStatus);
  }
  return parseSlotInfo(envelope.data[0], responseStatus);
}
