/**
 * The HTTP client the SDK calls the service with. `globalThis.fetch` fits; so does any wrapper
 * (proxy agent, tracing, retries) with the same shape. Only `status` and `text()` are read, because
 * bodies must reach the lossless JSON parser as text.
 */
export interface HttpRequestInit {
  method: 'GET' | 'POST' | 'DELETE';
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

export interface HttpResponse {
  readonly status: number;
  text(): Promise<string>;
}

export type HttpClient = (url: string, init: HttpRequestInit) => Promise<HttpResponse>;

/** Where a logged event came from; secrets and tokens are never put into it. */
export interface Logger {
  warn(message: string, context?: Record<string, unknown>): void;
}
