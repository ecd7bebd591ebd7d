import type SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { type Db, nativeSqlite } from '../db/database.js';
import { isSupportedLocale, type Locale } from '../i18n/locales.js';
import { affected } from './kyselyResults.js';

export interface UsersTable {
  user_uuid: number;
  /** Null for a guest, and for an account upgraded from a guest by passkey (migration 0160). */
  email: string | null;
  /** '' when the account has no password (guest, passkey-only): no password ever verifies against it. */
  password_hash: string;
  nickname: string;
  created_at: number;
  /** Unix seconds: login JWTs issued before it are void (password change or reset; migration 0120). */
  logins_valid_after: number | null;
  /** The one login JWT id that survives `logins_valid_after`: the session that changed the password (migration 0135). */
  logins_kept_jti: string | null;
  /** Unix ms the address was verified (sign-up mail's code or link); null while unverified (migration 0140). */
  email_verified_at: number | null;
  /** Unix ms the account was deleted: the row is a tombstone without e-mail, nickname or password (migration 0240). */
  deleted_at: number | null;
  /** Unix ms the password was last proved (migration 0260); null before, or never. */
  password_used_at: number | null;
  /** The account's language, a tag of SUPPORTED_LOCALES; null when unknown: English (migration 0300). */
  locale: string | null;
}

declare module '../db/database.js' {
  interface Database {
    users: UsersTable;
  }
}

export interface User {
  userUuid: number;
  /** Null for a guest or a passkey-only account (docs/players.md). */
  email: string | null;
  nickname: string;
  createdAt: number;
  /** The language of its mails (docs/account.md "Language"); undefined when unknown: English. */
  locale?: Locale | undefined;
}

export interface UserWithPassword extends User {
  passwordHash: string;
}

const toUser = (row: UsersTable): UserWithPassword => ({
  userUuid: Number(row.user_uuid),
  email: row.email,
  nickname: row.nickname,
  createdAt: Number(row.created_at),
  passwordHash: row.password_hash,
  // A tag no longer supported (or written by hand) reads as unknown rather than failing a mail.
  locale: isSupportedLocale(row.locale) ? row.locale : undefined,
});

/** Login JWTs issued before `validAfter` (Unix seconds) are void, except the one with id `keptJti`. */
export interface LoginCutoff {
  validAfter: number;
  keptJti?: string | undefined;
  /** The account was deleted: every login JWT is void. */
  deleted?: boolean;
}

type CutoffRow = Pick<UsersTable, 'logins_valid_after' | 'logins_kept_jti' | 'deleted_at'>;

export class UserStore {
  /** SQLite's better-sqlite3 handle (`nativeSqlite`) for the login cutoff read; undefined on PostgreSQL. */
  readonly #native: SQLite.Database | undefined;
  #cutoff: SQLite.Statement<[number], CutoffRow> | undefined;

  constructor(private readonly db: Db) {
    this.#native = nativeSqlite(db);
  }

  /** Inserts a user; returns false when the e-mail or the id is already taken. */
  async insert(user: UserWithPassword): Promise<boolean> {
    const result = await this.db
      .insertInto('users')
      .values({
        user_uuid: user.userUuid,
        email: user.email,
        password_hash: user.passwordHash,
        nickname: user.nickname,
        created_at: user.createdAt,
        locale: user.locale ?? null,
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  async findByEmail(email: string): Promise<UserWithPassword | undefined> {
    const row = await this.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
    return row ? toUser(row) : undefined;
  }

  async findById(userUuid: number): Promise<UserWithPassword | undefined> {
    const row = await this.db
      .selectFrom('users')
      .selectAll()
      .where('user_uuid', '=', userUuid)
      .executeTakeFirst();
    return row ? toUser(row) : undefined;
  }

  /** Replaces the password hash only if it is still `expected`; true when it did. */
  async replacePasswordHash(userUuid: number, expected: string, replacement: string): Promise<boolean> {
    const result = await this.db
      .updateTable('users')
      .set({ password_hash: replacement })
      .where('user_uuid', '=', userUuid)
      .where('password_hash', '=', expected)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** Records that the account's password was just proved (the Security page's "last used"). */
  async notePasswordUse(userUuid: number, now: number): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ password_used_at: now })
      .where('user_uuid', '=', userUuid)
      .execute();
  }

  /** Whether the account has a password, and when it was last proved (undefined: not since 0260). */
  async passwordUse(userUuid: number): Promise<{ set: boolean; lastUsedAt: number | undefined }> {
    const row = await this.db
      .selectFrom('users')
      .select(['password_hash', 'password_used_at'])
      .where('user_uuid', '=', userUuid)
      .executeTakeFirst();
    return {
      set: !!row && row.password_hash !== '',
      lastUsedAt: row?.password_used_at == null ? undefined : Number(row.password_used_at),
    };
  }

  async emailTaken(email: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('users')
      .select('user_uuid')
      .where('email', '=', email)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Sets a new password hash and voids every login JWT issued before `loginsValidAfter` (Unix seconds)
   * except the one with id `keptJti` (a password change keeps the session that made it; a reset keeps none).
   */
  async setPassword(
    userUuid: number,
    passwordHash: string,
    loginsValidAfter: number,
    keptJti: string | null = null,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('users')
      .set({ password_hash: passwordHash, logins_valid_after: loginsValidAfter, logins_kept_jti: keptJti })
      .where('user_uuid', '=', userUuid)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** Saves the account's language; false when the account is gone (or deleted). */
  async setLocale(userUuid: number, locale: Locale): Promise<boolean> {
    const result = await this.db
      .updateTable('users')
      .set({ locale })
      .where('user_uuid', '=', userUuid)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** Marks the address verified; false when it already was (or the user is gone). */
  async markEmailVerified(userUuid: number, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('users')
      .set({ email_verified_at: now })
      .where('user_uuid', '=', userUuid)
      .where('email_verified_at', 'is', null)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** True once the user's address was verified (accounts older than migration 0140 count as verified). */
  async emailVerified(userUuid: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('users')
      .select('email_verified_at')
      .where('user_uuid', '=', userUuid)
      .executeTakeFirst();
    return row !== undefined && row.email_verified_at !== null;
  }

  /**
   * The user's login cutoff, if a password change or reset set one: Unix seconds and the JWT id it spares; a
   * deleted account's cutoff voids every login JWT.
   */
  async loginCutoff(userUuid: number): Promise<LoginCutoff | undefined> {
    // Hand-written SQL: read on every request made with a login JWT (the backend authorize among them); on
    // SQLite a native statement when no Kysely transaction holds the connection (no mutex or promise).
    const native = this.#native;
    let rows: CutoffRow[];
    if (native && !native.inTransaction) {
      this.#cutoff ??= native.prepare<[number], CutoffRow>(
        'select logins_valid_after, logins_kept_jti, deleted_at from users where user_uuid = ?',
      );
      const found = this.#cutoff.get(userUuid);
      rows = found ? [found] : [];
    } else {
      ({ rows } = await sql<CutoffRow>`
        select logins_valid_after, logins_kept_jti, deleted_at from users where user_uuid = ${userUuid}`.execute(
        this.db,
      ));
    }
    const row = rows[0];
    if (row?.deleted_at != null) return { validAfter: Infinity, deleted: true };
    if (row === undefined || row.logins_valid_after === null) return undefined;
    return { validAfter: Number(row.logins_valid_after), keptJti: row.logins_kept_jti ?? undefined };
  }
}
