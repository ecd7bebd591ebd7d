import type { Kysely } from 'kysely';

/**
 * Machines and players of studios (decisions §9 "Machines", "Players directory", "Pre-generated
 * players"; docs/machines.md, docs/players.md):
 *
 * - `service_accounts`: an organization's machine clients. Their own table rather than a kind of
 *   `oauth_clients`: they have no redirect URIs, no users, no consent page and no grants, and every
 *   path that reads `oauth_clients` (authorize, code exchange, refresh, device flow, webhooks) would
 *   otherwise need to refuse them one by one. Their `client_id` starts with `sa_`, so `/oauth/token`
 *   knows which table authenticates a client_credentials request. Secrets as keyed HMAC, rotated with
 *   a grace period like apps'.
 * - `pregenerated_players`: accounts a studio made before the player's first sign-in, by e-mail or by
 *   platform identity, with the sealed mnemonic of their counterfactual main wallet until a PIN is set.
 *   At most one per e-mail and one per (provider, subject).
 * - `oauth_grants (client_id, user_uuid)`: the players directory walks an app's grants in uuid order.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('service_accounts')
    .addColumn('client_id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('org_id', 'varchar(40)', (c) => c.notNull())
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('scopes', 'varchar(500)', (c) => c.notNull())
    .addColumn('secret_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('previous_secret_hash', 'varchar(64)')
    .addColumn('previous_secret_expires_at', 'bigint')
    .addColumn('created_by', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .addColumn('deleted_at', 'bigint')
    .execute();
  await db.schema.createIndex('service_accounts_org').on('service_accounts').column('org_id').execute();

  await db.schema
    .createTable('pregenerated_players')
    .addColumn('user_uuid', 'bigint', (c) => c.primaryKey().references('users.user_uuid'))
    .addColumn('org_id', 'varchar(40)', (c) => c.notNull())
    .addColumn('client_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('email', 'varchar(320)')
    .addColumn('provider', 'varchar(64)')
    .addColumn('subject', 'varchar(255)')
    .addColumn('wallet_address', 'varchar(42)', (c) => c.notNull())
    .addColumn('mnemonic_sealed', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('claimed_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('pregenerated_players_email')
    .on('pregenerated_players')
    .column('email')
    .unique()
    .execute();
  await db.schema
    .createIndex('pregenerated_players_platform')
    .on('pregenerated_players')
    .columns(['provider', 'subject'])
    .unique()
    .execute();

  await db.schema
    .createIndex('oauth_grants_client_user')
    .on('oauth_grants')
    .columns(['client_id', 'user_uuid'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('oauth_grants_client_user').execute();
  await db.schema.dropTable('pregenerated_players').execute();
  await db.schema.dropTable('service_accounts').execute();
}
