import { createHash } from 'node:crypto';
import { AppError } from '../../errors.js';
import type { FederationService } from '../federation/federationService.js';
import type { MfaService } from '../mfa/mfaService.js';
import type { BrowserSessionService } from '../oauth/browserSessions.js';
import type { ClientService } from '../oauth/clientService.js';
import type { OAuthService } from '../oauth/oauthService.js';
import type { PasskeyService } from '../passkeys/passkeyService.js';
import { shortDevice } from './device.js';

/**
 * One way the account is signed in somewhere (docs/account.md "Sessions"): a session of the service's
 * own login page in a browser, or an app's grant (its refresh-token family and the access tokens it mints).
 */
export interface AccountSession {
  id: string;
  kind: 'browser' | 'app';
  /** The app, for an app's grant. */
  app?: { clientId: string; name: string } | undefined;
  createdAt: number;
  /** The last authorization the browser session answered, the grant's last refresh; else its creation. */
  lastSeenAt: number;
  /** A browser session's end (an app's grant lasts as long as its refresh tokens are used). */
  expiresAt?: number | undefined;
  userAgent?: string | undefined;
  /** A short name of the user agent ("Chrome on Linux"). */
  device?: string | undefined;
  /** The /24 or /48 it was opened from. */
  network?: string | undefined;
}

/** An account's ways in, each with its last use (undefined: never, or not recorded yet). */
export interface WaysIn {
  password: { set: boolean; lastUsedAt: number | undefined };
  passkeys: { id: string; createdAt: number; lastUsedAt: number | undefined; backedUp: boolean }[];
  identities: {
    id: string;
    provider: string;
    providerName: string;
    createdAt: number;
    lastUsedAt: number | undefined;
  }[];
  totp: { enabled: boolean; recoveryCodesLeft: number };
}

const BROWSER = 'browser_';
const APP = 'app_';

/**
 * A browser session's public id: derived from the stored hash (itself the SHA-256 of the cookie), so it
 * names the session without being, or leading to, anything that opens it.
 */
const browserSessionId = (sessionHash: string) =>
  BROWSER + createHash('sha256').update(`dauth/session-id:${sessionHash}`).digest('hex').slice(0, 32);

const sessionNotFound = () =>
  new AppError(404, 'session_not_found', 'You have no active session with this id');

/**
 * The account's Security page (decisions §9): its active sessions, each revocable, and its ways in with
 * their last use. Reads the stores the sign-ins write; revoking an app's grant is the grant revocation
 * every other path uses (access and refresh tokens refused on every replica).
 */
export class AccountSessionsService {
  constructor(
    private readonly deps: {
      browserSessions: BrowserSessionService;
      oauth: OAuthService;
      clients: ClientService;
      accounts: { passwordUse(userUuid: number): Promise<WaysIn['password']> };
      passkeys: PasskeyService;
      federation: FederationService;
      mfa: MfaService;
    },
  ) {}

  async list(userUuid: number): Promise<AccountSession[]> {
    const [browsers, grants] = await Promise.all([
      this.deps.browserSessions.liveSessionsOf(userUuid),
      this.deps.oauth.liveGrantsOf(userUuid),
    ]);
    const names = new Map<string, string | undefined>();
    for (const g of grants) {
      if (!names.has(g.clientId))
        names.set(g.clientId, (await this.deps.clients.findClient(g.clientId))?.name);
    }
    const sessions: AccountSession[] = browsers.map((s) => ({
      id: browserSessionId(s.sessionHash),
      kind: 'browser',
      createdAt: s.createdAt,
      lastSeenAt: s.lastUsedAt ?? s.createdAt,
      expiresAt: s.expiresAt,
      userAgent: s.userAgent,
      device: shortDevice(s.userAgent),
      network: s.network,
    }));
    for (const g of grants) {
      const name = names.get(g.clientId);
      if (name === undefined) continue; // a deleted app's grants are revoked with it
      sessions.push({
        id: APP + g.grantId,
        kind: 'app',
        app: { clientId: g.clientId, name },
        createdAt: g.createdAt,
        lastSeenAt: g.lastUsedAt ?? g.createdAt,
        userAgent: g.device?.userAgent,
        device: shortDevice(g.device?.userAgent),
        network: g.device?.network,
      });
    }
    return sessions.sort((a, b) => b.lastSeenAt - a.lastSeenAt);
  }

  /** Ends one of the user's sessions; 404 `session_not_found` for an id that is not a live one of theirs. */
  async end(userUuid: number, id: string): Promise<AccountSession['kind']> {
    if (id.startsWith(BROWSER)) {
      const session = (await this.deps.browserSessions.liveSessionsOf(userUuid)).find(
        (s) => browserSessionId(s.sessionHash) === id,
      );
      if (!session || !(await this.deps.browserSessions.endSessionOf(userUuid, session.sessionHash))) {
        throw sessionNotFound();
      }
      return 'browser';
    }
    if (id.startsWith(APP)) {
      const grant = await this.deps.oauth.findGrant(id.slice(APP.length));
      if (!grant || grant.userUuid !== userUuid || grant.revokedAt !== null) throw sessionNotFound();
      await this.deps.oauth.revokeGrant(grant.grantId, 'session_revoked');
      return 'app';
    }
    throw sessionNotFound();
  }

  async waysIn(userUuid: number): Promise<WaysIn> {
    const [password, passkeys, identities, totp] = await Promise.all([
      this.deps.accounts.passwordUse(userUuid),
      this.deps.passkeys.list(userUuid),
      this.deps.federation.listIdentities(userUuid),
      this.deps.mfa.status(userUuid),
    ]);
    return {
      password,
      passkeys: passkeys.map((p) => ({
        id: p.id,
        createdAt: p.createdAt,
        lastUsedAt: p.lastUsedAt,
        backedUp: p.backedUp,
      })),
      identities: identities.map((i) => ({
        id: i.id,
        provider: i.provider,
        providerName: this.deps.federation.providerName(i.provider),
        createdAt: i.createdAt,
        lastUsedAt: i.lastUsedAt,
      })),
      totp: { enabled: totp.totp, recoveryCodesLeft: totp.recoveryCodesLeft },
    };
  }
}
