import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CallbackOutcome } from './authorizeCallback.js';

/** Anything that takes callbacks; a `DauthClient` does. */
export interface CallbackReceiver {
  handleCallback(body: unknown): CallbackOutcome;
}

// A callback is three short fields; anything much larger is not one.
const MAX_CALLBACK_BYTES = 64 * 1024;

export class CallbackBodyTooLargeError extends Error {
  constructor() {
    super('callback body too large');
    this.name = 'CallbackBodyTooLargeError';
  }
}

/**
 * Turns a callback's carrier into the fields `handleCallback` reads. The service sends JSON; a
 * form-encoded body works too, and when the body names no `state`, the query string is used.
 * An unparsable body yields no fields, which `handleCallback` ignores.
 */
export function callbackFieldsFrom(body: unknown, query: URLSearchParams | Record<string, unknown>): unknown {
  const fromBody = typeof body === 'string' ? parseCallbackText(body, undefined) : body;
  if (fromBody !== null && typeof fromBody === 'object' && 'state' in fromBody) return fromBody;
  return query instanceof URLSearchParams ? Object.fromEntries(query) : query;
}

function parseCallbackText(text: string, contentType: string | undefined): unknown {
  if (contentType?.includes('application/x-www-form-urlencoded'))
    return Object.fromEntries(new URLSearchParams(text));
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Reads a callback request's body (bounded) and query into callback fields. */
export async function readCallbackFields(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_CALLBACK_BYTES) throw new CallbackBodyTooLargeError();
    chunks.push(buffer);
  }
  const body = parseCallbackText(Buffer.concat(chunks).toString('utf8'), request.headers['content-type']);
  return callbackFieldsFrom(body, new URL(request.url ?? '/', 'http://callback.invalid').searchParams);
}

/**
 * A node:http request listener for the callback route. It accepts POST only (the service sends
 * POST), answers 200 as soon as the body is read, and then hands the fields to the client.
 */
export function createCallbackHandler(
  receiver: CallbackReceiver,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    if (request.method !== 'POST') {
      response.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    readCallbackFields(request).then(
      (fields) => {
        response.writeHead(200).end();
        receiver.handleCallback(fields);
      },
      (error: unknown) => {
        response.writeHead(error instanceof CallbackBodyTooLargeError ? 413 : 400).end();
      },
    );
  };
}
