import { send } from '../api/apiContext.js';
import type { ApiContext, RawResponse } from '../api/apiContext.js';
import { checkTimeout, DEFAULT_AUTH_SERVER_URL, DEFAULT_REQUEST_TIMEOUT_MS } from '../clientOptions.js';
import { MalformedResponseError, ProviderRegistrationError } from '../errors.js';
import { throwIfMfaRequired } from '../api/mfa.js';
import type { HttpClient } from '../httpClient.js';

/** Which consumption payload forms the app accepts: the spec's CTR, both, or authenticated GCM only. */
export type PayloadMode = 'ctr' | 'ctr+gcm' | 'gcm';
/** Whether consumption calls need the app's client_id and client_secret as HTTP Basic. */
export type ConsumeAuth = 'none' | 'client_secret';

/**
 * The app owner's credentials. Provider settings need a fresh login (the service's `STEP_UP_MAX_AGE`,
 * 5 minutes by default): give the e-mail and password and the call signs in itself, or a login JWT
 * obtained within that time.
 */
export type ProviderOwnerCredentials = { email: string; password: string } | { loginToken: string };

export interface RegisterContentProviderOptions {
  /** The app (OAuth client) the `cuid` belongs to; the credentials must be its owner's. */
  clientId: string;
  /** The content id: 1 to 128 printable characters without spaces. */
  cuid: string;
  /** Settlement ratio on used balances, an integer from 0 to 100. */
  releasePer: number;
  /** The provider wallet that receives the revenue and the releases (`0x…`). */
  ownerAddr: string;
  owner: ProviderOwnerCredentials;
  /**
   * Default: `gcm` on the app's first provider (authenticated payloads, each accepted once); a later
   * cuid keeps the app's setting unless this is given.
   */
  payloadMode?: PayloadMode;
  /** Default: `client_secret` on the app's first provider; a later cuid keeps the app's setting. */
  consumeAuth?: ConsumeAuth;
  /** The service's base URL; default `http://127.0.0.1:8080`. */
  authServerUrl?: string;
  /** Fetch-like HTTP client; default `globalThis.fetch`. */
  httpClient?: HttpClient;
  /** Bound for each request, in milliseconds; default 15 000 (registration waits for the chain). */
  requestTimeout?: number;
}

/** The service's answer. The key material is present only when this call issued it: store it now. */
export interface ProviderRegistration {
  txHash: string;
  /** The app's settings after the call. */
  payloadMode: PayloadMode;
  consumeAuth: ConsumeAuth;
  /** Hex, 32 bytes: the spec's AES-256-CTR key; on the app's first registration only. */
  encryptionKey: string | undefined;
  /** Hex, 16 bytes: the CTR IV; on the app's first registration only. */
  encryptionIv: string | undefined;
  /** Hex, 32 bytes: the AES-256-GCM key, when this call issued it (`ContentConsumer`'s `cipher.key`). */
  gcmKey: string | undefined;
}

const REGISTER_PATH = '/v1/development-api/init_permission_provider';
const LOGIN_PATH = '/v1/dev-user/login_devuser';

/** The parsed JSON object of an answer, or `MalformedResponseError`. */
function body(response: RawResponse): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(response.body);
  } catch (error) {
    throw new MalformedResponseError('body is not JSON', response.status, { cause: error });
  }
  return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
}

function refused(response: RawResponse, answer: Record<string, unknown>): ProviderRegistrationError {
  return new ProviderRegistrationError(
    response.status,
    typeof answer.error === 'string' ? answer.error : undefined,
    typeof answer.message === 'string' ? answer.message : 'no error message',
  );
}

/**
 * Registers a content provider (`init_permission_provider`, decisions §7) for an app, as its owner, in
 * the strong mode by default: the app's first provider requires AES-256-GCM payloads and the app's
 * client secret on every consumption call (what `ContentConsumer` with `clientSecret` and a `gcm`
 * cipher sends). A later cuid of the same app keeps the app's settings unless `payloadMode` or
 * `consumeAuth` is given. Throws `MfaRequiredError` when the owner's account has a second factor (sign in
 * with `DauthClient.loginMfa` and pass `{loginToken}`), `ProviderRegistrationError` when the service refuses (e.g. 401
 * `reauthentication_required` for a stale login JWT, 403 `not_client_owner`, 409 `cuid_taken`).
 */
