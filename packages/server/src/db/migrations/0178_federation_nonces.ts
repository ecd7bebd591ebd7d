import type { Kysely } from 'kysely';

/**
 * Single-use markers for federation (docs/federation.md#steam): an OpenID 2.0 response nonce (and any
 * other upstream value that must be accepted once) is claimed by inserting its key; a second insert of
 * the same key finds the row and is refused. Rows are swept once `expires_at` has passed: by then the
 * value they guard is refused as stale anyway.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('federation_nonces')
    .addColumn('key', 'varchar(512)', (c) => c.primaryKey())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('federation_nonces_expires')
    .on('federation_nonces')
    .column('expires_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('federation_nonces').execute();
}
