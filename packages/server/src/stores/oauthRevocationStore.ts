import type { Db } from '../db/database.js';

export interface OAuthRevocationsTable {
  revocation_key: string;
  kind: RevocationKind;
  value: string;
  created_at: number;
  expires_at: number;
}

declare module '../db/database.js' {
  interface Database {
    oauth_revocations: OAuthRevocationsTable;
  }
}

/** `grant`: every token issued from one authorization; `jti`: one token. */
export type RevocationKind = 'grant' | 'jti';

export interface RevocationEntry {
  kind: RevocationKind;
  value: string;
  /** Milliseconds; after this no token the entry could match is still valid, so it may be forgotten. */
  expiresAt: number;
}

/** The row's primary key (an account erasure writes its grants' entries in its own transaction). */
export const revocationKey = (kind: RevocationKind, value: string) => `${kind}:${value}`;
const keyOf = revocationKey;

/** The durable list of revocations: the source every replica loads and re-syncs from. */
export class OAuthRevocationStore {
  constructor(private readonly db: Db) {}

  /** Records the entry; an existing one keeps the later expiry. */
  async insert(entry: RevocationEntry, now: number): Promise<void> {
    await this.db
      .insertInto('oauth_revocations')
      .values({
        revocation_key: keyOf(entry.kind, entry.value),
        kind: entry.kind,
        value: entry.value,
        created_at: now,
        expires_at: entry.expiresAt,
      })
      .onConflict((oc) =>
        oc
          .column('revocation_key')
          .doUpdateSet({ expires_at: entry.expiresAt })
          .where('oauth_revocations.expires_at', '<', entry.expiresAt),
      )
      .execute();
  }

  async listActive(now: number): Promise<RevocationEntry[]> {
    const rows = await this.db
      .selectFrom('oauth_revocations')
      .select(['kind', 'value', 'expires_at'])
      .where('expires_at', '>', now)
      .execute();
    return rows.map((r) => ({ kind: r.kind, value: r.value, expiresAt: Number(r.expires_at) }));
  }

  /** Whether any of the given entries is recorded and still in force (the fallback while out of sync). */
  async anyActive(keys: { kind: RevocationKind; value: string }[], now: number): Promise<boolean> {
    if (keys.length === 0) return false;
    const row = await this.db
      .selectFrom('oauth_revocations')
      .select('revocation_key')
      .where(
        'revocation_key',
        'in',
        keys.map((k) => keyOf(k.kind, k.value)),
      )
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return row !== undefined;
  }

  async purgeExpired(now: number): Promise<void> {
    await this.db.deleteFrom('oauth_revocations').where('expires_at', '<=', now).execute();
  }
}
