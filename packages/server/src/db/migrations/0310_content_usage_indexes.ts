import { type Kysely, sql } from 'kysely';

/**
 * Fewer index entries to write per consumption record (docs/performance-content.md, round 3): every record
 * is inserted queued, sent in a batch, then included, and each index over a changing column moves its
 * entry at every step.
 *
 * - `content_usage_state` (state, accepted_at) held every record ever made, moved at each state change,
 *   for one question: the oldest queued records (`listQueued`, and the `queued` count). A partial index
 *   of the queued records alone answers it; a record leaves it when its batch opens and never returns
 *   unless the batch is dropped.
 * - `content_usage_request` (client_id, request_key) held an entry for every record, keyed or not; only
 *   keyed records can repeat (NULLs never collide). Partial on `request_key is not null`: the same
 *   uniqueness, and the lookups (`request_key = ?`, `in (…)`) imply the condition, so they still use it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('content_usage_state').execute();
  await db.schema
    .createIndex('content_usage_queued')
    .on('content_usage')
    .columns(['accepted_at', 'id'])
    .where(sql.ref('state'), '=', 'queued')
    .execute();
  await db.schema.dropIndex('content_usage_request').execute();
  await db.schema
    .createIndex('content_usage_request')
    .on('content_usage')
    .columns(['client_id', 'request_key'])
    .unique()
    .where(sql.ref('request_key'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('content_usage_request').execute();
  await db.schema
    .createIndex('content_usage_request')
    .on('content_usage')
    .columns(['client_id', 'request_key'])
    .unique()
    .execute();
  await db.schema.dropIndex('content_usage_queued').execute();
  await db.schema
    .createIndex('content_usage_state')
    .on('content_usage')
    .columns(['state', 'accepted_at'])
    .execute();
}
