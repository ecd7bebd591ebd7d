import { AppError, isAppError } from '../../errors.js';
import type { OAuthClient } from '../../stores/clientStore.js';
import type {
  DeviceAuthorizationRecord,
  DeviceAuthorizationStore,
} from '../../stores/deviceAuthorizationStore.js';
import { grantedOidcScope } from '../oidc/scopes.js';
import { codeGrantRecords } from './authorizationCodeGrant.js';
import type { BrowserSessionService } from './browserSessions.js';
import type { ClientService } from './clientService.js';
import { loginClientMismatch } from './loginBinding.js';
import type { IssuedTokens } from './oauthGrantContext.js';
import {
  accessDenied,
  authorizationPending,
  expiredDeviceCode,
  invalidGrant,
  reasonOf,
  slowDown,
} from './oauthErrors.js';
import type { OAuthService } from './oauthService.js';
import { newOpaqueToken, sha256Hex } from './opaqueToken.js';
import { formatUserCode, newUserCode, normalizeUserCode } from './userCode.js';

/** The grant type of RFC 8628 §3.4, also the redirect URI recorded on the codes it issues. */
export const DEVICE_CODE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';

/** RFC 8628 §3.5: every `slow_down` adds 5 seconds to the device's interval. */
export const SLOW_DOWN_SECONDS = 5;

/**
 * The authorization code an approval issues for a device code. Derived from the device code, so
 * the code flow's own redemption (`exchangeCode`) serves the device grant, and only the holder of the
 * device code can redeem it: the database keeps both hashes, neither preimage.
 */
const codeOfDeviceCode = (deviceCode: string) => sha256Hex(`dauth/device-grant/code:${deviceCode}`);

export interface DeviceAuthorizationStart {
  deviceCode: string;
  /** Formatted `XXXX-XXXX`. */
  userCode: string;
  expiresIn: number;
  interval: number;
}

/** A pending request as the verification page and the companion API show it. */
export interface PendingDeviceAuthorization {
  record: DeviceAuthorizationRecord;
  client: OAuthClient;
  /** Formatted `XXXX-XXXX`. */
  userCode: string;
}

/**
 * Who approves a device: the verification page, whose Allow is the player's consent (the page records
 * it), or a bearer login JWT and the app it is bound to (`azp`, undefined when unbound).
 */
export type DeviceApprover = { via: 'page' } | { via: 'bearer'; boundTo: string | undefined };

/** 403 `consent_required`: an unbound login JWT approving an app the player never approved for these scopes. */
export const deviceConsentRequired = () =>
  new AppError(
    403,
    'consent_required',
    'consent_required: the player has not approved this app for these scopes; approve the code on the /device page, or with a login JWT issued for this app',
  );

/** No pending request has this user code (wrong, expired, or already decided). */
export const invalidUserCode = () =>
  new AppError(400, 'invalid_user_code', 'This code is wrong or has expired; check the code on your device', {
    field: 'user_code',
  });

/**
 * The device authorization grant (RFC 8628, docs/players.md). A device asks for a device code and a
 * user code; the player enters the user code on the `/device` page or in a companion app and approves;
 * the approval opens the grant with an authorization code derived from the device code, in one
 * commit; the device's poll redeems that code through the code flow's own exchange, so its tokens are
 * exactly the code flow's (access token, refresh token, and an `id_token` for `openid`), and a second
 * redemption fails and revokes them like a replayed code.
 */
export class DeviceAuthorizationService {
  readonly #now: () => number;

  constructor(
    private readonly deps: {
      devices: DeviceAuthorizationStore;
      oauth: OAuthService;
      clients: ClientService;
      /** The consents players gave on the login and device pages. */
      consents: Pick<BrowserSessionService, 'hasConsent'>;
      ttlSeconds: number;
      intervalSeconds: number;
      now?: () => number;
    },
  ) {
    this.#now = deps.now ?? Date.now;
  }

  /** `POST /oauth/device_authorization` for an authenticated client. */
  async start(
    client: Pick<OAuthClient, 'clientId'>,
    scope: string | undefined,
  ): Promise<DeviceAuthorizationStart> {
    const { devices, ttlSeconds, intervalSeconds } = this.deps;
    const deviceCode = newOpaqueToken();
    const now = this.#now();
    // A user code may collide with a stored one (20^8 codes): draw again; three misses in a row
    // would mean a table full of codes, which the rate limits keep far away.
    for (let attempt = 0; attempt < 3; attempt++) {
      const userCode = newUserCode();
      const stored = await devices.insert({
        deviceCodeHash: sha256Hex(deviceCode),
        userCode,
        clientId: client.clientId,
        scope: scope === undefined ? undefined : scope.slice(0, 1000),
        codeHash: sha256Hex(codeOfDeviceCode(deviceCode)),
        createdAt: now,
        expiresAt: now + ttlSeconds * 1000,
        intervalSeconds,
        lastPolledAt: null,
        status: 'pending',
        userUuid: null,
        decidedAt: null,
      });
      if (stored) {
        return {
          deviceCode,
          userCode: formatUserCode(userCode),
          expiresIn: ttlSeconds,
          interval: intervalSeconds,
        };
      }
    }
    throw new AppError(503, 'overloaded', 'No free user code; try again shortly', { retryAfterSeconds: 1 });
  }

