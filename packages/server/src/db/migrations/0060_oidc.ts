import type { Kysely } from 'kysely';

/**
 * OpenID Connect (docs/oidc.md): what an authorization with `scope=openid` needs later.
 *
 * - Codes carry the granted scope, the request's `nonce` and the user's authentication time, so
 *   the code exchange (one conditional UPDATE … RETURNING *) reads them without another query.
 * - Grants carry the scope and authentication time too: a refresh (which already reads its grant)
 *   issues the next `id_token` with the original `auth_time` (OIDC Core §12.2).
 * - Apps register the exact URIs RP-initiated logout may return to.
 *
 * All columns are nullable or defaulted, so existing rows stay plain OAuth 2.0 grants. SQLite adds
 * one column per statement.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('oauth_codes').addColumn('scope', 'varchar(1000)').execute();
  await db.schema.alterTable('oauth_codes').addColumn('nonce', 'varchar(512)').execute();
  await db.schema.alterTable('oauth_codes').addColumn('auth_time', 'bigint').execute();
  await db.schema.alterTable('oauth_grants').addColumn('scope', 'varchar(1000)').execute();
  await db.schema.alterTable('oauth_grants').addColumn('auth_time', 'bigint').execute();
  // JSON array of exact URIs, like redirect_uris.
  await db.schema
    .alterTable('oauth_clients')
    .addColumn('post_logout_redirect_uris', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('oauth_clients').dropColumn('post_logout_redirect_uris').execute();
  await db.schema.alterTable('oauth_grants').dropColumn('auth_time').execute();
  await db.schema.alterTable('oauth_grants').dropColumn('scope').execute();
  await db.schema.alterTable('oauth_codes').dropColumn('auth_time').execute();
  await db.schema.alterTable('oauth_codes').dropColumn('nonce').execute();
  await db.schema.alterTable('oauth_codes').dropColumn('scope').execute();
}
