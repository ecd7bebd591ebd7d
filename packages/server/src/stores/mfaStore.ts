import type { Db } from '../db/database.js';
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
 * Second factors (docs/mfa.md). Every acceptance is a conditional write whose affected-row count says
 * who won, so two replicas (or two concurrent requests) never both accept one code or one `mfa_token`.
 */
export class MfaStore {
  constructor(private readonly db: Db) {}

  async findTotp(userUuid: number): Promise<TotpRecord | undefined> {
    const row = await this.db
      .selectFrom('mfa_totp')
      .selectAll()
      .where('user_uuid', '=', userUuid)
      .executeTakeFirst();
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
   * Accepts a code of time step `step`: true only when the account's confirmed TOTP last accepted an
   * earlier step. Of two concurrent requests with one code, exactly one is told true.
   */
  async acceptStep(userUuid: number, step: number): Promise<boolean> {
    const result = await this.db
      .updateTable('mfa_totp')
      .set({ last_step: step })
      .where('user_uuid', '=', userUuid)
      .where('confirmed_at', 'is not', null)
      .where('last_step', '<', step)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** The hashes of the account's unused recovery codes. */
  async unusedRecoveryCodes(userUuid: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('mfa_recovery_codes')
      .select('code_hash')
      .where('user_uuid', '=', userUuid)
      .where('used_at', 'is', null)
      .execute();
    return rows.map((r) => r.code_hash);
  }

  /** Marks one recovery code used; true for the one request that did. */
  async useRecoveryCode(userUuid: number, codeHash: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('mfa_recovery_codes')
      .set({ used_at: now })
      .where('user_uuid', '=', userUuid)
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return affected(result) === 1;
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
    // One statement counts the attempt and reads the sign-in, so each caller sees its own attempt number.
    const row = await this.db
      .updateTable('mfa_login_tokens')
      .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
      .where('token_hash', '=', tokenHash)
      .where('attempts', '<', maxAttempts)
      .where('expires_at', '>', now)
      .returningAll()
      .executeTakeFirst();
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

  /** Ends an `mfa_token` whose second step succeeded; true for the one request that ended it. */
  async finishSignIn(tokenHash: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('mfa_login_tokens')
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    return affected(result) === 1;
  }
}
