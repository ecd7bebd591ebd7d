import { type Kysely, sql } from 'kysely';

/**
 * The slot economy (decisions §7, "Value is never lost, never given away"):
 *
 * - Market listings record how the price was settled (`payment`): `onchain` for a sale whose one
 *   operation paid the seller and moved the slot, `not_collected` for the sales made before this
 *   migration (their price was recorded, never collected). Open listings made before it were
 *   created without the seller's PIN, which a listing now needs: they are withdrawn (`cancelled`,
 *   `payment = 'withdrawn_unpriced'`); the seller lists again with their PIN.
 * - Content wallets: rows of kind `slot` are the wallets made before this migration, owned by their
 *   first owner's EOA. They stay `slot` until custody hands each one to the dex (`changeOwner(dex)`,
 *   signed with the key holder's PIN at their next PIN use) and then become `content`, the kind new
 *   slots get from the start (first owner = the dex). No row changes here: the hand-over needs the
 *   key, which only the user's PIN unlocks (docs/slots.md, "Content wallets").
 * - Sponsorship spend per day and user/app, shared by every replica (atomic increments).
 * - Content providers: `terms_frozen` once the platform enabled release, and the history of the
 *   admin-approved changes of `release_per` / `owner_addr`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('market_listings').addColumn('payment', 'varchar(20)').execute();
  await db.schema.alterTable('market_listings').addColumn('user_op_hash', 'varchar(66)').execute();
  await sql`update market_listings set payment = 'not_collected' where status = 'sold'`.execute(db);
  await sql`update market_listings set status = 'cancelled', payment = 'withdrawn_unpriced'
            where status in ('active', 'pending')`.execute(db);

  await db.schema
    .createTable('sponsorship_spend')
    // UTC day, YYYY-MM-DD.
    .addColumn('day', 'varchar(10)', (c) => c.notNull())
    // 'user' (subject = user uuid) or 'app' (subject = client_id).
    .addColumn('scope', 'varchar(8)', (c) => c.notNull())
    .addColumn('subject', 'varchar(128)', (c) => c.notNull())
    // Gas charged: the sum of the sponsored operations' gas limits (the most they can cost).
    .addColumn('gas', 'bigint', (c) => c.notNull())
    .addColumn('operations', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('sponsorship_spend_pk', ['day', 'scope', 'subject'])
    .execute();

  await db.schema
    .alterTable('content_providers')
    .addColumn('terms_frozen', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('content_terms_changes')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('cuid', 'varchar(128)', (c) => c.notNull())
    .addColumn('previous_release_per', 'integer', (c) => c.notNull())
    .addColumn('previous_owner_addr', 'varchar(42)', (c) => c.notNull())
    .addColumn('release_per', 'integer', (c) => c.notNull())
    .addColumn('owner_addr', 'varchar(42)', (c) => c.notNull())
    .addColumn('tx_hash', 'varchar(66)', (c) => c.notNull())
    .addColumn('applied_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('content_terms_changes_cuid')
    .on('content_terms_changes')
    .column('cuid')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('content_terms_changes').execute();
  await db.schema.alterTable('content_providers').dropColumn('terms_frozen').execute();
  await db.schema.dropTable('sponsorship_spend').execute();
  await db.schema.alterTable('market_listings').dropColumn('user_op_hash').execute();
  await db.schema.alterTable('market_listings').dropColumn('payment').execute();
}
