import type { Kysely } from 'kysely';

/**
 * The device authorization grant (RFC 8628, docs/players.md): one row per device authorization
 * request, from `POST /oauth/device_authorization` until it is redeemed or purged after expiry.
 * The device code is kept as its SHA-256 only; `code_hash` is the SHA-256 of the authorization code
 * the approval issues (derived from the device code, so only the device can redeem it).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('oauth_device_authorizations')
    .addColumn('device_code_hash', 'varchar(64)', (c) => c.primaryKey())
    // Normalized: eight letters of the user-code alphabet, no dash.
    .addColumn('user_code', 'varchar(16)', (c) => c.notNull().unique())
    .addColumn('client_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('scope', 'varchar(1000)')
    .addColumn('code_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    // Seconds; grows by 5 on every `slow_down` (RFC 8628 §3.5).
    .addColumn('interval_seconds', 'integer', (c) => c.notNull())
    .addColumn('last_polled_at', 'bigint')
    // pending | approved | denied
    .addColumn('status', 'varchar(10)', (c) => c.notNull())
    .addColumn('user_uuid', 'bigint')
    .addColumn('decided_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('oauth_device_authorizations_expires')
    .on('oauth_device_authorizations')
    .column('expires_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('oauth_device_authorizations').execute();
}
