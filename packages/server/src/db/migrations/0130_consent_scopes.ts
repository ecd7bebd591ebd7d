import type { Kysely } from 'kysely';

/**
 * A consent records the scopes the user approved (decisions §8): the space-separated OpenID scopes
 * the consent page showed, `''` for plain OAuth. Rows from before have `''`: they were given on a
 * page that named no claims, so they cover plain OAuth and `openid` alone (the `sub` a plain grant
 * reveals anyway) and nothing that releases a claim — e-mail, name and wallet ask again
 * (docs/oidc.md, "Consent and scopes").
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('oauth_consents')
    .addColumn('scope', 'varchar(200)', (c) => c.notNull().defaultTo(''))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('oauth_consents').dropColumn('scope').execute();
}
