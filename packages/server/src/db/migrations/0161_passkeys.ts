import type { Kysely } from 'kysely';

/**
 * Passkeys (WebAuthn credentials, docs/players.md) and their one-time challenges. A challenge row is
 * deleted by the request that uses it (single use across replicas: the delete is conditional) and
 * refused after `expires_at`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('passkeys')
    // The credential id (base64url), unique across the whole service: a sign-in names no user.
    .addColumn('id', 'varchar(1400)', (c) => c.primaryKey())
    .addColumn('user_uuid', 'bigint', (c) => c.notNull().references('users.user_uuid'))
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('sign_count', 'bigint', (c) => c.notNull())
    .addColumn('transports', 'varchar(200)', (c) => c.notNull())
    .addColumn('backed_up', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .execute();
  await db.schema.createIndex('passkeys_by_user').on('passkeys').column('user_uuid').execute();
  await db.schema
    .createTable('webauthn_challenges')
    .addColumn('challenge', 'varchar(100)', (c) => c.primaryKey())
    .addColumn('purpose', 'varchar(20)', (c) => c.notNull())
    // Registration challenges belong to the user who asked; sign-in challenges to nobody yet.
    .addColumn('user_uuid', 'bigint')
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webauthn_challenges').execute();
  await db.schema.dropTable('passkeys').execute();
}
