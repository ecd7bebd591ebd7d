import type { Kysely } from 'kysely';

/**
 * `owner_key_check`: a keyed fingerprint of the owner key (custody/ownerKeyCheck.ts), bound to the user
 * and the owner address. A PIN attempt whose recombined key matches it is right without deriving the
 * key's public key and address on the event loop (docs/performance-pin.md). Null for rows written before
 * it existed and after an owner rotation: the next correct PIN fills it in.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('wallet_custody').addColumn('owner_key_check', 'varchar(64)').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('wallet_custody').dropColumn('owner_key_check').execute();
}
