import type { Kysely } from 'kysely';

/**
 * The OAuth domain: apps (clients), authorization grants with their codes and refresh tokens,
 * revocations, browser sessions and consents of the login page, and the login status per user
 * and app. Portable SQL: millisecond timestamps as bigint, booleans as integer 0/1.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('oauth_clients')
    .addColumn('client_id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('owner_uuid', 'bigint', (c) => c.notNull().references('users.user_uuid'))
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    // JSON array of exact redirect URIs.
    .addColumn('redirect_uris', 'text', (c) => c.notNull())
    .addColumn('dapp', 'integer', (c) => c.notNull().defaultTo(0))
    // HMAC-SHA256 of the secret under a key derived from MASTER_KEY; the secret itself is never stored.
    .addColumn('secret_hash', 'varchar(128)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oauth_clients_owner').on('oauth_clients').column('owner_uuid').execute();

  // One grant per authorization code: every token issued from that code (and its refreshes) carries it.
  // Codes and refresh tokens name their grant without a FOREIGN KEY: they are only written for a
  // grant that exists (created with the code, or in the same transaction), and a foreign key would
  // make deleting a grant scan both (unindexed) child tables. The purge deletes only grants nothing
  // refers to any more.
  await db.schema
    .createTable('oauth_grants')
    .addColumn('grant_id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('client_id', 'varchar(64)', (c) => c.notNull().references('oauth_clients.client_id'))
    .addColumn('user_uuid', 'bigint', (c) => c.notNull().references('users.user_uuid'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('revoked_reason', 'varchar(40)')
    .execute();
  await db.schema
    .createIndex('oauth_grants_user_client')
    .on('oauth_grants')
    .columns(['user_uuid', 'client_id'])
    .execute();

  await db.schema
    .createTable('oauth_codes')
    // SHA-256 of the code (hex): a leaked table cannot be replayed.
    .addColumn('code_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('grant_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('client_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('user_uuid', 'bigint', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'varchar(128)')
    .addColumn('code_challenge_method', 'varchar(10)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('oauth_codes_expires').on('oauth_codes').column('expires_at').execute();

  await db.schema
    .createTable('oauth_refresh_tokens')
    .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('grant_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('client_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('user_uuid', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('successor_hash', 'varchar(64)')
    // The successor's token response sealed under MASTER_KEY, kept for the rotation grace window.
    .addColumn('successor_sealed', 'text')
    .execute();
  // No secondary index on purpose: every index is one more page written per token exchange, and
  // only the periodic purge would use them (it scans instead; see OAuthGrantStore.purgeExpired).

  // Revoked grant ids and token ids, kept until every token they could match has expired.
  await db.schema
    .createTable('oauth_revocations')
    .addColumn('revocation_key', 'varchar(100)', (c) => c.primaryKey())
    .addColumn('kind', 'varchar(10)', (c) => c.notNull())
    .addColumn('value', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('oauth_revocations_expires')
    .on('oauth_revocations')
    .column('expires_at')
    .execute();

  // Sessions of the service's own login page (cookie value stored as its SHA-256).
  await db.schema
    .createTable('oauth_sessions')
    .addColumn('session_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_uuid', 'bigint', (c) => c.notNull().references('users.user_uuid'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oauth_sessions_expires').on('oauth_sessions').column('expires_at').execute();

  await db.schema
    .createTable('oauth_consents')
    .addColumn('user_uuid', 'bigint', (c) => c.notNull().references('users.user_uuid'))
    .addColumn('client_id', 'varchar(64)', (c) => c.notNull().references('oauth_clients.client_id'))
    .addColumn('granted_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('oauth_consents_pk', ['user_uuid', 'client_id'])
    .execute();

  await db.schema
    .createTable('oauth_login_status')
    .addColumn('user_uuid', 'bigint', (c) => c.notNull())
    .addColumn('client_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('oauth_login_status_pk', ['user_uuid', 'client_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'oauth_login_status',
    'oauth_consents',
    'oauth_sessions',
    'oauth_revocations',
    'oauth_refresh_tokens',
    'oauth_codes',
    'oauth_grants',
    'oauth_clients',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
