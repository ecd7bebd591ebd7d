import type { Db } from '../db/database.js';
import { affected } from './kyselyResults.js';

export interface BackendCodesTable {
  code_hash: string;
  client_id: string;
  user_uuid: number;
  slot_id: string;
  redirect_uri: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  grant_id: string | null;
}

declare module '../db/database.js' {
  interface Database {
    backend_codes: BackendCodesTable;
  }
}

/** A backend-integration authorization code as stored: only its hash, never the code itself. */
export interface BackendCode {
  codeHash: string;
  clientId: string;
  userUuid: number;
  slotId: string;
  redirectUri: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | undefined;
  grantId: string | undefined;
}

const toCode = (r: BackendCodesTable): BackendCode => ({
  codeHash: r.code_hash,
  clientId: r.client_id,
  userUuid: Number(r.user_uuid),
  slotId: r.slot_id,
  redirectUri: r.redirect_uri,
  createdAt: Number(r.created_at),
  expiresAt: Number(r.expires_at),
  usedAt: r.used_at === null ? undefined : Number(r.used_at),
  grantId: r.grant_id ?? undefined,
});

export class BackendCodeStore {
  constructor(private readonly db: Db) {}

  async insert(code: Omit<BackendCode, 'usedAt' | 'grantId'>): Promise<void> {
    await this.db
      .insertInto('backend_codes')
      .values({
        code_hash: code.codeHash,
        client_id: code.clientId,
        user_uuid: code.userUuid,
        slot_id: code.slotId,
        redirect_uri: code.redirectUri,
        created_at: code.createdAt,
        expires_at: code.expiresAt,
        used_at: null,
        grant_id: null,
      })
      .execute();
  }

  /**
   * The code as stored. `grantId` (which grant the winning exchange opened, so a replay can revoke
   * it) is written by `OAuthGrantStore.createGrantWithRefreshToken` in the grant's own transaction.
   */
  async find(codeHash: string): Promise<BackendCode | undefined> {
    const row = await this.db
      .selectFrom('backend_codes')
      .selectAll()
      .where('code_hash', '=', codeHash)
      .executeTakeFirst();
    return row ? toCode(row) : undefined;
  }

  /**
   * Redeems the code in one statement: marks it used if it belongs to `clientId` and is unused and
   * unexpired at `now`, and returns it; undefined otherwise (then nothing changed). Exactly one of
   * any number of concurrent exchanges gets it.
   */
  async redeem(codeHash: string, clientId: string, now: number): Promise<BackendCode | undefined> {
    const row = await this.db
      .updateTable('backend_codes')
      .set({ used_at: now })
      .where('code_hash', '=', codeHash)
      .where('client_id', '=', clientId)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returningAll()
      .executeTakeFirst();
    return row ? toCode(row) : undefined;
  }

  /**
   * Marks the code used if it is unused and unexpired at `now`: exactly one of any number of
   * concurrent exchanges gets true.
   */
  async consume(codeHash: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('backend_codes')
      .set({ used_at: now })
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** Kills an unused code (its callback could not be delivered): it can never be exchanged. */
  async invalidate(codeHash: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('backend_codes')
      .set({ used_at: now })
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** Deletes codes that expired before `before`; returns how many. */
  async deleteExpired(before: number): Promise<number> {
    const result = await this.db
      .deleteFrom('backend_codes')
      .where('expires_at', '<', before)
      .executeTakeFirst();
    return affected(result);
  }
}
