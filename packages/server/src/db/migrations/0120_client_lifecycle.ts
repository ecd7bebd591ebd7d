import type { Kysely } from 'kysely';

/**
 * App and account lifecycle (docs/accounts.md): a rotated-out client secret with its grace deadline,
 * deleted apps (kept as rows because grants and codes reference them), and "every login JWT issued
 * before this instant is void" per user (password change or reset).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('oauth_clients').addColumn('previous_secret_hash', 'varchar(128)').execute();
  await db.schema.alterTable('oauth_clients').addColumn('previous_secret_expires_at', 'bigint').execute();
  await db.schema.alterTable('oauth_clients').addColumn('deleted_at', 'bigint').execute();
  await db.schema.alterTable('users').addColumn('logins_valid_after', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('logins_valid_after').execute();
  for (const column of ['deleted_at', 'previous_secret_expires_at', 'previous_secret_hash']) {
    await db.schema.alterTable('oauth_clients').dropColumn(column).execute();
  }
}