export async function registerContentProvider(
  options: RegisterContentProviderOptions,
): Promise<ProviderRegistration> {
  for (const name of ['clientId', 'cuid', 'ownerAddr'] as const) {
    if (typeof options[name] !== 'string' || options[name] === '') {
      throw new TypeError(`dauth: ${name} is required`);
    }
  }
  if (!Number.isInteger(options.releasePer) || options.releasePer < 0 || options.releasePer > 100) {
    throw new TypeError('dauth: releasePer must be an integer from 0 to 100');
  }
  const requestTimeout = options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT_MS;
  checkTimeout('requestTimeout', requestTimeout);
  const api: ApiContext = {
    baseUrl: (options.authServerUrl ?? DEFAULT_AUTH_SERVER_URL).replace(/\/+$/, ''),
    httpClient: options.httpClient ?? ((url, init) => fetch(url, init)),
    requestTimeout,
  };

  const owner: unknown = options.owner;
  if (typeof owner !== 'object' || owner === null) {
    throw new TypeError('dauth: owner ({email, password} or {loginToken}) is required');
  }
  let token: string;
  if ('loginToken' in options.owner) {
    token = options.owner.loginToken;
  } else {
    const login = await send(api, LOGIN_PATH, {
      method: 'POST',
      // Bound to the app (`azp`): this login JWT opens no other app's authorize (decisions §8).
      json: JSON.stringify({
        email: options.owner.email,
        password: options.owner.password,
        client_id: options.clientId,
      }),
    });
    const answer = body(login);
    if (login.status !== 200) throw refused(login, answer);
    // An owner with a second factor: `client.loginMfa` turns the error's mfaToken and a code into the
    // loginToken to call again with.
    throwIfMfaRequired(answer);
    if (typeof answer.token !== 'string') {
      throw new MalformedResponseError('a login answer without token', login.status);
    }
    token = answer.token;
  }

  // The strong defaults apply to the app's first provider only, as in the console and the CLI.
  let firstProvider = false;
  if (options.payloadMode === undefined || options.consumeAuth === undefined) {
    const query = new URLSearchParams({ client_id: options.clientId });
    const current = await send(api, `/v1/development-api/payload_mode?${query.toString()}`, {
      method: 'GET',
      bearer: token,
    });
    const answer = body(current);
    if (current.status === 404 && answer.error === 'provider_not_registered') firstProvider = true;
    else if (current.status !== 200) throw refused(current, answer);
  }
  const payloadMode = options.payloadMode ?? (firstProvider ? 'gcm' : undefined);
  const consumeAuth = options.consumeAuth ?? (firstProvider ? 'client_secret' : undefined);

  const response = await send(api, REGISTER_PATH, {
    method: 'POST',
    bearer: token,
    json: JSON.stringify({
      client_id: options.clientId,
      cuid: options.cuid,
      release_per: options.releasePer,
      owner_addr: options.ownerAddr,
      ...(payloadMode !== undefined ? { payload_mode: payloadMode } : {}),
      ...(consumeAuth !== undefined ? { consume_auth: consumeAuth } : {}),
    }),
  });
  const answer = body(response);
  if (response.status !== 200 || answer.success !== true) throw refused(response, answer);
  const text = (key: string): string | undefined =>
    typeof answer[key] === 'string' ? answer[key] : undefined;
  const txHash = text('tx_hash');
  const mode = text('payload_mode');
  const auth = text('consume_auth');
  if (txHash === undefined || mode === undefined || auth === undefined) {
    throw new MalformedResponseError(
      'a registration without tx_hash, payload_mode or consume_auth',
      response.status,
    );
  }
  return {
    txHash,
    payloadMode: mode as PayloadMode,
    consumeAuth: auth as ConsumeAuth,
    encryptionKey: text('encryption_key'),
    encryptionIv: text('encryption_iv'),
    gcmKey: text('gcm_key'),
  };
}
