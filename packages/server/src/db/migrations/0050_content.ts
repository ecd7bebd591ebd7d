import type { Kysely } from 'kysely';

/**
 * Content tokens (spec part 8, endpoint group 14): provider secrets per OAuth client, cuid registrations,
 * the DB-side view of slot balances that admission control reserves against, and the durable queue of
 * accepted consumption records with the chain batches that carried them. Amounts (uint128 token units,
 * wei) are decimal text; block numbers and timestamps are bigint.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('content_client_keys')
    .addColumn('client_id', 'varchar(128)', (c) => c.primaryKey())
    // key (32 bytes) ‖ iv (16 bytes) of the legacy AES-256-CTR form, sealed under MASTER_KEY.
    .addColumn('ctr_secret_sealed', 'text', (c) => c.notNull())
    // 32-byte AES-256-GCM key of the authenticated form, sealed; null until the provider asks for it.
    .addColumn('gcm_key_sealed', 'text')
    // 'ctr' (spec default), 'ctr+gcm' (both accepted while migrating) or 'gcm' (authenticated form required).
    .addColumn('payload_mode', 'varchar(10)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('content_providers')
    .addColumn('cuid', 'varchar(128)', (c) => c.primaryKey())
    .addColumn('client_id', 'varchar(128)', (c) => c.notNull())
    .addColumn('release_per', 'integer', (c) => c.notNull())
    .addColumn('owner_addr', 'varchar(42)', (c) => c.notNull())
    // 'registering' while the first on-chain registration is in flight (claims the cuid), then 'registered'.
    .addColumn('state', 'varchar(12)', (c) => c.notNull())
    .addColumn('tx_hash', 'varchar(66)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('content_providers_client')
    .on('content_providers')
    .column('client_id')
    .execute();

  await db.schema
    .createTable('content_balances')
    .addColumn('cuid', 'varchar(128)', (c) => c.notNull())
    .addColumn('slot', 'varchar(42)', (c) => c.notNull())
    // On-chain balance and used balance as of `chain_block`.
    .addColumn('chain_balance', 'varchar(80)', (c) => c.notNull())
    .addColumn('chain_used', 'varchar(80)', (c) => c.notNull())
    .addColumn('chain_block', 'bigint', (c) => c.notNull())
    // Sum of accepted records not yet reflected in chain_balance; available = chain_balance − reserved.
    .addColumn('reserved', 'varchar(80)', (c) => c.notNull())
    // Bumped by every change; the bump (`UPDATE … RETURNING`) is also how a transaction takes the row lock.
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('content_balances_pk', ['cuid', 'slot'])
    .execute();

  await db.schema
    .createTable('content_usage')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('client_id', 'varchar(128)', (c) => c.notNull())
    .addColumn('cuid', 'varchar(128)', (c) => c.notNull())
    .addColumn('slot', 'varchar(42)', (c) => c.notNull())
    .addColumn('slot_id', 'varchar(78)', (c) => c.notNull())
    .addColumn('amount', 'varchar(80)', (c) => c.notNull())
    // The payload's request_id (or, for the authenticated form without one, its IV): a retry counts once.
    .addColumn('request_key', 'varchar(200)')
    // 'queued' → 'sent' (in a batch whose outcome is being settled) → 'included'; 'failed' only if the
    // chain refused a record the reservation had admitted (never expected; logged loudly).
    .addColumn('state', 'varchar(10)', (c) => c.notNull())
    .addColumn('batch_id', 'varchar(36)')
    .addColumn('tx_hash', 'varchar(66)')
    .addColumn('block_number', 'bigint')
    // The slot's on-chain balance and used balance right after this record (from its UsageRecorded event).
    .addColumn('balance_after', 'varchar(80)')
    .addColumn('used_after', 'varchar(80)')
    .addColumn('error', 'text')
    .addColumn('accepted_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // NULL request keys never collide (both databases treat NULLs as distinct in unique indexes).
  await db.schema
    .createIndex('content_usage_request')
    .on('content_usage')
    .columns(['client_id', 'request_key'])
    .unique()
    .execute();
  await db.schema
    .createIndex('content_usage_state')
    .on('content_usage')
    .columns(['state', 'accepted_at'])
    .execute();
  await db.schema.createIndex('content_usage_batch').on('content_usage').column('batch_id').execute();

  await db.schema
    .createTable('content_batches')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    // 'sending' (may or may not be on chain) → 'included' | 'dropped' (known not included; records requeued).
    .addColumn('state', 'varchar(10)', (c) => c.notNull())
    // The chain head known when the batch was opened: its transaction cannot be in an earlier block.
    .addColumn('from_block', 'bigint', (c) => c.notNull())
    // The transaction hash the chain layer reported when the outcome became unknown, if any.
    .addColumn('tx_hint', 'varchar(66)')
    .addColumn('tx_hash', 'varchar(66)')
    .addColumn('block_number', 'bigint')
    .addColumn('records', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('content_batches_state').on('content_batches').column('state').execute();
  await db.schema.createIndex('content_batches_block').on('content_batches').column('block_number').execute();

  await db.schema
    .createTable('content_leases')
    .addColumn('name', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('holder', 'varchar(64)', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('content_leases').execute();
  await db.schema.dropTable('content_batches').execute();
  await db.schema.dropTable('content_usage').execute();
  await db.schema.dropTable('content_balances').execute();
  await db.schema.dropTable('content_providers').execute();
  await db.schema.dropTable('content_client_keys').execute();
}
