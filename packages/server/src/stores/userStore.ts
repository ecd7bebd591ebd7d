import type { Db } from '../db/database.js';

export interface UsersTable {
  user_uuid: number;
  email: string;
  password_hash: string;
  nickname: string;
  created_at: number;
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

  async emailTaken(email: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('users')
      .select('user_uuid')
      .where('email', '=', email)
      .executeTakeFirst();
    return row !== undefined;
  }
}
