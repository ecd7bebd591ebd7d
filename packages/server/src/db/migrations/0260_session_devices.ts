import type { Kysely } from 'kysely';

/**
 * The account's sessions as its Security page lists them (decisions §9, docs/account.md "Sessions"):
 * where a login-page session or an app grant was opened — the user agent (at most 200 characters) and
 * the network (/24 or /48, never the full address) — and when it was last used (a login-page session
 * that answered an authorization, a grant whose refresh token rotated). Null for rows from before.
 * `users.password_used_at`: the last time the account's password was proved (its "last use" there).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['oauth_sessions', 'oauth_grants']) {
    await db.schema.alterTable(table).addColumn('user_agent', 'varchar(200)').execute();
    await db.schema.alterTable(table).addColumn('network', 'varchar(64)').execute();
    await db.schema.alterTable(table).addColumn('last_used_at', 'bigint').execute();
  }
  await db.schema.alterTable('users').addColumn('password_used_at', 'bigint').execute();
  // The Security page lists a user's login-page sessions (the table had only its expiry index).
  await db.schema.createIndex('oauth_sessions_user').on('oauth_sessions').column('user_uuid').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('oauth_sessions_user').execute();
  await db.schema.alterTable('users').dropColumn('password_used_at').execute();
  for (const table of ['oauth_sessions', 'oauth_grants']) {
    await db.schema.alterTable(table).dropColumn('last_used_at').execute();
    await db.schema.alterTable(table).dropColumn('network').execute();
    await db.schema.alterTable(table).dropColumn('user_agent').execute();
  }
}
