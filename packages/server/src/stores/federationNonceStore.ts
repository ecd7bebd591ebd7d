import type { Db } from '../db/database.js';

export interface FederationNoncesTable {
  key: string;
  expires_at: number;
}

declare module '../db/database.js' {
  interface Database {
    federation_nonces: FederationNoncesTable;
  }
}

/** Keys longer than this are refused rather than truncated (two keys must never collide). */
export const MAX_NONCE_KEY_LENGTH = 512;

/**
 * Single-use markers (decisions §8: a replayed Steam assertion is refused). `claimOnce` inserts the key
 * and ignores a conflict, so of any number of concurrent claims of one key, on any replica, exactly one
 * inserts the row and is told true. An expired row no longer guards its key: it is deleted (swept) before
 * the insert, so a key may be claimed again once its time is up — callers pick a TTL longer than the
 * window in which they accept the value at all.
 */
export class FederationNonceStore {
  constructor(private readonly db: Db) {}

  /** True the first time `key` is claimed within `ttlMs` of `now`, false while an earlier claim lives. */
  async claimOnce(key: string, ttlMs: number, now = Date.now()): Promise<boolean> {
    if (key.length === 0 || key.length > MAX_NONCE_KEY_LENGTH) {
      throw new RangeError(`a nonce key must be 1 to ${MAX_NONCE_KEY_LENGTH} characters`);
    }
    if (!(ttlMs > 0)) throw new RangeError('a nonce TTL must be positive');
    await this.sweep(now);
    const inserted = await this.db
      .insertInto('federation_nonces')
      .values({ key, expires_at: now + ttlMs })
      .onConflict((oc) => oc.column('key').doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  /** Deletes every marker whose time is up; returns how many. */
  async sweep(now = Date.now()): Promise<number> {
    const result = await this.db
      .deleteFrom('federation_nonces')
      .where('expires_at', '<=', now)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
