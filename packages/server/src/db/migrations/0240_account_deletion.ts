import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * Account deletion (decisions §9, docs/account.md).
 *
 * `users.deleted_at`: the users row stays as a tombstone so the uuid in the audit log, slots and wallets
 * still names one account, its e-mail, nickname and password hash erased (null for a live account).
 *
 * The audit log stays append-only with one exception: an erasure may rewrite an entry's `details` and
 * nothing else, and only into a text that carries the erasure mark `"[erased]"` (the e-mail of a sign-in
 * attempt, the nickname). Every other column, and every delete, is still refused by the triggers.
 */
const SAME_ROW_BUT_DETAILS = (same: string) =>
  ['id', 'at', 'seq', 'action', 'outcome', 'status', 'error_code', 'actor_kind', 'actor_user', 'client_id']
    .concat(['address', 'request_id'])
    .map((c) => `new.${c} ${same} old.${c}`)
    .join(' and ');

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('deleted_at', 'bigint').execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql
      .raw(
        `create or replace function audit_log_append_only() returns trigger language plpgsql as $$
        begin
          if tg_op = 'UPDATE' and ${SAME_ROW_BUT_DETAILS('is not distinct from')}
            and new.details like '%"[erased]"%' then
            return new;
          end if;
          raise exception 'audit_log is append-only';
        end $$`,
      )
      .execute(db);
  } else {
    await sql`drop trigger audit_log_no_update`.execute(db);
    await sql
      .raw(
        `create trigger audit_log_no_update before update on audit_log
        when not (${SAME_ROW_BUT_DETAILS('is')} and new.details like '%"[erased]"%')
        begin select raise(abort, 'audit_log is append-only'); end`,
      )
      .execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`
      create or replace function audit_log_append_only() returns trigger language plpgsql as $$
      begin raise exception 'audit_log is append-only'; end $$`.execute(db);
  } else {
    await sql`drop trigger audit_log_no_update`.execute(db);
    await sql`
      create trigger audit_log_no_update before update on audit_log
      begin select raise(abort, 'audit_log is append-only'); end`.execute(db);
  }
  await db.schema.alterTable('users').dropColumn('deleted_at').execute();
}
