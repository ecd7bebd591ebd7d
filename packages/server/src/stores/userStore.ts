import type { Db } from '../db/database.js';
import { affected } from './kyselyResults.js';

export interface UsersTable {
  user_uuid: number;
  email: string;
  password_hash: string;
  nickname: string;
  created_at: number;
  /** Unix seconds: login JWTs issued before it are void (password change or reset; migration 0120). */
  logins_valid_after: number | null;
}

declare module '../db/database.js' {
  interface Database {
    users: UsersTable;
  }
}

export interface User {
  userUuid: number;
  email: string;
  nickname: string;
  createdAt: number;
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
});

export class UserStore {
  constructor(private readonly db: Db) {}

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

  async emailTaken(email: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('users')
      .select('user_uuid')
      .where('email', '=', email)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Sets a new password hash and voids every login JWT issued before `loginsValidAfter` (Unix seconds). */
  async setPassword(userUuid: number, passwordHash: string, loginsValidAfter: number): Promise<boolean> {
    const result = await this.db
      .updateTable('users')
      .set({ password_hash: passwordHash, logins_valid_after: loginsValidAfter })
      .where('user_uuid', '=', userUuid)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** Unix seconds before which the user's login JWTs are void, if a password change set one. */
  async loginsValidAfter(userUuid: number): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('users')
      .select('logins_valid_after')
      .where('user_uuid', '=', userUuid)
      .executeTakeFirst();
    return row?.logins_valid_after === null || row === undefined ? undefined : Number(row.logins_valid_after);
  }
}
