import { type Kysely, sql } from 'kysely';

/**
 * Verified sign-up and the platform's sponsorship cap (decisions §8, docs/accounts.md, docs/security.md).
 *
 * `users.email_verified_at`: when the account proved it receives mail at its address (the sign-up
 * mail's code or link). Accounts that existed before this migration count as verified from their
 * creation: they were made under the earlier rules, and their sponsorship must not shrink under them.
 *
 * `sponsorship_spend.refused`: operations refused against a budget that day. For the platform-wide row
 * (`scope = 'platform'`) a non-zero count is "the cap was reached today", which every replica reads
 * (`/readyz`, the metric) and which makes the first crossing logged once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('email_verified_at', 'bigint').execute();
  await sql`update users set email_verified_at = created_at`.execute(db);
  await db.schema
    .alterTable('sponsorship_spend')
    .addColumn('refused', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sponsorship_spend').dropColumn('refused').execute();
  await db.schema.alterTable('users').dropColumn('email_verified_at').execute();
}
