import { randomBytes } from 'node:crypto';
import type { ApiContext } from './api/apiContext.js';
import { authorize } from './api/authorize.js';
import { pollDeviceToken, startDeviceAuthorization } from './api/deviceAuthorization.js';
import type { DeviceAuthorization, DeviceTokens, PollDeviceTokenOptions } from './api/deviceAuthorization.js';
import { getToken } from './api/getToken.js';
import type { ClientCredentials } from './api/getToken.js';
import { checkLoginStatus, updateLoginStatus } from './api/loginStatus.js';
import type { LoginStatus, LoginStatusParameters } from './api/loginStatus.js';
import { logout } from './api/logout.js';
import {
  createGuest,
  guestLogin,
  type GuestSession,
  type GuestUpgrade,
  type NewGuest,
  upgradeGuest,
} from './api/guests.js';
import {
  federatedLogin,
  platformLogin,
  type PlatformCredential,
  type FederatedLogin,
  type LinkedIdentity,
  linkIdentity,
  listIdentities,
  unlinkIdentity,
} from './api/federation.js';
import { loginMfa, type LoginSession } from './api/mfa.js';
import { sessionOperations, type SessionCall, type SessionOperationResult } from './api/sessionOperations.js';
import { parseAuthorizeCallback } from './authorizeCallback.js';
import type { AuthorizeCallback, CallbackOutcome } from './authorizeCallback.js';
import { checkTimeout, DEFAULT_CALLBACK_TIMEOUT_MS, resolveOptions } from './clientOptions.js';
import type { DauthClientOptions } from './clientOptions.js';
import { CallbackRejectedError, MissingJwtError, ShutdownError } from './errors.js';
import type { Logger } from './httpClient.js';
import { PendingRequests } from './pendingRequests.js';
import type { CallbackRelay } from './relay/callbackRelay.js';
import type { SlotInfo } from './slotInfo.js';

export interface GetSlotInfoParameters {
  /** The user's login JWT, as the game client sent it. Missing or empty: `MissingJwtError` (400). */
  jwt: string;
  /** How long to wait for the callback, in milliseconds; default 15 000. */
  timeout?: number;
}

/** The result of a login-status report. Reports never throw: a failure is returned and logged. */
export type StatusReport = { ok: true; status: LoginStatus } | { ok: false; error: Error };

/**
 * The backend side of dauth's backend integration flow (spec, endpoint 13): turns a user's login
 * JWT into slot information via authorize, callback and get_token, and wraps the calls around it
 * (refresh, logout, login-status reports).
 *
 * One instance per process; it keeps the pending requests. Mount a callback handler (`handleCallback`,
 * or the ready-made ones for node:http, Express and Fastify) at the path of `redirectUri`.
 */
export class DauthClient {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly authServerUrl: string;
  // A private field, so that the secret shows in neither util.inspect nor JSON.stringify.
  readonly #credentials: ClientCredentials;
  readonly #api: ApiContext;
  readonly #logger: Logger;
  readonly #relay: CallbackRelay | undefined;
  readonly #pending = new PendingRequests();
  readonly #calls = new Set<Promise<unknown>>();
  readonly #cleanups = new Set<Promise<unknown>>();
  #shutDown = false;

