import { MalformedResponseError } from '../errors.js';
import { parseJson, stringifyJson } from '../losslessJson.js';
import type { JsonValue } from '../losslessJson.js';

/**
 * The response envelope of the `/v1/oauth-meta/*` routes: `{code, message, data}`. `code` is a JSON
 * number whatever the HTTP status; a string `code` breaks the contract and is rejected here, as
 * the spec's Versioning section warns.
 */
export interface Envelope {
  code: number;
  /** A string, or an object on the authorize success path. */
  message: JsonValue | undefined;
  data: JsonValue[] | undefined;
}

export function parseEnvelope(body: string, responseStatus: number): Envelope {
  let parsed: JsonValue;
  try {
    parsed = parseJson(body);
  } catch (error) {
    throw new MalformedResponseError('body is not JSON', responseStatus, { cause: error });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new MalformedResponseError('envelope is not an object', responseStatus);
  }
  const { code, message, data } = parsed;
  if (typeof code !== 'number' || !Number.isInteger(code)) {
    throw new MalformedResponseError('envelope code is not a number', responseStatus);
  }
  // A null `data` counts as absent, as in the Python and Go SDKs.
  if (data !== undefined && data !== null && !Array.isArray(data)) {
    throw new MalformedResponseError('envelope data is not an array', responseStatus);
  }
  return { code, message, data: data ?? undefined };
}

/** The envelope's message as text, for errors and logs. */
export function envelopeMessageText(envelope: Envelope): string {
  const { message } = envelope;
  if (typeof message === 'string') return message;
  return message === undefined ? '' : stringifyJson(message);
}
