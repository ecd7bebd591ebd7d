import { MalformedResponseError } from '../errors.js';
import { parseJson, stringifyJson, type JsonObject, type JsonValue } from '../losslessJson.js';
import { send, type ApiContext } from './apiContext.js';

/** A failure answer of one of the service's own routes: `{success: false, error, message, …}` (decisions §2). */
export interface ServiceRefusal {
  responseStatus: number;
  /** The stable snake_case code (`error`), when the body had one. */
  errorCode: string | undefined;
  message: string;
  /** The whole error body: some codes carry more members (`details`, `call_index`, …). */
  body: JsonObject;
}

export interface ServiceCallOptions {
  body?: JsonObject;
  /** Sent as `Authorization: Bearer …` (a login JWT or an app's access token). */
  bearer?: string;
  /** Treat a 2xx answer without `success: true` as a refusal (the account routes always send it). */
  requireSuccess?: boolean;
}

/**
 * One call to a JSON route of the service (not the `/v1/oauth-meta/*` envelope routes): returns the
 * answer's object on a 2xx, and throws what `refuse` makes of any failure answer. Bodies are read
 * with the lossless parser, so large integers stay exact.
 */
export async function callService(
  context: ApiContext,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  options: ServiceCallOptions,
  refuse: (refusal: ServiceRefusal) => Error,
): Promise<JsonObject> {
  const response = await send(context, path, {
    method,
    ...(options.body === undefined ? {} : { json: stringifyJson(options.body) }),
    ...(options.bearer === undefined ? {} : { bearer: options.bearer }),
  });
  let parsed: JsonValue | undefined;
  try {
    parsed = parseJson(response.body);
  } catch {
    parsed = undefined;
  }
  const object = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : undefined;
  const ok = response.status >= 200 && response.status < 300;
  if (ok && object && (options.requireSuccess ? object.success === true : object.success !== false)) {
    return object;
  }
  if (ok && !options.requireSuccess && !object) {
    throw new MalformedResponseError('body is not a JSON object', response.status);
  }
  throw refuse({
    responseStatus: response.status,
    errorCode: typeof object?.error === 'string' ? object.error : undefined,
    message: typeof object?.message === 'string' ? object.message : 'no error message',
    body: object ?? {},
  });
}

/** A string member, or `MalformedResponseError` naming the call and the member. */
export function textMember(object: JsonObject, name: string, what: string, status = 200): string {
  const value = object[name];
  if (typeof value !== 'string' || value === '') {
    throw new MalformedResponseError(`${what}: ${name} is missing or not a string`, status);
  }
  return value;
}

/** An id member that the service may send as a string or as a JSON integer: its decimal text. */
export function idMember(object: JsonObject, name: string, what: string, status = 200): string {
  const value = object[name];
  if (typeof value === 'bigint' || (typeof value === 'number' && Number.isSafeInteger(value))) {
    return value.toString();
  }
  return textMember(object, name, what, status);
}
