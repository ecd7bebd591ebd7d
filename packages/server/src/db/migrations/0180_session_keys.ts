import type { Kysely } from 'kysely';

/**
 * Session keys (issue 27, docs/session-keys.md): an app's wallet policy, the session account each upgraded
 * wallet hands its ownership to, and the session keys players granted (private keys sealed).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('wallet_policies')
    .addColumn('client_id', 'varchar(100)', (c) => c.primaryKey())
    // The policy as the API shows it (JSON, amounts as decimal strings).
    .addColumn('policy', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('session_accounts')
    // The player's main wallet (the session account's vault); its address never changes.
    .addColumn('wallet_address', 'varchar(42)', (c) => c.primaryKey())
    .addColumn('user_uuid', 'bigint', (c) => c.notNull())
    .addColumn('account_address', 'varchar(42)', (c) => c.notNull().unique())
    // 'pending': recorded before the operation that deploys it and hands it the wallet; 'active' once the
    // wallet's on-chain owner is the session account.
    .addColumn('state', 'varchar(10)', (c) => c.notNull())
    .addColumn('tx_hash', 'varchar(66)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('session_keys')
    .addColumn('key_address', 'varchar(42)', (c) => c.primaryKey())
    .addColumn('user_uuid', 'bigint', (c) => c.notNull())
    .addColumn('client_id', 'varchar(100)', (c) => c.notNull())
    .addColumn('wallet_address', 'varchar(42)', (c) => c.notNull())
    .addColumn('account_address', 'varchar(42)', (c) => c.notNull())
    .addColumn('key_sealed', 'text', (c) => c.notNull())
    .addColumn('policy', 'text', (c) => c.notNull())
    // Unix seconds (the contract's uint48 expiry).
    .addColumn('valid_until', 'bigint', (c) => c.notNull())
    // 'pending' (sealed before the registering operation), 'active', 'revoking' (on chain still, to be
    // revoked by the background sweep), 'revoked', 'failed' (never registered).
    .addColumn('state', 'varchar(10)', (c) => c.notNull())
    .addColumn('tx_hash', 'varchar(66)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('revoke_reason', 'varchar(40)')
    .addColumn('revoke_tx_hash', 'varchar(66)')
    .execute();
  await db.schema
    .createIndex('session_keys_by_user_client')
    .on('session_keys')
    .columns(['user_uuid', 'client_id'])
    .execute();
  await db.schema.createIndex('session_keys_by_state').on('session_keys').column('state').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('session_keys').execute();
  await db.schema.dropTable('session_accounts').execute();
  await db.schema.dropTable('wallet_policies').execute();
}
