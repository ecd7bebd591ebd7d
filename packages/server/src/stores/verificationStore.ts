import type { Db } from '../db/database.js';
import { affected } from './kyselyResults.js';

export interface EmailCodesTable {
  id: string;
  user_uuid: number;
  purpose: string;
  code_hash: string;
  attempts: number;
  expires_at: number;
  consumed_at: number | null;
  created_at: number;
  session_id: string;
}

export interface VerificationTokensTable {
  token_hash: string;
  user_uuid: number;
  purpose: string;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

declare module '../db/database.js' {
  interface Database {
    email_codes: EmailCodesTable;
    verification_tokens: VerificationTokensTable;
  }
}

export interface EmailCode {
  id: string;
  userUuid: number;
  purpose: string;
  codeHash: string;
  attempts: number;
  expiresAt: number;
  consumedAt: number | undefined;
  createdAt: number;
  /** The login session (JWT `jti`) that asked for it; only that session can use it. */
  sessionId: string;
}

const toCode = (r: EmailCodesTable): EmailCode => ({
  id: r.id,
  userUuid: Number(r.user_uuid),
  purpose: r.purpose,
  codeHash: r.code_hash,
  attempts: Number(r.attempts),
  expiresAt: Number(r.expires_at),
  consumedAt: r.consumed_at === null ? undefined : Number(r.consumed_at),
  createdAt: Number(r.created_at),
  sessionId: r.session_id,
});

/**
 * E-mail verification codes (stored as keyed hashes) and the single-use verification tokens they
 * are exchanged for (stored as SHA-256). Use and attempt counting are conditional UPDATEs.
 */
export class VerificationStore {
  constructor(private readonly db: Db) {}

  /** Inserts a new code and retires every earlier live code of the same user, purpose and session. */
  async insertCode(code: Omit<EmailCode, 'attempts' | 'consumedAt'>): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('email_codes')
        .set({ consumed_at: code.createdAt })
        .where('user_uuid', '=', code.userUuid)
        .where('purpose', '=', code.purpose)
        .where('session_id', '=', code.sessionId)
        .where('consumed_at', 'is', null)
        .execute();
      await trx
        .insertInto('email_codes')
        .values({
          id: code.id,
          user_uuid: code.userUuid,
          purpose: code.purpose,
          code_hash: code.codeHash,
          attempts: 0,
          expires_at: code.expiresAt,
          consumed_at: null,
          created_at: code.createdAt,
          session_id: code.sessionId,
        })
        .execute();
    });
  }

  /** Creation times of the codes sent to this user for this purpose since `since`, newest first. */
  /** When codes were sent since `since`, newest first: of one session, or of every session of the user. */
  async codesSentSince(
    userUuid: number,
    purpose: string,
    since: number,
    sessionId?: string,
  ): Promise<number[]> {
    let query = this.db
      .selectFrom('email_codes')
      .select('created_at')
      .where('user_uuid', '=', userUuid)
      .where('purpose', '=', purpose)
      .where('created_at', '>', since);
    if (sessionId !== undefined) query = query.where('session_id', '=', sessionId);
    const rows = await query.orderBy('created_at', 'desc').execute();
    return rows.map((r) => Number(r.created_at));
  }

  /** The session's newest code that is neither used, superseded nor expired. */
  async liveCode(
    userUuid: number,
    purpose: string,
    sessionId: string,
    now: number,
  ): Promise<EmailCode | undefined> {
    const row = await this.db
      .selectFrom('email_codes')
      .selectAll()
      .where('user_uuid', '=', userUuid)
      .where('purpose', '=', purpose)
      .where('session_id', '=', sessionId)
      .where('consumed_at', 'is', null)
      .where('expires_at', '>', now)
      .orderBy('created_at', 'desc')
      .executeTakeFirst();
    return row ? toCode(row) : undefined;
  }

  /** Counts one guess against a live code; false when its attempts are used up (or it died). */
  async reserveCodeAttempt(id: string, maxAttempts: number, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('email_codes')
      .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
      .where('id', '=', id)
      .where('attempts', '<', maxAttempts)
      .where('consumed_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** Marks a code used; false when another request used it first. */
  async consumeCode(id: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('email_codes')
      .set({ consumed_at: now })
      .where('id', '=', id)
      .where('consumed_at', 'is', null)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  async insertToken(token: {
    tokenHash: string;
    userUuid: number;
    purpose: string;
    expiresAt: number;
    createdAt: number;
  }): Promise<void> {
    await this.db
      .insertInto('verification_tokens')
      .values({
        token_hash: token.tokenHash,
        user_uuid: token.userUuid,
        purpose: token.purpose,
        expires_at: token.expiresAt,
        used_at: null,
        created_at: token.createdAt,
      })
      .execute();
  }

  /** Uses a token once: true only for a live, unused token of this user and purpose. */
  async consumeToken(tokenHash: string, userUuid: number, purpose: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('verification_tokens')
      .set({ used_at: now })
      .where('token_hash', '=', tokenHash)
      .where('user_uuid', '=', userUuid)
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /**
   * Uses a token of `purpose` once, whoever it belongs to (a mailed link names no user): the user's id,
   * or undefined for an unknown, expired or used token.
   */
  async consumeTokenOfPurpose(tokenHash: string, purpose: string, now: number): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('verification_tokens')
      .select('user_uuid')
      .where('token_hash', '=', tokenHash)
      .where('purpose', '=', purpose)
      .executeTakeFirst();
    if (!row) return undefined;
    const userUuid = Number(row.user_uuid);
    return (await this.consumeToken(tokenHash, userUuid, purpose, now)) ? userUuid : undefined;
  }

  /** True for a live, unused token of `purpose`, whoever it belongs to (nothing changes): a link's page. */
  async tokenOfPurposeUsable(tokenHash: string, purpose: string, now: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('verification_tokens')
      .select('token_hash')
      .where('token_hash', '=', tokenHash)
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** True for a live, unused token of this user and purpose (nothing changes). */
  async tokenUsable(tokenHash: string, userUuid: number, purpose: string, now: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('verification_tokens')
      .select('token_hash')
      .where('token_hash', '=', tokenHash)
      .where('user_uuid', '=', userUuid)
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Retires every live code of `codePurposes` and token of `tokenPurposes` of a user (a reset succeeded). */
  async retireAll(
    userUuid: number,
    codePurposes: string[],
    tokenPurposes: string[],
    now: number,
  ): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      if (codePurposes.length > 0) {
        await trx
          .updateTable('email_codes')
          .set({ consumed_at: now })
          .where('user_uuid', '=', userUuid)
          .where('purpose', 'in', codePurposes)
          .where('consumed_at', 'is', null)
          .execute();
      }
      if (tokenPurposes.length > 0) {
        await trx
          .updateTable('verification_tokens')
          .set({ used_at: now })
          .where('user_uuid', '=', userUuid)
          .where('purpose', 'in', tokenPurposes)
          .where('used_at', 'is', null)
          .execute();
      }
    });
  }

  /** Deletes codes and tokens that expired before `before` (housekeeping). */
  async deleteExpired(before: number): Promise<void> {
    await this.db.deleteFrom('email_codes').where('expires_at', '<', before).execute();
    await this.db.deleteFrom('verification_tokens').where('expires_at', '<', before).execute();
  }
}
