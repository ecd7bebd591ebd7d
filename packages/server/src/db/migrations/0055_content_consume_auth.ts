import type { Kysely } from 'kysely';

/**
 * Per-client consumption authentication (decisions §7): 'none' keeps the spec's anonymous endpoint;
 * 'client_secret' requires HTTP Basic with the app's client_id and client_secret on every consumption.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('content_client_keys')
    .addColumn('consume_auth', 'varchar(16)', (c) => c.notNull().defaultTo('none'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('content_client_keys').dropColumn('consume_auth').execute();
}
