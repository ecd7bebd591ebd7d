import type { Kysely } from 'kysely';

/**
 * The account's language (decisions §9 "Player-facing pages in the player's language", docs/account.md
 * "Language"): one of the BCP 47 tags of `SUPPORTED_LOCALES` (src/i18n/locales.ts), saved at sign-up from the
 * page's or the request's language and changed with `PUT /v1/dev-user/account/locale`. Every mail to the
 * account is written in it. Null is unknown (accounts from before, pre-generated players): English.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('locale', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('locale').execute();
}
