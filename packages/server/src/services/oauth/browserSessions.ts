import type { KeyObject } from 'node:crypto';
import { deriveHmacKey } from '../../crypto/derivedKey.js';
import { safeEqual } from '../../crypto/constantTime.js';
import type { OAuthSessionStore, SessionRecord } from '../../stores/oauthSessionStore.js';
import { type DeviceOrigin, deviceOrigin } from '../accountSessions/device.js';
import type { RequestContext } from '../security/requestContext.js';
import { consentCovers, mergedScope } from '../oidc/scopes.js';
import { hmacHex, newOpaqueToken, sha256Hex } from './opaqueToken.js';

/** A live session of the login page: who, when they proved their first credential (ms), and how. */
export interface PageSession {
  userUuid: number;
  authTime: number;
  amr: string[];
}

/** Lifetime of a session of the service's own login page. */
export const SESSION_TTL_MS = 8 * 3600_000;

/** A session's last use is written at most this often (it is read on every authorization). */
const LAST_USED_EVERY_MS = 60_000;

/**
 * Sessions and CSRF protection of the login-and-consent page.
 *
 * - The session cookie holds 256 random bits; the database keeps only their SHA-256.
 * - CSRF: a random per-browser cookie (HttpOnly) plus a form field that is HMAC(key, cookie),
 *   the key derived from MASTER_KEY. A cross-site page can neither read the cookie nor compute
 *   the field, so it cannot forge a login or a consent.
 * - Consent: remembered per user and app with the scopes approved; a session alone never authorizes
 *   an app the user has not approved on the page, nor claims (e-mail, name, wallet) they were not shown.
 */
export class BrowserSessionService {
  readonly #csrfKey: KeyObject;

  constructor(
    private readonly store: OAuthSessionStore,
    masterKey: Buffer,
    private readonly now: () => number = Date.now,
  ) {
    this.#csrfKey = deriveHmacKey(masterKey, 'csrf/v1');
  }

  #signInGates: ((userUuid: number) => Promise<void>)[] = [];

  /** Asked before a login-page session opens: throws to refuse the sign-in (docs/security.md). */
  useSignInGate(gate: (userUuid: number) => Promise<void>): void {
    this.#signInGates.push(gate);
  }

  /**
   * A session for a signed-in user. `proof`: when the first credential was proved (ms; a second step
   * ends later but the sign-in is the password's) and how (RFC 8176 `amr`, carried to the grants).
   * `origin`: the signing-in request (its device and network are kept for the account's Security page).
   */
  async createSession(
    userUuid: number,
    proof: { authTime?: number; amr: readonly string[] },
    origin?: RequestContext,
  ): Promise<{ cookieValue: string; maxAgeSeconds: number }> {
    for (const gate of this.#signInGates) await gate(userUuid);
    const cookieValue = newOpaqueToken();
    const now = this.now();
    const device: DeviceOrigin = deviceOrigin(origin);
    await this.store.insertSession({
      sessionHash: sha256Hex(cookieValue),
      userUuid,
      createdAt: now,
      expiresAt: now + SESSION_TTL_MS,
      authTime: proof.authTime ?? now,
      amr: [...proof.amr],
      ...device,
    });
    return { cookieValue, maxAgeSeconds: SESSION_TTL_MS / 1000 };
  }

  /** The user of a live session, or undefined. */
  async userOfSession(cookieValue: string | undefined): Promise<number | undefined> {
    if (!cookieValue || cookieValue.length > 100) return undefined;
    const session = await this.store.findLiveSession(sha256Hex(cookieValue), this.now());
    return session?.userUuid;
  }

  /** The user of a live session, when (OIDC `auth_time`, ms) and how (`amr`) they signed in, or undefined. */
  async sessionOf(cookieValue: string | undefined): Promise<PageSession | undefined> {
    if (!cookieValue || cookieValue.length > 100) return undefined;
    const now = this.now();
    const session = await this.store.findLiveSession(sha256Hex(cookieValue), now);
    if (!session) return undefined;
    // Only the authorize and device pages ask: each is a use the account's Security page shows.
    await this.store.touchSession(session.sessionHash, now, LAST_USED_EVERY_MS);
    return { userUuid: session.userUuid, authTime: session.authTime, amr: session.amr };
  }

  async endSession(cookieValue: string | undefined): Promise<void> {
    if (cookieValue && cookieValue.length <= 100) await this.store.deleteSession(sha256Hex(cookieValue));
  }

  /** Ends every login-page session of the user, on every replica (sessions are looked up in the database). */
  endSessionsOf(userUuid: number): Promise<number> {
    return this.store.deleteSessionsOf(userUuid);
  }

  /** The user's live login-page sessions, newest first (the account's Security page). */
  liveSessionsOf(userUuid: number): Promise<SessionRecord[]> {
    return this.store.liveSessionsOf(userUuid, this.now());
  }

  /** Ends the user's session whose stored hash is `sessionHash`; false when it is not theirs (or gone). */
  endSessionOf(userUuid: number, sessionHash: string): Promise<boolean> {
    return this.store.deleteSessionOf(userUuid, sessionHash);
  }

  newCsrfCookie(): string {
    return newOpaqueToken();
  }

  csrfTokenFor(csrfCookie: string): string {
    return hmacHex(this.#csrfKey, `csrf:${csrfCookie}`);
  }

  verifyCsrf(csrfCookie: string | undefined, token: string | undefined): boolean {
    if (!csrfCookie || !token) return false;
    return safeEqual(this.csrfTokenFor(csrfCookie), token);
  }

  /**
   * Whether the user approved the app on the page for `scope` (the request's granted OpenID scope;
   * undefined for plain OAuth 2.0, which any consent to the app covers).
   */
  async hasConsent(userUuid: number, clientId: string, scope?: string): Promise<boolean> {
    return consentCovers(await this.store.consentedScope(userUuid, clientId), scope);
  }

  listConsents(userUuid: number): Promise<{ clientId: string; grantedAt: number }[]> {
    return this.store.listConsents(userUuid);
  }

  withdrawConsent(userUuid: number, clientId: string): Promise<boolean> {
    return this.store.deleteConsent(userUuid, clientId);
  }

  /**
   * Records the user's approval of the app for `scope`, added to what they approved before. Two
   * approvals at once may keep only one's scopes: the other is asked again, never granted unseen.
   */
  async recordConsent(userUuid: number, clientId: string, scope?: string): Promise<void> {
    const before = await this.store.consentedScope(userUuid, clientId);
    await this.store.recordConsent(userUuid, clientId, this.now(), mergedScope(before, scope));
  }

  purgeExpired(): Promise<void> {
    return this.store.purgeExpired(this.now());
  }
}
