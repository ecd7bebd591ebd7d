import type { Kysely } from 'kysely';

/**
 * Account security (docs/security.md, "Security mail"): the one-time "this wasn't me" links of security
 * mails (stored as HMAC under a MASTER_KEY-derived key), the accounts that must reset their password before
 * any sign-in, and the session cut-offs whose app-grant part is still to be finished (written in the
 * transaction that ends the account's sessions, deleted once the grants are revoked, so a crash between the
 * two is finished at the next start).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('account_security_links')
    .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_uuid', 'bigint', (c) => c.notNull())
    // What the mail reported (`passkey_added`, `identity_linked`, …) and what it names (a passkey or identity id).
    .addColumn('change', 'varchar(40)', (c) => c.notNull())
    .addColumn('subject', 'varchar(1400)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('account_security_links_by_user')
    .on('account_security_links')
    .column('user_uuid')
    .execute();
  await db.schema
    .createTable('account_reset_holds')
    .addColumn('user_uuid', 'bigint', (c) => c.primaryKey())
    .addColumn('reason', 'varchar(40)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('account_cutoffs')
    .addColumn('user_uuid', 'bigint', (c) => c.primaryKey())
    .addColumn('reason', 'varchar(40)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('account_cutoffs').execute();
  await db.schema.dropTable('account_reset_holds').execute();
  await db.schema.dropTable('account_security_links').execute();
}
