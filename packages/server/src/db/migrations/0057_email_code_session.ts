import type { Kysely } from 'kysely';

/**
 * `session_id`: the login JWT (`jti`) that asked for an e-mail code. Codes, their resend limits and their
 * wrong-guess counts are per session, so an app backend holding a relayed login JWT can neither supersede
 * nor burn the code the user asked for, nor use up the user's own allowance (docs/security.md). '' for
 * codes from before the column.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('email_codes')
    .addColumn('session_id', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('email_codes').dropColumn('session_id').execute();
}
