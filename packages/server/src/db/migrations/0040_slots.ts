import { type Kysely, sql } from 'kysely';

/**
 * Slots (a user's OAuth rights for one app, with a content wallet and on-chain ownership), the
 * backend-integration authorization codes, single-use transfer tickets and marketplace listings.
 * Slot ids are uint256 values written as decimal text: no JavaScript number ever holds them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('slots')
    .addColumn('id', 'varchar(78)', (c) => c.primaryKey())
    .addColumn('client_id', 'varchar(128)', (c) => c.notNull())
    .addColumn('owner_uuid', 'bigint', (c) => c.notNull().references('users.user_uuid'))
    .addColumn('content_address', 'varchar(42)', (c) => c.notNull())
    .addColumn('tr_cnt', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('token_nickname', 'varchar(100)', (c) => c.notNull())
    .addColumn('meta_idx', 'integer', (c) => c.notNull())
    .addColumn('imported', 'integer', (c) => c.notNull().defaultTo(0))
    // 'pending' until the dex records it, 'active' after; 'moving' while a transfer is in flight.
    .addColumn('state', 'varchar(10)', (c) => c.notNull())
    // When the current pending/moving phase began (ms), so a crashed step can be taken over.
    .addColumn('state_since', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // One owner never holds two slots of one app at the same index: it also settles creation races.
  await db.schema
    .createIndex('slots_owner_index')
    .on('slots')
    .columns(['client_id', 'owner_uuid', 'meta_idx'])
    .unique()
    .execute();
  await db.schema.createIndex('slots_owner').on('slots').columns(['owner_uuid']).execute();
  await db.schema.createIndex('slots_content_address').on('slots').columns(['content_address']).execute();

  await db.schema
    .createTable('backend_codes')
    // SHA-256 of the code: a copy of the table yields no usable code.
    .addColumn('code_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('client_id', 'varchar(128)', (c) => c.notNull())
    .addColumn('user_uuid', 'bigint', (c) => c.notNull())
    .addColumn('slot_id', 'varchar(78)', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    // Set once, by the one exchange that wins (or when the callback could not be delivered).
    .addColumn('used_at', 'bigint')
    // The grant the exchange opened, revoked if the code is presented again.
    .addColumn('grant_id', 'varchar(128)')
    .execute();
  await db.schema.createIndex('backend_codes_expires').on('backend_codes').columns(['expires_at']).execute();

  await db.schema
    .createTable('transfer_tickets')
    .addColumn('ticket_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('cu_id', 'varchar(128)', (c) => c.notNull())
    .addColumn('client_id', 'varchar(128)', (c) => c.notNull())
    .addColumn('from_uuid', 'bigint', (c) => c.notNull())
    .addColumn('to_uuid', 'bigint', (c) => c.notNull())
    .addColumn('meta_idx', 'integer', (c) => c.notNull())
    // The slot the four values named when the ticket was issued.
    .addColumn('slot_id', 'varchar(78)', (c) => c.notNull())
    .addColumn('origin', 'varchar(10)', (c) => c.notNull())
    // 'issued' → 'consuming' (chain step in flight) → 'used'; back to 'issued' if the chain step failed.
    .addColumn('status', 'varchar(10)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('status_since', 'bigint', (c) => c.notNull())
    .addColumn('tx_hash', 'varchar(66)')
    .addColumn('user_op_hash', 'varchar(66)')
    .execute();

  await db.schema
    .createTable('market_listings')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('slot_id', 'varchar(78)', (c) => c.notNull())
    .addColumn('client_id', 'varchar(128)', (c) => c.notNull())
    .addColumn('seller_uuid', 'bigint', (c) => c.notNull())
    .addColumn('price', 'varchar(78)', (c) => c.notNull())
    // 'active' → 'pending' (claimed by one buyer, chain step in flight) → 'sold'; or 'cancelled'.
    .addColumn('status', 'varchar(10)', (c) => c.notNull())
    .addColumn('buyer_uuid', 'bigint')
    .addColumn('tx_hash', 'varchar(66)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('market_listings_status').on('market_listings').columns(['status']).execute();
  // A slot is on offer at most once at a time (SQLite and PostgreSQL both have partial indexes).
  await db.schema
    .createIndex('market_listings_open_slot')
    .on('market_listings')
    .column('slot_id')
    .unique()
    .where(sql.ref('status'), 'in', sql`('active', 'pending')`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('market_listings').execute();
  await db.schema.dropTable('transfer_tickets').execute();
  await db.schema.dropTable('backend_codes').execute();
  await db.schema.dropTable('slots').execute();
}
