import type { Kysely } from 'kysely';

/**
 * Indexes for the console's per-app activity report (AppActivityStore, `GET /v1/dev-user/clients/{id}/activity`):
 * every query there is "this app, since that time", which without these scanned each table whole.
 */
const indexes = [
  { name: 'oauth_grants_client_created', table: 'oauth_grants', columns: ['client_id', 'created_at'] },
  {
    name: 'oauth_refresh_tokens_client_created',
    table: 'oauth_refresh_tokens',
    columns: ['client_id', 'created_at'],
  },
  { name: 'content_usage_client_accepted', table: 'content_usage', columns: ['client_id', 'accepted_at'] },
  { name: 'market_listings_client_updated', table: 'market_listings', columns: ['client_id', 'updated_at'] },
  // The primary key leads with the day; the report asks for one app's days.
  { name: 'sponsorship_spend_subject_day', table: 'sponsorship_spend', columns: ['scope', 'subject', 'day'] },
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const index of indexes) {
    await db.schema
      .createIndex(index.name)
      .on(index.table)
      .columns([...index.columns])
      .execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of indexes) await db.schema.dropIndex(index.name).execute();
}
