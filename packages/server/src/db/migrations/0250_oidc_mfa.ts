import type { Kysely } from 'kysely';

/**
 * How a sign-in was proved travels to the tokens of the grant it opened (issue 37, docs/oidc.md):
 *
 * - Login-page sessions keep `amr` (RFC 8176 values, space-separated) and `auth_time` (ms): a second
 *   step ends after the password, and the session keeps the password's time (rows from before: the
 *   creation time, no `amr`).
 * - Codes and grants keep the `amr` of the sign-in that made them, so the `id_token` (code exchange or
 *   refresh) and introspection say it; `acr` is derived from it.
 * - An app may require a second factor (`require_mfa`) on every sign-in through the login page.
 *
 * All columns are nullable or defaulted, so existing rows keep their meaning. SQLite adds one column
 * per statement.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('oauth_sessions').addColumn('amr', 'varchar(100)').execute();
  await db.schema.alterTable('oauth_sessions').addColumn('auth_time', 'bigint').execute();
  await db.schema.alterTable('oauth_codes').addColumn('amr', 'varchar(100)').execute();
  await db.schema.alterTable('oauth_grants').addColumn('amr', 'varchar(100)').execute();
  await db.schema
    .alterTable('oauth_clients')
    .addColumn('require_mfa', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('oauth_clients').dropColumn('require_mfa').execute();
  await db.schema.alterTable('oauth_grants').dropColumn('amr').execute();
  await db.schema.alterTable('oauth_codes').dropColumn('amr').execute();
  await db.schema.alterTable('oauth_sessions').dropColumn('auth_time').execute();
  await db.schema.alterTable('oauth_sessions').dropColumn('amr').execute();
}
