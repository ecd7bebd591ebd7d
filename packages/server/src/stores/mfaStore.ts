import type SQLite from 'better-sqlite3';
import { PostgresAdapter, type RawBuilder, sql } from 'kysely';
import { type Db, nativeSqlite } from '../db/database.js';
import { prepareQuery } from '../db/preparedQuery.js';
import { affected } from './kyselyResults.js';

export interface MfaTotpTable {
  user_uuid: number;
  secret_sealed: string;
  created_at: number;
  /** Null while the enrolment is pending (no code confirmed it yet). */
  confirmed_at: number | null;
  /** The last 30-second step a code was accepted in; 0 before the first. */
  last_step: number;
}

export interface MfaRecoveryCodesTable {
  user_uuid: number;
  code_hash: string;
  created_at: number;
  used_at: number | null;
}

export interface MfaLoginTokensTable {
  token_hash: string;
  user_uuid: number;
  client_id: string | null;
  auth_time: number;
  /** The first step's `amr` values, space-separated. */
  amr: string;
  /** Codes tried with this token, right or wrong (counted before each check). */
  attempts: number;
  expires_at: number;
}

declare module '../db/database.js' {
  interface Database {
    mfa_totp: MfaTotpTable;
    mfa_recovery_codes: MfaRecoveryCodesTable;
    mfa_login_tokens: MfaLoginTokensTable;
  }
}

export interface TotpRecord {
  userUuid: number;
  secretSealed: string;
  confirmed: boolean;
  lastStep: number;
  /** When the secret was made (ms): a pending one expires (`TOTP_PENDING_TTL_MS`). */
  createdAt: number;
}

export interface PendingSignIn {
  userUuid: number;
  clientId: string | undefined;
  authTime: number;
  amr: string[];
  /** Codes tried so far, this one counted (set when read back by `attemptSignIn`). */
  attempts?: number;
}

/**
 * What a second step's code did to its sign-in: `accepted`, the code used up and the sign-in ended in one
 * commit; `refused`, the code was not usable (a step not after the last accepted one, a used or unknown
 * recovery code, no confirmed TOTP): nothing written; `ended_elsewhere`, the code used up but another
 * request had ended the sign-in first (the code stays used, as a code tried twice would be).
 */
export type CodeUse = 'accepted' | 'refused' | 'ended_elsewhere';

/** A conditional write that uses up a code, as SQL for SQLite's native path and as a Kysely fragment. */
interface CodeWrite {
  native: string;
  args: unknown[];
  fragment: RawBuilder<unknown>;
}

const END_SIGN_IN = 'delete from mfa_login_tokens where token_hash = ?';

/**
 * Second factors (docs/mfa.md). Every acceptance is a conditional write whose affected-row count says
 * who won, so two replicas (or two concurrent requests) never both accept one code or one `mfa_token`.
 */
export class MfaStore {
  readonly #postgres: boolean;
  /** SQLite's better-sqlite3 handle (`nativeSqlite`); undefined on PostgreSQL and when statements are traced. */
  readonly #native: SQLite.Database | undefined;
  #nativeUseAndEnd: ((write: CodeWrite, tokenHash: string | undefined) => CodeUse) | undefined;
  // The second step's reads and its attempt count, prepared once (`prepareQuery`): every sign-in with a
  // second factor runs them.
  readonly #totpOf;
  readonly #unusedCodesOf;
  readonly #attempt;

