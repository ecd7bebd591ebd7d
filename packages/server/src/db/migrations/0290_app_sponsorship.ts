import type { Kysely } from 'kysely';

/**
 * Per-app sponsorship policies (decisions §9 "Launch-day defenses", docs/sponsorship.md): an app's own
 * daily gas budgets per player, per guest and for the whole app, its operations per player and
 * minute, and its optional approval hook (the URL and its `whsec_` secret, sealed under MASTER_KEY).
 * A null budget is no app cap (the platform's caps still apply). What is spent is counted in
 * `sponsorship_spend` beside the platform's budgets, in the same transaction.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('app_sponsorship_policies')
    .addColumn('client_id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('daily_gas_per_player', 'bigint')
    .addColumn('daily_gas_per_guest', 'bigint')
    .addColumn('daily_gas_app', 'bigint')
    .addColumn('ops_per_player_per_minute', 'integer')
    .addColumn('approval_url', 'varchar(2048)')
    .addColumn('approval_secret_sealed', 'text')
    .addColumn('approval_fail_open', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('app_sponsorship_policies').execute();
}
