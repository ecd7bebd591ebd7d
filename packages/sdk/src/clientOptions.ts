import type { HttpClient, Logger } from './httpClient.js';
import type { CallbackRelay } from './relay/callbackRelay.js';

export const DEFAULT_AUTH_SERVER_URL = 'http://127.0.0.1:8080';
/** Default wait for the callback, in milliseconds (spec, Limits). */
export const DEFAULT_CALLBACK_TIMEOUT_MS = 15_000;
/** Default bound for one HTTP request to the service, in milliseconds. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;
// setTimeout fires at once for delays above this.
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface DauthClientOptions {
  clientId: string;
  /** The app's client secret. Server-side only: never send it, or this client, to a browser. */
  clientSecret: string;
  /** The callback URL exactly as registered (scheme, host, port, path, trailing slash). */
  redirectUri: string;
  /** The service's base URL; default `http://127.0.0.1:8080`. */
  authServerUrl?: string;
  /** Fetch-like HTTP client; default `globalThis.fetch`. It must honour `init.signal`. */
  httpClient?: HttpClient;
  /** Bound for each request to the service, in milliseconds; default 15 000. */
  requestTimeout?: number;
  /** Receives the failures the SDK swallows (status reports, callback forwarding); default console. */
  logger?: Logger;
  /** Shares callbacks between the processes of one backend (see `RedisCallbackRelay`). */
  callbackRelay?: CallbackRelay;
}

export interface ResolvedOptions {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  authServerUrl: string;
  httpClient: HttpClient;
  requestTimeout: number;
  logger: Logger;
  callbackRelay: CallbackRelay | undefined;
}

const consoleLogger: Logger = {
  warn: (message, context) => (context ? console.warn(message, context) : console.warn(message)),
};

/** Validates the options once, at construction; a bad configuration throws a TypeError or RangeError. */
export function resolveOptions(options: DauthClientOptions): ResolvedOptions {
  for (const key of ['clientId', 'clientSecret', 'redirectUri'] as const) {
    const value: unknown = options[key];
    if (typeof value !== 'string' || value === '') throw new TypeError(`dauth: ${key} is required`);
  }
  requireHttpUrl('redirectUri', options.redirectUri);
  const authServerUrl = options.authServerUrl ?? DEFAULT_AUTH_SERVER_URL;
  const base = requireHttpUrl('authServerUrl', authServerUrl);
  if (base.search !== '' || base.hash !== '') {
    throw new TypeError('dauth: authServerUrl must not have a query or fragment');
  }
  const requestTimeout = options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT_MS;
  checkTimeout('requestTimeout', requestTimeout);
  return {
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    // Kept as given, never re-serialised through URL: the service compares it byte for byte.
    redirectUri: options.redirectUri,
    authServerUrl: authServerUrl.replace(/\/+$/, ''),
    httpClient: options.httpClient ?? ((url, init) => fetch(url, init)),
    requestTimeout,
    logger: options.logger ?? consoleLogger,
    callbackRelay: options.callbackRelay,
  };
}

export function checkTimeout(name: string, value: unknown): asserts value is number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_TIMER_MS) {
    throw new RangeError(`dauth: ${name} must be a positive number of milliseconds up to ${MAX_TIMER_MS}`);
  }
}

function requireHttpUrl(name: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`dauth: ${name} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`dauth: ${name} must be an http or https URL`);
  }
  return url;
}
