import type { Kysely } from 'kysely';

/**
 * `user_share_check`: a keyed fingerprint of the user's current key share (custody/shareCheck.ts). A PIN
 * attempt whose share does not match it is refused without counting against the lockout. Null for rows
 * written before it existed (filled in at the next correct PIN; until then every wrong attempt counts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('wallet_custody').addColumn('user_share_check', 'varchar(64)').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('wallet_custody').dropColumn('user_share_check').execute();
}