  constructor(private readonly db: Db) {
    this.#postgres = db.getExecutor().adapter instanceof PostgresAdapter;
    this.#native = nativeSqlite(db);
    this.#totpOf = prepareQuery(db, (d, userUuid: number) =>
      d.selectFrom('mfa_totp').selectAll().where('user_uuid', '=', userUuid),
    );
    this.#unusedCodesOf = prepareQuery(db, (d, userUuid: number) =>
      d
        .selectFrom('mfa_recovery_codes')
        .select('code_hash')
        .where('user_uuid', '=', userUuid)
        .where('used_at', 'is', null),
    );
    // One statement counts the attempt and reads the sign-in, so each caller sees its own attempt number.
    this.#attempt = prepareQuery(db, (d, tokenHash: string, maxAttempts: number, now: number) =>
      d
        .updateTable('mfa_login_tokens')
        .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
        .where('token_hash', '=', tokenHash)
        .where('attempts', '<', maxAttempts)
        .where('expires_at', '>', now)
        .returningAll(),
    );
  }

  async findTotp(userUuid: number): Promise<TotpRecord | undefined> {
    const [row] = (await this.#totpOf.run(userUuid)).rows;
    return (
      row && {
        userUuid: Number(row.user_uuid),
        secretSealed: row.secret_sealed,
        confirmed: row.confirmed_at !== null,
        lastStep: Number(row.last_step),
        createdAt: Number(row.created_at),
      }
    );
  }

  /** Stores a pending secret, replacing a pending one; false when the account's TOTP is already confirmed. */
  async savePending(userUuid: number, secretSealed: string, now: number): Promise<boolean> {
    const replaced = await this.db
      .updateTable('mfa_totp')
      .set({ secret_sealed: secretSealed, created_at: now, last_step: 0 })
      .where('user_uuid', '=', userUuid)
      .where('confirmed_at', 'is', null)
      .executeTakeFirst();
    if (affected(replaced) === 1) return true;
    const inserted = await this.db
      .insertInto('mfa_totp')
      .values({
        user_uuid: userUuid,
        secret_sealed: secretSealed,
        created_at: now,
        confirmed_at: null,
        last_step: 0,
      })
      .onConflict((oc) => oc.column('user_uuid').doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  /**
   * Confirms the pending secret `secretSealed` (not one a concurrent enrolment put in its place) at `step`,
   * and replaces the account's recovery codes, in one transaction. False when it lost.
   */
  async confirm(
    userUuid: number,
    secretSealed: string,
    step: number,
    codeHashes: string[],
    now: number,
  ): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const confirmed = await trx
        .updateTable('mfa_totp')
        .set({ confirmed_at: now, last_step: step })
        .where('user_uuid', '=', userUuid)
        .where('secret_sealed', '=', secretSealed)
        .where('confirmed_at', 'is', null)
        .executeTakeFirst();
      if (affected(confirmed) !== 1) return false;
      await trx.deleteFrom('mfa_recovery_codes').where('user_uuid', '=', userUuid).execute();
      await trx
        .insertInto('mfa_recovery_codes')
        .values(
          codeHashes.map((code_hash) => ({ user_uuid: userUuid, code_hash, created_at: now, used_at: null })),
        )
        .execute();
      return true;
    });
  }

  /**
   * Accepts TOTP step `step`, only after the account's last accepted step (of two concurrent requests with
   * one code, exactly one is told `accepted`), and ends the sign-in `endSignIn` in the same commit.
   */
  async acceptStep(userUuid: number, step: number, endSignIn?: string): Promise<CodeUse> {
    return this.#useAndEnd(
      {
        native:
          'update mfa_totp set last_step = ? where user_uuid = ? and confirmed_at is not null and last_step < ?',
        args: [step, userUuid, step],
        fragment: sql`update mfa_totp set last_step = ${step}
          where user_uuid = ${userUuid} and confirmed_at is not null and last_step < ${step}`,
      },
      endSignIn,
    );
  }

  /** The hashes of the account's unused recovery codes. */
  async unusedRecoveryCodes(userUuid: number): Promise<string[]> {
    return (await this.#unusedCodesOf.run(userUuid)).rows.map((r) => r.code_hash);
  }

  /** Marks one unused recovery code used (one request wins it) and ends the sign-in `endSignIn` with it. */
  async useRecoveryCode(
    userUuid: number,
    codeHash: string,
    now: number,
    endSignIn?: string,
  ): Promise<CodeUse> {
    return this.#useAndEnd(
      {
        native:
          'update mfa_recovery_codes set used_at = ? where user_uuid = ? and code_hash = ? and used_at is null',
        args: [now, userUuid, codeHash],
        fragment: sql`update mfa_recovery_codes set used_at = ${now}
          where user_uuid = ${userUuid} and code_hash = ${codeHash} and used_at is null`,
      },
      endSignIn,
    );
  }

  /**
   * The code's conditional write, then (only if it used the code) the sign-in's end, when there is one: one
   * commit where there were two (docs/mfa.md, round 4). SQLite: a native transaction (no promise per statement) when the
   * connection is free, else a Kysely one; PostgreSQL: one statement, the delete a CTE that runs only if
   * the update returned its row (the row lock orders two concurrent uses, the second finding nothing).
   */
  async #useAndEnd(write: CodeWrite, tokenHash: string | undefined): Promise<CodeUse> {
    const native = this.#native;
    if (native && !native.inTransaction) {
      this.#nativeUseAndEnd ??= native.transaction((w: CodeWrite, hash: string | undefined): CodeUse => {
        if (native.prepare(w.native).run(...w.args).changes !== 1) return 'refused';
        if (hash === undefined) return 'accepted';
        return native.prepare(END_SIGN_IN).run(hash).changes === 1 ? 'accepted' : 'ended_elsewhere';
      });
      return this.#nativeUseAndEnd(write, tokenHash);
    }
    if (tokenHash === undefined) {
      return (await write.fragment.execute(this.db)).numAffectedRows === 1n ? 'accepted' : 'refused';
    }
    if (this.#postgres) {
      const { rows } = await sql<{
        used: boolean;
        ended: boolean;
      }>`with used as (${write.fragment} returning 1),
        ended as (delete from mfa_login_tokens
                  where token_hash = ${tokenHash} and exists (select 1 from used) returning 1)
        select exists (select 1 from used) as used, exists (select 1 from ended) as ended`.execute(this.db);
      const { used, ended } = rows[0]!;
      return !used ? 'refused' : ended ? 'accepted' : 'ended_elsewhere';
    }
    return this.db.transaction().execute(async (trx) => {
      const used = await write.fragment.execute(trx);
      if (used.numAffectedRows !== 1n) return 'refused';
      const ended = await trx
        .deleteFrom('mfa_login_tokens')
        .where('token_hash', '=', tokenHash)
        .executeTakeFirst();
      return affected(ended) === 1 ? 'accepted' : 'ended_elsewhere';
    });
  }

  /** Removes the account's TOTP and recovery codes (and any sign-in waiting for a code). */
  async removeTotp(userUuid: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('mfa_recovery_codes').where('user_uuid', '=', userUuid).execute();
      await trx.deleteFrom('mfa_totp').where('user_uuid', '=', userUuid).execute();
      await trx.deleteFrom('mfa_login_tokens').where('user_uuid', '=', userUuid).execute();
    });
  }

  async savePendingSignIn(
    tokenHash: string,
    signIn: PendingSignIn,
    expiresAt: number,
    now: number,
  ): Promise<void> {
    await this.db.deleteFrom('mfa_login_tokens').where('expires_at', '<=', now).execute();
    await this.db
      .insertInto('mfa_login_tokens')
      .values({
        token_hash: tokenHash,
        user_uuid: signIn.userUuid,
        client_id: signIn.clientId ?? null,
        auth_time: signIn.authTime,
        amr: signIn.amr.join(' '),
        attempts: 0,
        expires_at: expiresAt,
      })
      .execute();
  }

  /**
   * Counts one attempt on a live `mfa_token` before its code is checked (so concurrent guesses are bounded
   * too) and returns its sign-in; undefined when the token is unknown, expired or has used its attempts.
   */
  async attemptSignIn(
    tokenHash: string,
    maxAttempts: number,
    now: number,
  ): Promise<PendingSignIn | undefined> {
    const [row] = (await this.#attempt.run(tokenHash, maxAttempts, now)).rows;
    return (
      row && {
        userUuid: Number(row.user_uuid),
        clientId: row.client_id ?? undefined,
        authTime: Number(row.auth_time),
        amr: row.amr === '' ? [] : row.amr.split(' '),
        attempts: Number(row.attempts),
      }
    );
  }
}
