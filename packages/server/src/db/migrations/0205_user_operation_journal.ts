import type { Kysely } from 'kysely';

/**
 * The journal of user operations sent to an independent bundler (BUNDLER_RPC_URL, docs/chain.md
 * "Durability"): each signed operation by its userOpHash, written before `eth_sendUserOperation`, so a
 * restart asks the bundler and the chain what became of it and sends it again while it can still land.
 * `operation` is the signed operation as JSON-RPC carries it (hex fields); `nonce` a decimal string.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('user_operation_journal')
    .addColumn('user_op_hash', 'varchar(66)', (c) => c.primaryKey())
    .addColumn('chain_id', 'bigint', (c) => c.notNull())
    .addColumn('sender', 'varchar(42)', (c) => c.notNull())
    .addColumn('nonce', 'varchar(80)', (c) => c.notNull())
    .addColumn('operation', 'text', (c) => c.notNull())
    // Unix seconds: the paymaster's validUntil; past it the operation can never be included.
    .addColumn('valid_until', 'bigint', (c) => c.notNull())
    // sent | included | dropped
    .addColumn('state', 'varchar(10)', (c) => c.notNull())
    .addColumn('tx_hash', 'varchar(66)')
    .addColumn('block_number', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('user_operation_journal_open')
    .on('user_operation_journal')
    .columns(['chain_id', 'state'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('user_operation_journal').execute();
}
