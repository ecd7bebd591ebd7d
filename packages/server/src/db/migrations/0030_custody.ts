import type { Kysely } from 'kysely';

/**
 * PIN key custody (one row per user with a main wallet), pending owner rotations, and e-mail
 * verification (codes and the single-use tokens they yield). Secrets are only ever stored sealed
 * under MASTER_KEY (server share, mnemonic) or as keyed/plain hashes (codes, tokens).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('wallet_custody')
    .addColumn('user_uuid', 'bigint', (c) => c.primaryKey().references('users.user_uuid'))
    .addColumn('wallet_address', 'varchar(42)', (c) => c.notNull().unique().references('wallets.address'))
    // The owner EOA the sealed key material belongs to (checksummed).
    .addColumn('owner', 'varchar(42)', (c) => c.notNull())
    // share_server and the 12-word mnemonic, each sealed (AES-256-GCM) under MASTER_KEY with an AAD
    // naming user, owner, purpose and key version.
    .addColumn('server_share_sealed', 'text', (c) => c.notNull())
    .addColumn('mnemonic_sealed', 'text', (c) => c.notNull())
    // Incremented by every reset and rotation; conditional updates on it settle races.
    .addColumn('key_version', 'integer', (c) => c.notNull().defaultTo(1))
    // Wrong PINs in a row, counted (and reserved before checking) per wallet.
    .addColumn('failed_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    // Locks so far without an intervening success: the lock lasts 15 min × 2^(lock_count − 1).
    .addColumn('lock_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_until', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  // Recorded before a rotation's first chain operation is sent, deleted in the transaction that
  // stores the new owner: while it exists, every use of the wallet first completes the rotation.
  await db.schema
    .createTable('pending_rotations')
    .addColumn('user_uuid', 'bigint', (c) => c.primaryKey().references('users.user_uuid'))
    .addColumn('old_owner', 'varchar(42)', (c) => c.notNull())
    .addColumn('new_owner', 'varchar(42)', (c) => c.notNull())
    .addColumn('server_share_sealed', 'text', (c) => c.notNull())
    .addColumn('mnemonic_sealed', 'text', (c) => c.notNull())
    // The request driving the rotation and until when it may (a crashed holder's lease expires).
    .addColumn('lease_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('lease_until', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('email_codes')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_uuid', 'bigint', (c) => c.notNull().references('users.user_uuid'))
    .addColumn('purpose', 'varchar(32)', (c) => c.notNull())
    // HMAC-SHA256 (key derived from MASTER_KEY) of id and code: a database copy alone cannot be
    // brute-forced over the 10^6 codes.
    .addColumn('code_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    // Set when the code is used or superseded by a newer one.
    .addColumn('consumed_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('email_codes_user_purpose')
    .on('email_codes')
    .columns(['user_uuid', 'purpose', 'created_at'])
    .execute();

  await db.schema
    .createTable('verification_tokens')
    // SHA-256 of the 256-bit random token; the token itself is never stored.
    .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_uuid', 'bigint', (c) => c.notNull().references('users.user_uuid'))
    .addColumn('purpose', 'varchar(32)', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('verification_tokens').execute();
  await db.schema.dropTable('email_codes').execute();
  await db.schema.dropTable('pending_rotations').execute();
  await db.schema.dropTable('wallet_custody').execute();
}
