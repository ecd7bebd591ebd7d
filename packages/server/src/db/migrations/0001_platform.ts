import type { Kysely } from 'kysely';

/** Platform-wide key/value settings (deployed contract addresses, key ids, …). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('platform_settings')
    .addColumn('key', 'varchar(100)', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('platform_settings').execute();
}
