import { RequestFailedError } from '../errors.js';
import type { HttpClient, HttpRequestInit } from '../httpClient.js';

/** What every call to the service needs; built once by the client from its validated options. */
export interface ApiContext {
  /** The service's base URL without a trailing slash. */
  readonly baseUrl: string;
  readonly httpClient: HttpClient;
  /** Upper bound for one request, in milliseconds. */
  readonly requestTimeout: number;
}

export interface RawResponse {
  status: number;
  body: string;
}

export interface SendOptions {
  method: 'GET' | 'POST' | 'DELETE';
  /** Sent as `Authorization: Bearer …`. */
  bearer?: string;
  /** A complete `Authorization` header value (HTTP Basic client authentication); wins over `bearer`. */
  authorization?: string;
  /** Serialised JSON body. */
  json?: string;
  /** Aborts the request, e.g. when the slot-info call it belongs to has failed. */
  signal?: AbortSignal;
}

/**
 * Sends one request and reads the whole body. The request is bounded by the context's timeout and
 * by `signal`. A transport failure becomes `RequestFailedError`; an abort through `signal` rethrows
 * the signal's reason, so the caller sees why its call ended (timeout, shutdown).
 */
export async function send(context: ApiContext, path: string, options: SendOptions): Promise<RawResponse> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.bearer !== undefined) headers.authorization = `Bearer ${options.bearer}`;
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  const init: HttpRequestInit = { method: options.method, headers };
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = options.json;
  }
  const timeout = AbortSignal.timeout(context.requestTimeout);
  init.signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    const response = await context.httpClient(`${context.baseUrl}${path}`, init);
    return { status: response.status, body: await response.text() };
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    // The path without its query: the authorize query carries the state.
    throw new RequestFailedError(`${context.baseUrl}${path.split('?')[0] ?? ''}`, { cause: error });
  }
}
