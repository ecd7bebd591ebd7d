import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * Guest accounts and passkey-only accounts (docs/players.md): `users.email` becomes optional (a guest,
 * or a guest upgraded by passkey, has none; NULLs never collide under the unique constraint), and
 * `guest_accounts` holds each guest's secret as a keyed hash until the upgrade deletes it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table users alter column email drop not null`.execute(db);
  } else {
    await rebuildSqliteUsers(db, (create) => create.replace(/("email" varchar\(320\)) not null/i, '$1'));
  }
  await db.schema
    .createTable('guest_accounts')
    .addColumn('user_uuid', 'bigint', (c) => c.primaryKey().references('users.user_uuid'))
    // HMAC-SHA256 of the 256-bit secret under a MASTER_KEY-derived key (services/accounts/guestService.ts).
    .addColumn('secret_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('client_id', 'varchar(200)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('guest_accounts').execute();
}

/**
 * SQLite cannot drop a NOT NULL in place: the table is rebuilt from its own CREATE statement (so
 * columns other migrations added come along), with foreign keys off for the swap (Kysely runs SQLite
 * migrations outside a transaction, so the pragma takes effect) and checked afterwards.
 */
async function rebuildSqliteUsers(db: Kysely<unknown>, edit: (create: string) => string): Promise<void> {
  const { rows } = await sql<{ type: string; name: string; sql: string | null }>`
    select type, name, sql from sqlite_master where tbl_name = 'users'`.execute(db);
  const table = rows.find((r) => r.type === 'table');
  if (!table?.sql) throw new Error('users table not found');
  const indexes = rows.filter((r) => r.type === 'index' && r.sql !== null).map((r) => r.sql!);
  const create = edit(table.sql).replace(/^create table\s+"?users"?/i, 'create table "users_rebuilt"');
  if (create === table.sql) throw new Error('users: the CREATE statement was not changed');
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await db.transaction().execute(async (trx) => {
      await sql.raw(create).execute(trx);
      await sql`insert into users_rebuilt select * from users`.execute(trx);
      await sql`drop table users`.execute(trx);
      await sql`alter table users_rebuilt rename to users`.execute(trx);
      for (const index of indexes) await sql.raw(index).execute(trx);
      const broken = await sql`pragma foreign_key_check`.execute(trx);
      if (broken.rows.length > 0) throw new Error('users rebuild broke a foreign key');
    });
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}