  constructor(options: DauthClientOptions) {
    const resolved = resolveOptions(options);
    this.clientId = resolved.clientId;
    this.redirectUri = resolved.redirectUri;
    this.authServerUrl = resolved.authServerUrl;
    this.#credentials = { clientId: resolved.clientId, clientSecret: resolved.clientSecret };
    this.#api = {
      baseUrl: resolved.authServerUrl,
      httpClient: resolved.httpClient,
      requestTimeout: resolved.requestTimeout,
    };
    this.#logger = resolved.logger;
    this.#relay = resolved.callbackRelay;
  }

  /** True once `shutdown` was called. */
  get isShutDown(): boolean {
    return this.#shutDown;
  }

  /**
   * Runs authorize for the user's JWT, waits for the callback carrying this call's `state`,
   * exchanges its code and returns the slot. Fails with the errors of the spec's mapping table;
   * `toHttpStatus(error)` gives the status to answer with.
   */
  getSlotInfo(parameters: GetSlotInfoParameters): Promise<SlotInfo> {
    const call = this.#getSlotInfo(parameters);
    this.#calls.add(call);
    call.then(
      () => this.#calls.delete(call),
      () => this.#calls.delete(call),
    );
    return call;
  }

  async #getSlotInfo(parameters: GetSlotInfoParameters | undefined): Promise<SlotInfo> {
    if (this.#shutDown) throw new ShutdownError();
    const jwt: unknown = parameters?.jwt;
    if (typeof jwt !== 'string' || jwt.trim() === '') throw new MissingJwtError();
    const timeout = parameters?.timeout ?? DEFAULT_CALLBACK_TIMEOUT_MS;
    checkTimeout('timeout', timeout);

    const state = randomBytes(32).toString('base64url');
    // Registered before authorize: the callback may arrive before authorize's answer does.
    const pending = this.#pending.open(state, timeout);
    try {
      if (this.#relay) {
        await untilAborted(
          this.#relay.listen(state, (callback) => this.#deliver(callback)),
          pending.signal,
        );
      }
      const { clientId } = this.#credentials;
      await untilAborted(
        authorize(this.#api, { clientId, redirectUri: this.redirectUri, state, jwt, signal: pending.signal }),
        pending.signal,
      );
      return await pending.result;
    } finally {
      this.#pending.close(state);
      if (this.#relay) this.#track(this.#relay.unlisten(state));
    }
  }

  /**
   * Handles the body of a callback POST. Call it after answering 200: it returns at once and exchanges
   * the code in a detached task (spec, endpoint 13, callback handling order). A callback for a state
   * this process does not know is forwarded through the relay, if there is one, and otherwise
   * ignored, so the call waiting for it (if any) times out.
   */
  handleCallback(body: unknown): CallbackOutcome {
    if (this.#shutDown) return 'ignored';
    const callback = parseAuthorizeCallback(body);
    if (!callback) return 'ignored';
    const outcome = this.#deliver(callback);
    if (outcome) return outcome;
    if (!this.#relay) return 'ignored';
    this.#track(this.#relay.forward(callback));
    return 'forwarded';
  }

  /** Completes the pending request for the callback's state, if this process holds it. */
  #deliver(callback: AuthorizeCallback): CallbackOutcome | undefined {
    const claimed = this.#pending.claim(callback.state);
    if (!claimed) return undefined;
    if (!callback.success || callback.code === undefined) {
      claimed.reject(new CallbackRejectedError());
      return 'rejected';
    }
    const grant = { grant_type: 'authorization_code', code: callback.code } as const;
    getToken(this.#api, this.#credentials, grant, claimed.signal).then(claimed.resolve, claimed.reject);
    return 'exchanging';
  }

  /**
   * Fails every pending call with `shutdown` and refuses later slot-info calls. Resolves when the
   * failed calls have finished, including their relay clean-up.
   */
  async shutdown(): Promise<void> {
    if (!this.#shutDown) {
      this.#shutDown = true;
      this.#pending.failAll(new ShutdownError());
    }
    await Promise.allSettled([...this.#calls]);
    await Promise.allSettled([...this.#cleanups]);
  }

  /** Exchanges a refresh token for fresh slot information (get_token, `grant_type=refresh_token`). */
  refresh(refreshToken: string): Promise<SlotInfo> {
    return getToken(this.#api, this.#credentials, {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
    });
  }

  /**
   * Starts the device authorization grant (RFC 8628, docs/players.md) for a console, TV or launcher:
   * show the answer's `userCode` and `verificationUri` (or a QR code of `verificationUriComplete`),
   * then call `pollDeviceToken`.
   */
  startDeviceAuthorization(parameters: { scope?: string } = {}): Promise<DeviceAuthorization> {
    return startDeviceAuthorization(this.#api, this.#credentials, parameters.scope);
  }

  /**
   * Polls for the device's tokens until the player approved or denied, honouring `interval` and
   * `slow_down`. Rejects with `DeviceFlowError` (`access_denied`, `expired_token`, …).
   */
  pollDeviceToken(
    authorization: Pick<DeviceAuthorization, 'deviceCode' | 'interval'>,
    options?: PollDeviceTokenOptions,
  ): Promise<DeviceTokens> {
    return pollDeviceToken(this.#api, this.#credentials, authorization, options);
  }

  /** Revokes the token pair of `accessToken` and sets the user's status to `logged_out`. */
  logout(accessToken: string): Promise<void> {
    return logout(this.#api, accessToken);
  }

  /**
   * A guest account for a new player of this app (docs/players.md): a login JWT bound to the app and
   * the secret the game keeps on the device (returned this once).
   */
  createGuest(): Promise<NewGuest> {
    return createGuest(this.#api, this.clientId);
  }

  /** Signs a guest in with the uuid and secret the device kept. */
  guestLogin(uuid: string, guestSecret: string): Promise<GuestSession> {
    return guestLogin(this.#api, uuid, guestSecret);
  }

  /** Turns the guest (its login JWT) into a full account with e-mail and password: same uuid. */
  upgradeGuest(guestToken: string, upgrade: GuestUpgrade): Promise<string> {
    return upgradeGuest(this.#api, guestToken, upgrade);
  }

  /**
   * Native sign-in with an upstream `id_token` (Sign in with Apple or Google on the device; docs/federation.md):
   * a login JWT bound to this app. The first sign-in of an identity creates the account (`created`).
   * Rejects with `InvalidIdTokenError` (401), `IdTokenReplayedError` (401: this id_token was used
   * already; get a new one from the platform, never retry it) or `AccountLinkRequiredError` (409: an
   * account with that e-mail exists; the player signs in to it at the dauth console and links there).
   * An account with a second factor: `MfaRequiredError` (`created` on it), then `loginMfa`.
   */
  federatedLogin(provider: string, idToken: string): Promise<FederatedLogin> {
    return federatedLogin(this.#api, this.clientId, provider, idToken);
  }

  /**
   * Platform sign-in for a backend relaying its game's credential (docs/federation.md "Platform sign-in
   * inside the game"): a Steam ticket, an EOS ID token, a Game Center signature or a Play Games server
   * auth code, for a login JWT bound to this app; the first sign-in creates the account (`created`).
   * Rejects with `PlatformRejectedError` (401: get a new credential, never retry it),
   * `PlatformBannedError` (403) or `MfaRequiredError` (then `loginMfa`).
   */
  platformLogin(provider: string, credential: PlatformCredential): Promise<FederatedLogin> {
    return platformLogin(this.#api, this.clientId, provider, credential);
  }

  /**
   * The second step of a sign-in that threw `MfaRequiredError` (docs/mfa.md): its `mfaToken` and the
   * player's current authenticator code or an unused recovery code give the session, bound as the first
   * step was. Rejects with `InvalidMfaCodeError` (401: wrong or used code; ask again, the token takes 5
   * codes) or `InvalidMfaTokenError` (401: unknown, expired, used or ended after 5 codes; sign in again).
   */
  loginMfa(mfaToken: string, code: string): Promise<LoginSession> {
    return loginMfa(this.#api, mfaToken, code);
  }

  /** The upstream identities linked to the account of `loginToken` (a login JWT). */
  listIdentities(loginToken: string): Promise<LinkedIdentity[]> {
    return listIdentities(this.#api, loginToken);
  }

  /**
   * Links an upstream identity, proven by its `id_token`, to the signed-in account. With the app's
   * JWT only a guest may (it becomes a full account: same uuid); any other account gets
   * `FirstPartyRequiredError` (403): the player links at the dauth console. 409 `identity_in_use`
   * when another account has it.
   */
  linkIdentity(loginToken: string, provider: string, idToken: string): Promise<LinkedIdentity> {
    return linkIdentity(this.#api, loginToken, provider, idToken);
  }

  /**
   * Unlinks an identity with a console JWT; `FirstPartyRequiredError` (403) with the app's JWT,
   * `LastSignInMethodError` (409) when it is the account's last way in.
   */
  unlinkIdentity(loginToken: string, identityId: string): Promise<void> {
    return unlinkIdentity(this.#api, loginToken, identityId);
  }

  /**
   * Acts for the player without their PIN, within the wallet policy they granted this app
   * (docs/session-keys.md): `accessToken` is the player's OAuth access token for this app (e.g. the
   * slot's `access_token`). Each call's `value` is wei. Rejects with `OutsideSessionPolicyError`
   * (403, `callIndex` and `reason`; nothing signed) or `SessionOperationError` (404
   * `session_key_not_found` when the player has not granted or has revoked it, …).
   */
  sessionOperations(accessToken: string, calls: readonly SessionCall[]): Promise<SessionOperationResult> {
    return sessionOperations(this.#api, accessToken, calls);
  }

  /** Reports that the user logged in to this app. Never throws; see `StatusReport`. */
  reportLogin(parameters: LoginStatusParameters): Promise<StatusReport> {
    return this.#report('login', parameters);
  }

  /** Reports that the user logged out, which allows listing their rights on the marketplace. */
  reportLogout(parameters: LoginStatusParameters): Promise<StatusReport> {
    return this.#report('logout', parameters);
  }

  /** Reads the user's login status and `transfer_enabled`; throws on failure, unlike the reports. */
  checkStatus(parameters: LoginStatusParameters): Promise<LoginStatus> {
    return checkLoginStatus(this.#api, this.clientId, parameters);
  }

  async #report(transition: 'login' | 'logout', parameters: LoginStatusParameters): Promise<StatusReport> {
    // The spec: status-update failures must not block the user's login or logout.
    try {
      return { ok: true, status: await updateLoginStatus(this.#api, this.clientId, transition, parameters) };
    } catch (caught) {
      const error = caught instanceof Error ? caught : new Error(String(caught));
      this.#logger.warn(`dauth: reporting ${transition} failed`, { error: error.message });
      return { ok: false, error };
    }
  }

  /** Keeps a detached relay operation until it ends, logging its failure; `shutdown` awaits them. */
  #track(operation: Promise<unknown>): void {
    const tracked = operation.catch((error: unknown) => {
      this.#logger.warn('dauth: callback relay operation failed', {
        error: error instanceof Error ? error.message : String(error),
      });
    });
    this.#cleanups.add(tracked);
    void tracked.finally(() => this.#cleanups.delete(tracked));
  }
}

/** Settles with `promise`, or rejects with the signal's reason as soon as it is aborted. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
