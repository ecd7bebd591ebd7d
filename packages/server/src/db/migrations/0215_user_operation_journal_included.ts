import type { Kysely } from 'kysely';

/**
 * The external path's reorg watch (`ExternalBundler.checkReorg`, every 2 s) reads the included entries of
 * the last blocks of a chain: "this chain, `included`, from that block on", without scanning the week of
 * settled entries the journal keeps.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('user_operation_journal_included')
    .on('user_operation_journal')
    .columns(['chain_id', 'state', 'block_number'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('user_operation_journal_included').execute();
}
