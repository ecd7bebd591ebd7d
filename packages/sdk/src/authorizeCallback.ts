/**
 * The callback the service sends to `redirect_uri` after an accepted authorize: `{success, code,
 * state}` (spec, Events 1). `success` is 1 on success; anything else is a rejection.
 */
export interface AuthorizeCallback {
  state: string;
  success: boolean;
  /** The authorization code; present when `success` is true. */
  code?: string;
}

/**
 * Normalises a callback body. The service sends JSON with `success: 1`; a form-encoded or query
 * carrier gives the string "1", which counts too. Returns undefined when there is no `state` to
 * match, which callers treat like an unknown state: silently ignored.
 */
export function parseAuthorizeCallback(input: unknown): AuthorizeCallback | undefined {
  if (input === null || typeof input !== 'object') return undefined;
  const { state, success, code } = input as Record<string, unknown>;
  if (typeof state !== 'string' || state === '') return undefined;
  const callback: AuthorizeCallback = { state, success: success === 1 || success === '1' };
  if (typeof code === 'string' && code !== '') callback.code = code;
  return callback;
}

/**
 * What `handleCallback` did with a callback. The HTTP answer is 200 in every case; the outcome is
 * for logs and tests.
 * - `exchanging`: a pending call matched and its code is being exchanged.
 * - `rejected`: a pending call matched and failed with `authorize callback rejected`.
 * - `forwarded`: no call here is waiting for the state; the callback relay passed it on.
 * - `ignored`: nothing waits for the state (or the body had none, or the client is shut down).
 */
export type CallbackOutcome = 'exchanging' | 'rejected' | 'forwarded' | 'ignored';
