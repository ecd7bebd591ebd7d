import { sql } from 'kysely';
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

  /** Every authorize writes one: hand-written SQL, since building the query costs about as much as running it. */
  async insert(code: Omit<BackendCode, 'usedAt' | 'grantId'>): Promise<void> {
    await sql`insert into backend_codes (code_hash, client_id, user_uuid, slot_id, redirect_uri, created_at, expires_at)
      values (${code.codeHash}, ${code.clientId}, ${code.userUuid}, ${code.slotId}, ${code.redirectUri},
        ${code.createdAt}, ${code.expiresAt})`.execute(this.db);
  }

  /**
   * The code as stored. `grantId` (which grant the winning exchange opened, so a replay can revoke
   * it) is written by `OAuthGrantStore.exchangeBackendCode`, in the commit that opens the grant.
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
