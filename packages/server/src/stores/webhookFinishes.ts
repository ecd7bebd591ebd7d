import type SQLite from 'better-sqlite3';
import { PostgresAdapter, sql } from 'kysely';
import { type Db, nativeSqlite } from '../db/database.js';
import { GroupCommit } from '../db/groupCommit.js';
import { affected } from './kyselyResults.js';
import type { DeliveryState, WebhookAttempt } from './webhookStore.js';

/** One finished attempt: the outcome to record and the delivery's next state, under `holder`'s lease. */
export interface FinishedAttempt {
  holder: string;
  endpointId: string;
  msgId: string;
  attempt: WebhookAttempt;
  next: { state: DeliveryState; nextAttemptAt: number };
}

/** The row values of one finish, in the form every path binds them. */
const valuesOf = ({ holder, endpointId, msgId, attempt, next }: FinishedAttempt) => ({
  holder,
  endpointId,
  msgId,
  state: next.state,
  attempt: attempt.attempt,
  nextAttemptAt: next.nextAttemptAt,
  status: attempt.status ?? null,
  error: attempt.error?.slice(0, 200) ?? null,
  deliveredAt: next.state === 'delivered' ? attempt.at : null,
  at: attempt.at,
  outcome: attempt.outcome,
  durationMs: Math.round(attempt.durationMs),
});

const NATIVE_FINISH_DELIVERY = `update webhook_deliveries
  set state = ?, attempts = ?, next_attempt_at = ?, lease_until = 0, leased_by = null,
    last_status = ?, last_error = ?, delivered_at = ?
  where endpoint_id = ? and msg_id = ? and leased_by = ?`;
const NATIVE_INSERT_ATTEMPT = `insert into webhook_attempts
  (endpoint_id, msg_id, attempt, at, outcome, status, duration_ms, error)
  values (?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing`;
const NATIVE_MARK_FAILING = `update webhook_endpoints set failing_since = ? where id = ? and failing_since is null`;
const NATIVE_CLEAR_FAILING = `update webhook_endpoints set failing_since = null where id = ? and failing_since is not null`;

/**
 * Records finished webhook attempts by group commit (`db/groupCommit.ts`): the attempts of one event-loop
 * turn in one transaction — SQLite: one native transaction running each finish's statements in turn;
 * PostgreSQL: one statement for the whole batch. A finish was one transaction of four or five statements,
 * five round trips on PostgreSQL, per delivery; from a burst, 16 attempts in flight end a few to a turn
 * (docs/webhooks.md, "Performance"). The worker awaits its finish before freeing the slot, so nothing is
 * claimed again before its outcome is committed, as before.
 *
 * Each finish applies only while its `holder` still holds the lease (a worker whose lease expired lets the
 * new holder's outcome stand): false then, and nothing of it is written.
 */
export class WebhookFinishes {
  readonly #native: SQLite.Database | undefined;
  readonly #finishes: GroupCommit<FinishedAttempt, boolean> | undefined;
  #statements:
    | {
        delivery: SQLite.Statement;
        attempt: SQLite.Statement;
        mark: SQLite.Statement;
        clear: SQLite.Statement;
      }
    | undefined;

