import type { Generated } from 'kysely';
import type { Db } from '../db/database.js';
import { affected } from './kyselyResults.js';

export interface OAuthSessionsTable {
  session_hash: string;
  user_uuid: number;
  created_at: number;
  expires_at: number;
  /** Migration 0250: how the user signed in (RFC 8176, space-separated) and when (ms); null on older rows. */
  amr: string | null;
  auth_time: number | null;
  /** Where the session was opened and when it last answered an authorization (migration 0260). */
  user_agent: string | null;
  network: string | null;
  last_used_at: number | null;
}

export interface OAuthConsentsTable {
  user_uuid: number;
  client_id: string;
  granted_at: number;
  /** The approved OpenID scopes, space-separated; `''` for plain OAuth (and rows from before 0130). */
  scope: Generated<string>;
}

declare module '../db/database.js' {
  interface Database {
    oauth_sessions: OAuthSessionsTable;
    oauth_consents: OAuthConsentsTable;
  }
}

export interface SessionRecord {
  sessionHash: string;
  userUuid: number;
  createdAt: number;
  expiresAt: number;
  /** When the first credential was proved (ms): the password step's time, not the second step's. */
  authTime: number;
  /** RFC 8176 values; empty for a session from before migration 0250. */
  amr: string[];
  userAgent?: string | undefined;
  network?: string | undefined;
  lastUsedAt?: number | undefined;
}

const toSession = (row: OAuthSessionsTable): SessionRecord => ({
  sessionHash: row.session_hash,
  userUuid: Number(row.user_uuid),
  createdAt: Number(row.created_at),
  expiresAt: Number(row.expires_at),
  authTime: Number(row.auth_time ?? row.created_at),
  amr: row.amr ? row.amr.split(' ') : [],
  userAgent: row.user_agent ?? undefined,
  network: row.network ?? undefined,
  lastUsedAt: row.last_used_at === null ? undefined : Number(row.last_used_at),
});

/** Sessions of the service's own login page, and the apps each user has approved there. */
export class OAuthSessionStore {
  constructor(private readonly db: Db) {}

  /** `authTime` defaults to `createdAt`; without `amr` the session says nothing of how (as before 0250). */
  async insertSession(
    session: Omit<SessionRecord, 'authTime' | 'amr'> & { authTime?: number; amr?: string[] },
  ): Promise<void> {
    await this.db
      .insertInto('oauth_sessions')
      .values({
        session_hash: session.sessionHash,
        user_uuid: session.userUuid,
        created_at: session.createdAt,
        expires_at: session.expiresAt,
        amr: session.amr ? session.amr.join(' ') : null,
        auth_time: session.authTime ?? null,
        user_agent: session.userAgent ?? null,
        network: session.network ?? null,
        last_used_at: null,
      })
      .execute();
  }

  async findLiveSession(sessionHash: string, now: number): Promise<SessionRecord | undefined> {
    const row = await this.db
      .selectFrom('oauth_sessions')
      .selectAll()
      .where('session_hash', '=', sessionHash)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return row ? toSession(row) : undefined;
  }

  /** A user's live login-page sessions, newest first (the Security page). */
  async liveSessionsOf(userUuid: number, now: number): Promise<SessionRecord[]> {
    const rows = await this.db
      .selectFrom('oauth_sessions')
      .selectAll()
      .where('user_uuid', '=', userUuid)
      .where('expires_at', '>', now)
      .orderBy('created_at', 'desc')
      .execute();
    return rows.map(toSession);
  }

  /** Records a use of the session, at most once per `everyMs` (a read must not write each time). */
  async touchSession(sessionHash: string, now: number, everyMs: number): Promise<void> {
    await this.db
      .updateTable('oauth_sessions')
      .set({ last_used_at: now })
      .where('session_hash', '=', sessionHash)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', now - everyMs)]))
      .execute();
  }

  /** Ends one session of `userUuid`; false when it is not theirs or already gone. */
  async deleteSessionOf(userUuid: number, sessionHash: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('oauth_sessions')
      .where('session_hash', '=', sessionHash)
      .where('user_uuid', '=', userUuid)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  async deleteSession(sessionHash: string): Promise<void> {
    await this.db.deleteFrom('oauth_sessions').where('session_hash', '=', sessionHash).execute();
  }

  /** Ends every login-page session of a user (password reset or change); returns how many. */
  async deleteSessionsOf(userUuid: number): Promise<number> {
    const result = await this.db
      .deleteFrom('oauth_sessions')
      .where('user_uuid', '=', userUuid)
      .executeTakeFirst();
    return affected(result);
  }

  async hasConsent(userUuid: number, clientId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('oauth_consents')
      .select('granted_at')
      .where('user_uuid', '=', userUuid)
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The scopes the user approved for the app (`''`: plain OAuth only), or undefined without a consent. */
  async consentedScope(userUuid: number, clientId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('oauth_consents')
      .select('scope')
      .where('user_uuid', '=', userUuid)
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return row?.scope;
  }

  /** Records (or renews) a consent for exactly `scope`; the caller merges it with what was approved before. */
  async recordConsent(userUuid: number, clientId: string, now: number, scope = ''): Promise<void> {
    await this.db
      .insertInto('oauth_consents')
      .values({ user_uuid: userUuid, client_id: clientId, granted_at: now, scope })
      .onConflict((oc) => oc.columns(['user_uuid', 'client_id']).doUpdateSet({ granted_at: now, scope }))
      .execute();
  }

  /** The apps a user approved on the login page, with when. */
  async listConsents(userUuid: number): Promise<{ clientId: string; grantedAt: number }[]> {
    const rows = await this.db
      .selectFrom('oauth_consents')
      .select(['client_id', 'granted_at'])
      .where('user_uuid', '=', userUuid)
      .execute();
    return rows.map((r) => ({ clientId: r.client_id, grantedAt: Number(r.granted_at) }));
  }

  /** Forgets a consent; true when there was one. */
  async deleteConsent(userUuid: number, clientId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('oauth_consents')
      .where('user_uuid', '=', userUuid)
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  async purgeExpired(now: number): Promise<void> {
    await this.db.deleteFrom('oauth_sessions').where('expires_at', '<=', now).execute();
  }
}
