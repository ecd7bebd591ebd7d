import type { Kysely } from 'kysely';

/**
 * Webhooks (docs/webhooks.md): an app's endpoints, and the outbox of deliveries. A change writes its
 * deliveries (one per subscribed endpoint) in its own transaction, so a crash loses none; workers on
 * any replica lease them, send them, and record each attempt.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('client_id', 'varchar(128)', (c) => c.notNull())
    .addColumn('url', 'varchar(2000)', (c) => c.notNull())
    // The subscribed types as `,a,b,`, so the outbox's insert can match one with LIKE on both databases.
    .addColumn('events', 'varchar(1000)', (c) => c.notNull())
    // The signing secret sealed under MASTER_KEY (it must be read back to sign), and the one it replaced.
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('previous_secret_sealed', 'text')
    .addColumn('previous_secret_expires_at', 'bigint')
    // Set when a delivery was given up on (retries spent); cleared by the next delivery that succeeds.
    .addColumn('failing_since', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('webhook_endpoints_client')
    .on('webhook_endpoints')
    .columns(['client_id', 'deleted_at'])
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('endpoint_id', 'varchar(40)', (c) => c.notNull())
    // The Standard Webhooks `webhook-id`: one per event, the same on every attempt; time-ordered.
    .addColumn('msg_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('client_id', 'varchar(128)', (c) => c.notNull())
    .addColumn('type', 'varchar(64)', (c) => c.notNull())
    // The JSON body `{type, timestamp, data}`, exactly as signed and sent.
    .addColumn('payload', 'text', (c) => c.notNull())
    // Deliveries of one key (a slot) reach an endpoint in order: a later one waits for the earlier.
    .addColumn('order_key', 'varchar(128)')
    // 'pending' | 'delivered' | 'failed' (retries spent).
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_until', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('leased_by', 'varchar(64)')
    .addColumn('last_status', 'integer')
    .addColumn('last_error', 'varchar(200)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('delivered_at', 'bigint')
    .addPrimaryKeyConstraint('webhook_deliveries_pk', ['endpoint_id', 'msg_id'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['state', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_order')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'order_key', 'state', 'msg_id'])
    .execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('endpoint_id', 'varchar(40)', (c) => c.notNull())
    .addColumn('msg_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    // 'delivered' (2xx), 'refused' (another status), 'timeout', 'unreachable', 'blocked' (SSRF policy).
    .addColumn('outcome', 'varchar(16)', (c) => c.notNull())
    .addColumn('status', 'integer')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('error', 'varchar(200)')
    .addPrimaryKeyConstraint('webhook_attempts_pk', ['endpoint_id', 'msg_id', 'attempt'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_attempts').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhook_endpoints').execute();
}