  /** The pending request the player's code names, with its app; throws `invalid_user_code`. */
  async pending(userInput: string): Promise<PendingDeviceAuthorization> {
    const userCode = normalizeUserCode(userInput);
    const record =
      userCode === undefined ? undefined : await this.deps.devices.findPending(userCode, this.#now());
    const client = record && (await this.deps.clients.findClient(record.clientId));
    if (!record || !client) throw invalidUserCode();
    return { record, client, userCode: formatUserCode(record.userCode) };
  }

  /**
   * The request a player decides on. `boundTo`: the app the deciding login JWT is bound to (`azp`,
   * docs/security.md "Login binding"); a JWT bound to another app decides nothing (401 `client_mismatch`).
   */
  async #decidable(userInput: string, boundTo: string | undefined): Promise<PendingDeviceAuthorization> {
    const pending = await this.pending(userInput);
    if (boundTo !== undefined && boundTo !== pending.client.clientId) throw loginClientMismatch();
    return pending;
  }

  /**
   * The player approves: opens the grant (with the OpenID scope and `authTime`, ms, when `openid`
   * was asked) and its code, in the commit that moves the request out of pending. A bearer login JWT
   * approves like one at `/oauth/authorize` under `LOGIN_BINDING=strict`, whatever the setting
   * (decisions §9): bound to this app, or unbound with the player's recorded consent to it covering
   * the scopes; otherwise 403 `consent_required` and the request stays pending for the page.
   */
  async approve(
    userInput: string,
    userUuid: number,
    authTime: number,
    by: DeviceApprover,
    /** How the player signed in (RFC 8176), kept on the grant (docs/oidc.md). */
    amr?: readonly string[],
  ): Promise<PendingDeviceAuthorization> {
    const pending = await this.#decidable(userInput, by.via === 'bearer' ? by.boundTo : undefined);
    const { record, client } = pending;
    const scope = grantedOidcScope(record.scope);
    if (
      by.via === 'bearer' &&
      by.boundTo !== client.clientId &&
      !(await this.deps.consents.hasConsent(userUuid, client.clientId, scope))
    ) {
      throw deviceConsentRequired();
    }
    const now = this.#now();
    const { grant, record: code } = codeGrantRecords(
      {
        client,
        userUuid,
        redirectUri: DEVICE_CODE_GRANT_TYPE,
        oidc: scope === undefined ? undefined : { scope, authTime },
        amr,
      },
      record.codeHash,
      now,
    );
    if (!(await this.deps.devices.approve(record.deviceCodeHash, now, grant, code))) throw invalidUserCode();
    return pending;
  }

  /** The player denies: the device's next poll gets `access_denied`. */
  async deny(userInput: string, userUuid: number, boundTo?: string): Promise<PendingDeviceAuthorization> {
    const pending = await this.#decidable(userInput, boundTo);
    if (!(await this.deps.devices.deny(pending.record.deviceCodeHash, userUuid, this.#now()))) {
      throw invalidUserCode();
    }
    return pending;
  }

  /**
   * `grant_type=urn:ietf:params:oauth:grant-type:device_code` for an authenticated client: the tokens
   * once approved, else the RFC 8628 §3.5 error the device acts on.
   */
  async redeem(client: OAuthClient, deviceCode: string): Promise<IssuedTokens> {
    const { devices } = this.deps;
    const now = this.#now();
    const record = await devices.findByDeviceCode(sha256Hex(deviceCode));
    if (!record) throw invalidGrant('device_code_unknown', 'The device code is invalid');
    // Another client's device code changes nothing: not its poll time, not its tokens.
    if (record.clientId !== client.clientId) {
      throw invalidGrant('client_mismatch', 'The device code was issued to another client');
    }
    if (record.status === 'approved') return this.#exchange(client, deviceCode);
    if (record.status === 'denied') throw accessDenied();
    if (record.expiresAt <= now) throw expiredDeviceCode();
    if (!(await devices.recordPoll(record.deviceCodeHash, now, SLOW_DOWN_SECONDS))) {
      throw slowDown(record.intervalSeconds + SLOW_DOWN_SECONDS);
    }
    throw authorizationPending();
  }

  /** The approved request's code through the code flow's exchange, its refusals said for a device code. */
  async #exchange(client: OAuthClient, deviceCode: string): Promise<IssuedTokens> {
    try {
      return await this.deps.oauth.exchangeCode({
        client,
        code: codeOfDeviceCode(deviceCode),
        redirectUri: DEVICE_CODE_GRANT_TYPE,
      });
    } catch (err) {
      const reason = isAppError(err) ? reasonOf(err) : undefined;
      if (reason === 'code_used') {
        throw invalidGrant(
          'code_used',
          'The device code was already used; every token issued from it is revoked',
        );
      }
      if (reason === 'code_expired') throw expiredDeviceCode();
      throw err;
    }
  }

  purgeExpired(): Promise<void> {
    return this.deps.devices.purgeExpired(this.#now());
  }
}
