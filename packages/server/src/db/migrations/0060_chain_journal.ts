import type { Kysely } from 'kysely';

/**
 * The chain journal (docs/chain.md, "Durability"): every transaction the service signs, written before it is
 * sent, so a chain that lost blocks (an embedded anvil killed between two state dumps, an external chain's
 * reorg) can be given them back byte for byte, in their original order and with their original block
 * timestamps.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('chain_journal')
    .addColumn('tx_hash', 'varchar(66)', (c) => c.primaryKey())
    .addColumn('chain_id', 'bigint', (c) => c.notNull())
    // Send order (microseconds of the wall clock, strictly increasing within a process).
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('sender', 'varchar(42)', (c) => c.notNull())
    .addColumn('nonce', 'bigint', (c) => c.notNull())
    // The signed transaction as sent (0x hex): replayed byte for byte.
    .addColumn('raw', 'text', (c) => c.notNull())
    // 'sent' (outcome not seen yet), 'mined' (block fields set), 'dropped' (its nonce went to another one).
    .addColumn('state', 'varchar(8)', (c) => c.notNull())
    .addColumn('block_number', 'bigint')
    .addColumn('block_hash', 'varchar(66)')
    // Seconds, as in the block header: a replay mines the block again at this time.
    .addColumn('block_timestamp', 'bigint')
    .addColumn('tx_index', 'integer')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('chain_journal_order')
    .on('chain_journal')
    .columns(['chain_id', 'seq'])
    .execute();
  await db.schema
    .createIndex('chain_journal_block')
    .on('chain_journal')
    .columns(['chain_id', 'block_number'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('chain_journal').execute();
}
