import type { Kysely } from 'kysely';

/**
 * Sign in with Google, Apple, Discord, Steam (decisions §8, docs/federation.md "Accounts and linking").
 *
 * - `federated_identities`: one upstream account (provider id, its stable subject) linked to one dauth
 *   user; unique on (provider, subject), so an upstream account opens at most one dauth account.
 * - `federation_flows`: a browser flow between `start` and `callback`. Keyed by the SHA-256 of its `state`
 *   (the state itself only travels through the browser); bound to the browser by the SHA-256 of the flow
 *   cookie's value; the PKCE verifier is sealed (MASTER_KEY). A callback takes its flow once (a
 *   conditional delete), so a replayed callback finds nothing.
 * - `federation_tickets`: one-time tickets (SHA-256 keyed) that carry a signed-in result across a
 *   redirect: the console's login ticket (60 s) and the link ticket of a link-by-redirect (5 minutes).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('federated_identities')
    .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('provider', 'varchar(100)', (c) => c.notNull())
    .addColumn('subject', 'varchar(255)', (c) => c.notNull())
    .addColumn('user_uuid', 'bigint', (c) => c.notNull().references('users.user_uuid'))
    .addColumn('email', 'varchar(320)')
    .addColumn('email_verified', 'integer', (c) => c.notNull())
    .addColumn('display_name', 'varchar(200)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .addUniqueConstraint('federated_identities_provider_subject', ['provider', 'subject'])
    .execute();
  await db.schema
    .createIndex('federated_identities_by_user')
    .on('federated_identities')
    .column('user_uuid')
    .execute();
  await db.schema
    .createTable('federation_flows')
    .addColumn('state_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('provider', 'varchar(100)', (c) => c.notNull())
    .addColumn('purpose', 'varchar(20)', (c) => c.notNull())
    .addColumn('link_user_uuid', 'bigint')
    .addColumn('return_to', 'text', (c) => c.notNull())
    .addColumn('browser_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('nonce', 'varchar(100)', (c) => c.notNull())
    .addColumn('code_verifier_sealed', 'varchar(400)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('federation_flows_expires')
    .on('federation_flows')
    .column('expires_at')
    .execute();
  await db.schema
    .createTable('federation_tickets')
    .addColumn('ticket_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('purpose', 'varchar(20)', (c) => c.notNull())
    .addColumn('user_uuid', 'bigint', (c) => c.notNull())
    .addColumn('provider', 'varchar(100)')
    .addColumn('created', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('federation_tickets_expires')
    .on('federation_tickets')
    .column('expires_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('federation_tickets').execute();
  await db.schema.dropTable('federation_flows').execute();
  await db.schema.dropTable('federated_identities').execute();
}
