import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * The audit trail: one row per security-relevant action (who, from where, what, the outcome),
 * never a secret. Append-only: triggers refuse UPDATE and DELETE on both databases, so an
 * operator who wants to prune it must drop the trigger on purpose.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_log')
    // Time-ordered: `at` (ms) then `seq`, a per-process counter that orders entries of one millisecond.
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('action', 'varchar(64)', (c) => c.notNull())
    // 'success' (2xx), 'denied' (401/403/423/429), 'failure' (any other 4xx/5xx).
    .addColumn('outcome', 'varchar(10)', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('error_code', 'varchar(64)')
    .addColumn('actor_kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('actor_user', 'varchar(32)')
    .addColumn('client_id', 'varchar(128)')
    .addColumn('address', 'varchar(64)', (c) => c.notNull())
    .addColumn('request_id', 'varchar(64)', (c) => c.notNull())
    // Whitelisted, non-secret fields of the request and answer (targets, values, tx hashes) as JSON.
    .addColumn('details', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_at').on('audit_log').columns(['at', 'seq']).execute();
  await db.schema.createIndex('audit_log_user').on('audit_log').columns(['actor_user', 'at']).execute();
  await db.schema.createIndex('audit_log_action').on('audit_log').columns(['action', 'at']).execute();

  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`
      create function audit_log_append_only() returns trigger language plpgsql as $$
      begin raise exception 'audit_log is append-only'; end $$`.execute(db);
    await sql`
      create trigger audit_log_no_change before update or delete on audit_log
      for each row execute function audit_log_append_only()`.execute(db);
  } else {
    await sql`
      create trigger audit_log_no_update before update on audit_log
      begin select raise(abort, 'audit_log is append-only'); end`.execute(db);
    await sql`
      create trigger audit_log_no_delete before delete on audit_log
      begin select raise(abort, 'audit_log is append-only'); end`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_log').execute();
}
