import type { Kysely } from 'kysely';

/**
 * Second factors (decisions §9, docs/mfa.md): an account's TOTP secret (sealed under MASTER_KEY, pending
 * until `confirmed_at`), the last time step a code was accepted in (replay: a code of that step or an
 * earlier one is refused), its recovery codes (keyed HMAC, single use), and the `mfa_token`s of sign-ins
 * waiting for their second step (keyed HMAC of the token; shared by every replica).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mfa_totp')
    .addColumn('user_uuid', 'bigint', (c) => c.primaryKey().references('users.user_uuid'))
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('confirmed_at', 'bigint')
    .addColumn('last_step', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('mfa_recovery_codes')
    .addColumn('user_uuid', 'bigint', (c) => c.notNull().references('users.user_uuid'))
    .addColumn('code_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addPrimaryKeyConstraint('mfa_recovery_codes_pk', ['user_uuid', 'code_hash'])
    .execute();
  await db.schema
    .createTable('mfa_login_tokens')
    .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_uuid', 'bigint', (c) => c.notNull())
    // The first step: the app the login JWT is to be bound to, when it proved, and how (amr).
    .addColumn('client_id', 'varchar(200)')
    .addColumn('auth_time', 'bigint', (c) => c.notNull())
    .addColumn('amr', 'varchar(100)', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('mfa_login_tokens_expires')
    .on('mfa_login_tokens')
    .column('expires_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('mfa_login_tokens').execute();
  await db.schema.dropTable('mfa_recovery_codes').execute();
  await db.schema.dropTable('mfa_totp').execute();
}
