import type { Kysely } from 'kysely';

/**
 * Every smart wallet the platform knows, main (W_SALT = 0) and slot content wallets
 * (C_SALT = slot id). The address is fixed forever; the owner EOA may rotate.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('wallets')
    .addColumn('address', 'varchar(42)', (c) => c.primaryKey())
    .addColumn('user_uuid', 'bigint', (c) => c.notNull().references('users.user_uuid'))
    .addColumn('kind', 'varchar(10)', (c) => c.notNull())
    // uint256 salt as a decimal string: slot ids do not fit a bigint column's JS number.
    .addColumn('salt', 'varchar(78)', (c) => c.notNull())
    // The owner the CREATE2 address was derived from; needed to deploy it later.
    .addColumn('initial_owner', 'varchar(42)', (c) => c.notNull())
    .addColumn('owner', 'varchar(42)', (c) => c.notNull())
    .addColumn('deployed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('wallets_user').on('wallets').columns(['user_uuid', 'kind']).execute();
  await db.schema
    .createIndex('wallets_user_salt')
    .on('wallets')
    .columns(['user_uuid', 'initial_owner', 'salt'])
    .unique()
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('wallets').execute();
}
