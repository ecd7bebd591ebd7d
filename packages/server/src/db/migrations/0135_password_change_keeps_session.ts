import type { Kysely } from 'kysely';

/**
 * A password change while signed in keeps the login JWT that made it (decisions §8): the one login
 * JWT id exempt from `logins_valid_after`. A password reset clears it (everything earlier is void).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('logins_kept_jti', 'varchar(64)').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('logins_kept_jti').execute();
}
