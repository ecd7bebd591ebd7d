import type { Kysely } from 'kysely';

/**
 * Federation tickets learn two things (decisions §9, "Ways in"; docs/federation.md):
 * - `binder_hash`: a link ticket is bound to the browser whose console asked for it, by the SHA-256 of a
 *   random cookie set on that browser; the start refuses it anywhere else (account-linking CSRF).
 * - `auth_time`: a console login ticket carries when the person last proved a credential at the upstream
 *   (Unix seconds), so the login JWT it is redeemed for says that, not the moment of the redirect.
 * Both are null on tickets written before: such a link ticket is refused, such a login ticket is not fresh.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('federation_tickets').addColumn('binder_hash', 'varchar(64)').execute();
  await db.schema.alterTable('federation_tickets').addColumn('auth_time', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('federation_tickets').dropColumn('auth_time').execute();
  await db.schema.alterTable('federation_tickets').dropColumn('binder_hash').execute();
}
