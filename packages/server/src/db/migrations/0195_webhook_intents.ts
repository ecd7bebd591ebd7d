import type { Kysely } from 'kysely';

/**
 * Webhook intents (docs/webhooks.md, "Changes made on chain only"): a content purchase or release exists
 * only on chain, so its event cannot be written in the transaction of the change. An intent is written
 * before the chain write, with the event's `webhook-id` and what identifies the change on chain; the
 * answer's path turns it into the event (deleting the intent in the same transaction), and after a crash
 * the recovery sweep finds the change on chain and does the same. Only written when the app has an
 * endpoint subscribed to the type.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_intents')
    // The event's `webhook-id`, fixed before the chain write: the live path and the recovery write the same.
    .addColumn('msg_id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('client_id', 'varchar(128)', (c) => c.notNull())
    .addColumn('type', 'varchar(64)', (c) => c.notNull())
    // JSON: `{data, match}`, the event's data known before the write and what to look for on chain.
    .addColumn('facts', 'text', (c) => c.notNull())
    // The chain's head before the write: the change cannot be in an earlier block.
    .addColumn('from_block', 'bigint', (c) => c.notNull())
    // The process that wrote it (a sole process recovers every other holder's intents at once).
    .addColumn('holder', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    // Once completed, the change it reported (`<tx hash>:<log index>`): kept a while as a tombstone, so a
    // change already reported is never given to another intent (unique).
    .addColumn('change_key', 'varchar(100)', (c) => c.unique())
    .addColumn('completed_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('webhook_intents_open')
    .on('webhook_intents')
    .columns(['completed_at', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_intents').execute();
}
