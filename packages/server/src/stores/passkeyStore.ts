import type { Db } from '../db/database.js';
import { affected } from './kyselyResults.js';

export interface PasskeysTable {
  id: string;
  user_uuid: number;
  public_key: string;
  sign_count: number;
  transports: string;
  /** 1 when the credential is synced (a multi-device passkey), else 0. */
  backed_up: number;
  created_at: number;
  last_used_at: number | null;
}

export interface WebauthnChallengesTable {
  challenge: string;
  purpose: string;
  user_uuid: number | null;
  expires_at: number;
}

declare module '../db/database.js' {
  interface Database {
    passkeys: PasskeysTable;
    webauthn_challenges: WebauthnChallengesTable;
  }
}

export interface PasskeyRecord {
  /** The credential id, base64url. */
  id: string;
  userUuid: number;
  /** The COSE public key, base64url. */
  publicKey: string;
  signCount: number;
  transports: string[];
  backedUp: boolean;
  createdAt: number;
  lastUsedAt: number | undefined;
}

export type ChallengePurpose = 'register' | 'login';

export const passkeyRow = (p: PasskeyRecord): PasskeysTable => ({
  id: p.id,
  user_uuid: p.userUuid,
  public_key: p.publicKey,
  sign_count: p.signCount,
  transports: p.transports.join(','),
  backed_up: p.backedUp ? 1 : 0,
  created_at: p.createdAt,
  last_used_at: p.lastUsedAt ?? null,
});

const toPasskey = (r: PasskeysTable): PasskeyRecord => ({
  id: r.id,
  userUuid: Number(r.user_uuid),
  publicKey: r.public_key,
  signCount: Number(r.sign_count),
  transports: r.transports === '' ? [] : r.transports.split(','),
  backedUp: Number(r.backed_up) === 1,
  createdAt: Number(r.created_at),
  lastUsedAt: r.last_used_at === null ? undefined : Number(r.last_used_at),
});

/** Passkeys and their one-time WebAuthn challenges (docs/players.md). */
export class PasskeyStore {
  constructor(private readonly db: Db) {}

  async saveChallenge(
    challenge: string,
    purpose: ChallengePurpose,
    userUuid: number | undefined,
    expiresAt: number,
  ) {
    await this.db
      .insertInto('webauthn_challenges')
      .values({ challenge, purpose, user_uuid: userUuid ?? null, expires_at: expiresAt })
      .execute();
  }

  /**
   * Takes a challenge once: the row is deleted, and only the request whose delete removed it gets it
   * back (two replicas racing on one challenge: one wins). Returns its expiry, or undefined when the
   * challenge is unknown, already used, or of another purpose or user.
   */
  async takeChallenge(
    challenge: string,
    purpose: ChallengePurpose,
    userUuid: number | undefined,
  ): Promise<{ expiresAt: number } | undefined> {
    const row = await this.db
      .selectFrom('webauthn_challenges')
      .selectAll()
      .where('challenge', '=', challenge)
      .where('purpose', '=', purpose)
      .executeTakeFirst();
    if (!row || (row.user_uuid === null ? undefined : Number(row.user_uuid)) !== userUuid) return undefined;
    const deleted = await this.db
      .deleteFrom('webauthn_challenges')
      .where('challenge', '=', challenge)
      .executeTakeFirst();
    return affected(deleted) === 1 ? { expiresAt: Number(row.expires_at) } : undefined;
  }

  async deleteExpiredChallenges(now: number): Promise<void> {
    await this.db.deleteFrom('webauthn_challenges').where('expires_at', '<', now).execute();
  }

  async insert(passkey: PasskeyRecord): Promise<void> {
    await this.db.insertInto('passkeys').values(passkeyRow(passkey)).execute();
  }

  async find(id: string): Promise<PasskeyRecord | undefined> {
    const row = await this.db.selectFrom('passkeys').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toPasskey(row);
  }

  async listForUser(userUuid: number): Promise<PasskeyRecord[]> {
    const rows = await this.db
      .selectFrom('passkeys')
      .selectAll()
      .where('user_uuid', '=', userUuid)
      .orderBy('created_at')
      .execute();
    return rows.map(toPasskey);
  }

  /**
   * Records a sign-in: the new signature counter, only if the stored one is still `expected` (two
   * concurrent sign-ins with one counter value: one wins). True when it did.
   */
  async recordUse(id: string, expected: number, signCount: number, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('passkeys')
      .set({ sign_count: signCount, last_used_at: now })
      .where('id', '=', id)
      .where('sign_count', '=', expected)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  async remove(userUuid: number, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('passkeys')
      .where('id', '=', id)
      .where('user_uuid', '=', userUuid)
      .executeTakeFirst();
    return affected(result) === 1;
  }
}