  constructor(private readonly db: Db) {
    const native = nativeSqlite(db);
    this.#native = native;
    if (native) {
      const inOneTransaction = native.transaction((finishes: readonly FinishedAttempt[]) =>
        finishes.map((f) => this.#finishNow(f)),
      );
      this.#finishes = new GroupCommit<FinishedAttempt, boolean>({
        all: inOneTransaction,
        one: (finish) =>
          native.inTransaction ? this.#finishWithKysely(finish) : inOneTransaction([finish])[0]!,
        // A Kysely transaction holds SQLite's one connection across awaits: wait for it (`one`).
        ready: () => !native.inTransaction,
      });
    } else if (db.getExecutor().adapter instanceof PostgresAdapter) {
      this.#finishes = new GroupCommit<FinishedAttempt, boolean>({
        all: (finishes) => this.#finishAllOnPostgres(finishes),
        one: (finish) => this.#finishWithKysely(finish),
      });
    }
  }

  /** Resolves once the finish is committed: true, or false when `holder` no longer held the lease. */
  finish(finish: FinishedAttempt): Promise<boolean> {
    return this.#finishes ? this.#finishes.submit(finish) : this.#finishWithKysely(finish);
  }

  /** Finishes committed by the group commit, in how many batches (tests, benchmarks). */
  batches(): { batches: number; finishes: number } {
    return { batches: this.#finishes?.batches ?? 0, finishes: this.#finishes?.inputs ?? 0 };
  }

  /** On the native handle, inside the caller's transaction: the same statements as `#finishWithKysely`. */
  #finishNow(finish: FinishedAttempt): boolean {
    const native = this.#native!;
    const s = (this.#statements ??= {
      delivery: native.prepare(NATIVE_FINISH_DELIVERY),
      attempt: native.prepare(NATIVE_INSERT_ATTEMPT),
      mark: native.prepare(NATIVE_MARK_FAILING),
      clear: native.prepare(NATIVE_CLEAR_FAILING),
    });
    const v = valuesOf(finish);
    const held = s.delivery.run(
      v.state,
      v.attempt,
      v.nextAttemptAt,
      v.status,
      v.error,
      v.deliveredAt,
      v.endpointId,
      v.msgId,
      v.holder,
    );
    if (held.changes !== 1) return false;
    s.attempt.run(v.endpointId, v.msgId, v.attempt, v.at, v.outcome, v.status, v.durationMs, v.error);
    if (v.state === 'failed') s.mark.run(v.at, v.endpointId);
    else if (v.state === 'delivered') s.clear.run(v.endpointId);
    return true;
  }

  /**
   * A batch on PostgreSQL as one statement (one round trip, one commit): the finishes as arrays, `unnest`ed
   * into rows; the deliveries still leased by their holder are updated, and only theirs get an attempt row
   * and touch their endpoint. The endpoint ends as the finishes applied one by one in the batch's order
   * would leave it (as SQLite's batch does): cleared by a success, unless a delivery given up on follows it
   * in the batch; then failing since the first such one's attempt (or since earlier, when no success came
   * between).
   */
  async #finishAllOnPostgres(finishes: readonly FinishedAttempt[]): Promise<boolean[]> {
    const rows = finishes.map(valuesOf);
    const column = <T>(pick: (row: ReturnType<typeof valuesOf>) => T): T[] => rows.map(pick);
    const { rows: finished } = await sql<{ endpoint_id: string; msg_id: string }>`
      with input as (
        select * from unnest(${column((r) => r.holder)}::text[], ${column((r) => r.endpointId)}::text[],
          ${column((r) => r.msgId)}::text[], ${column((r) => r.state)}::text[], ${column((r) => r.attempt)}::int[],
          ${column((r) => r.nextAttemptAt)}::bigint[], ${column((r) => r.status)}::int[],
          ${column((r) => r.error)}::text[], ${column((r) => r.deliveredAt)}::bigint[], ${column((r) => r.at)}::bigint[],
          ${column((r) => r.outcome)}::text[], ${column((r) => r.durationMs)}::int[])
          with ordinality as i(holder, endpoint_id, msg_id, state, attempt, next_attempt_at, status, error,
            delivered_at, at, outcome, duration_ms, ord)
      ),
      finished as (
        update webhook_deliveries d
        set state = i.state, attempts = i.attempt, next_attempt_at = i.next_attempt_at, lease_until = 0,
          leased_by = null, last_status = i.status, last_error = i.error, delivered_at = i.delivered_at
        from input i
        where d.endpoint_id = i.endpoint_id and d.msg_id = i.msg_id and d.leased_by = i.holder
        returning d.endpoint_id, d.msg_id
      ),
      attempts as (
        insert into webhook_attempts (endpoint_id, msg_id, attempt, at, outcome, status, duration_ms, error)
        select i.endpoint_id, i.msg_id, i.attempt, i.at, i.outcome, i.status, i.duration_ms, i.error
        from input i join finished f on f.endpoint_id = i.endpoint_id and f.msg_id = i.msg_id
        on conflict do nothing
      ),
      outcomes as (
        select i.endpoint_id, i.state, i.at, i.ord,
          max(i.ord) filter (where i.state = 'delivered') over (partition by i.endpoint_id) as last_delivered
        from input i join finished f on f.endpoint_id = i.endpoint_id and f.msg_id = i.msg_id
        where i.state in ('delivered', 'failed')
      ),
      endpoint_outcomes as (
        select endpoint_id, bool_or(state = 'delivered') as delivered,
          (array_agg(at order by ord) filter (where state = 'failed' and ord > coalesce(last_delivered, 0)))[1]
            as failed_at
        from outcomes group by endpoint_id
      ),
      endpoints as (
        update webhook_endpoints e
        set failing_since = case when o.failed_at is null then null
          when o.delivered then o.failed_at else coalesce(e.failing_since, o.failed_at) end
        from endpoint_outcomes o
        where e.id = o.endpoint_id and e.failing_since is distinct from (case when o.failed_at is null then null
          when o.delivered then o.failed_at else coalesce(e.failing_since, o.failed_at) end)
      )
      select endpoint_id, msg_id from finished`.execute(this.db);
    const done = new Set(finished.map((row) => `${row.endpoint_id}\u0000${row.msg_id}`));
    return rows.map((r) => done.has(`${r.endpointId}\u0000${r.msgId}`));
  }

  /** One finish in a Kysely transaction (PostgreSQL's retry of a failed batch; SQLite inside a transaction). */
  async #finishWithKysely(finish: FinishedAttempt): Promise<boolean> {
    const v = valuesOf(finish);
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('webhook_deliveries')
        .set({
          state: v.state,
          attempts: v.attempt,
          next_attempt_at: v.nextAttemptAt,
          lease_until: 0,
          leased_by: null,
          last_status: v.status,
          last_error: v.error,
          delivered_at: v.deliveredAt,
        })
        .where('endpoint_id', '=', v.endpointId)
        .where('msg_id', '=', v.msgId)
        .where('leased_by', '=', v.holder)
        .executeTakeFirst();
      if (affected(result) !== 1) return false;
      await trx
        .insertInto('webhook_attempts')
        .values({
          endpoint_id: v.endpointId,
          msg_id: v.msgId,
          attempt: v.attempt,
          at: v.at,
          outcome: v.outcome,
          status: v.status,
          duration_ms: v.durationMs,
          error: v.error,
        })
        .onConflict((oc) => oc.doNothing())
        .execute();
      if (v.state === 'failed') {
        await trx
          .updateTable('webhook_endpoints')
          .set({ failing_since: v.at })
          .where('id', '=', v.endpointId)
          .where('failing_since', 'is', null)
          .execute();
      } else if (v.state === 'delivered') {
        await trx
          .updateTable('webhook_endpoints')
          .set({ failing_since: null })
          .where('id', '=', v.endpointId)
          .where('failing_since', 'is not', null)
          .execute();
      }
      return true;
    });
  }
}
