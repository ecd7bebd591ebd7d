import { createHash, randomBytes } from 'node:crypto';
import type SQLite from 'better-sqlite3';
import { PostgresAdapter, sql } from 'kysely';
import type { Db } from '../db/database.js';
import { currentLink, type SpanContext } from '../observability/spans.js';
import { affected } from './kyselyResults.js';
import { type FinishedAttempt, WebhookFinishes } from './webhookFinishes.js';

export interface WebhookEndpointsTable {
  id: string;
  client_id: string;
  url: string;
  events: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: number | null;
  failing_since: number | null;
  created_at: number;
  deleted_at: number | null;
}

export interface WebhookDeliveriesTable {
  endpoint_id: string;
  msg_id: string;
  client_id: string;
  type: string;
  payload: string;
  order_key: string | null;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: number;
  lease_until: number;
  leased_by: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
}

export interface WebhookAttemptsTable {
  endpoint_id: string;
  msg_id: string;
  attempt: number;
  at: number;
  outcome: AttemptOutcome;
  status: number | null;
  duration_ms: number;
  error: string | null;
}

declare module '../db/database.js' {
  interface Database {
    webhook_endpoints: WebhookEndpointsTable;
    webhook_deliveries: WebhookDeliveriesTable;
    webhook_attempts: WebhookAttemptsTable;
    webhook_intents: WebhookIntentsTable;
  }
}

export interface WebhookIntentsTable {
  msg_id: string;
  client_id: string;
  type: string;
  facts: string;
  from_block: number;
  holder: string;
  created_at: number;
  change_key: string | null;
  completed_at: number | null;
}

/**
 * The event of a change made on chain only, before the chain write (docs/webhooks.md): its id, the app,
 * and `facts` (JSON the writer chose: the data known beforehand and what finds the change on chain).
 */
export interface WebhookIntent {
  msgId: string;
  clientId: string;
  type: string;
  facts: string;
  fromBlock: bigint;
  holder: string;
  createdAt: number;
}

export type DeliveryState = 'pending' | 'delivered' | 'failed';
export type AttemptOutcome = 'delivered' | 'refused' | 'timeout' | 'unreachable' | 'blocked';

export interface WebhookEndpoint {
  id: string;
  clientId: string;
  url: string;
  events: string[];
  secretSealed: string;
  previousSecretSealed: string | undefined;
  previousSecretExpiresAt: number | undefined;
  failingSince: number | undefined;
  createdAt: number;
}

export interface WebhookDelivery {
  endpointId: string;
  msgId: string;
  clientId: string;
  type: string;
  payload: string;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: number;
  lastStatus: number | undefined;
  lastError: string | undefined;
  createdAt: number;
  deliveredAt: number | undefined;
}

export interface WebhookAttempt {
  attempt: number;
  at: number;
  outcome: AttemptOutcome;
  status: number | undefined;
  durationMs: number;
  error: string | undefined;
}

/** A leased delivery with what sending it needs: its endpoint's URL and secrets. */
export interface LeasedDelivery extends WebhookDelivery {
  url: string;
  secretSealed: string;
  previousSecretSealed: string | undefined;
  previousSecretExpiresAt: number | undefined;
}

/** One event a change reports, written by the store that makes the change, in its transaction. */
export interface OutboxEvent {
  type: string;
  clientId: string;
  /** `data` of the delivered body; `client_id` is added. */
  data: Record<string, unknown>;
  /** Events of one key (e.g. `slot:<id>`) reach each endpoint in the order they were written. */
  orderKey?: string;
  at?: number;
  /**
   * The event's own `webhook-id`, when the change it reports can be written more than once (a consumption
   * record included again after a chain rewind; a chain-only change completed by its intent): a second
   * write of the same id adds no delivery (see `WebhookOutbox.statement`). Otherwise a new one is drawn.
   */
  msgId?: string;
}

/** The events' body as delivered (Standard Webhooks): `{type, timestamp, data}`. */
export const eventBody = (event: OutboxEvent, at: number) =>
  JSON.stringify({
    type: event.type,
    timestamp: new Date(at).toISOString(),
    data: { client_id: event.clientId, ...event.data },
  });

let lastMs = 0;
let counter = 0;
/**
 * A time-ordered message id (`msg_` + ms + a per-process counter + random): deliveries of one order
 * key are sent in this order, and it is the `webhook-id` every attempt of one event repeats.
 */
export function newMessageId(now = Date.now()): string {
  if (now === lastMs) {
    counter++;
  } else {
    lastMs = now;
    counter = 0;
  }
  return `msg_${now.toString(36).padStart(9, '0')}${counter.toString(36).padStart(4, '0')}${randomHex6()}`;
}

/** Random bytes drawn 256 ids at a time (one `randomBytes` call per event was 0.7 % of a backend round trip); each byte is used once. */
let randomPool = Buffer.alloc(0);
let randomOffset = 0;
function randomHex6(): string {
  if (randomOffset + 6 > randomPool.length) {
    randomPool = randomBytes(6 * 256);
    randomOffset = 0;
  }
  const hex = randomPool.toString('hex', randomOffset, randomOffset + 6);
  randomOffset += 6;
  return hex;
}

/**
 * A `webhook-id` derived from what the event is about (`key`, e.g. `content.consumed:<record id>`) rather
 * than drawn: the same thing reported twice gets the same id, so the outbox keeps one delivery per
 * endpoint and a receiver's dedup holds even across processes. The same shape as `newMessageId`, ordered
 * by `at` (when the thing came to be).
 */
export function derivedMessageId(at: number, key: string): string {
  return `msg_${at.toString(36).padStart(9, '0')}${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}

/** An event type that can be written into SQL as a literal: the catalogue's are all of this form. */
const LITERAL_EVENT_TYPE = /^[a-z][a-z0-9._]{0,63}$/;

/**
 * `events LIKE '%,<type>,%'` (an endpoint's subscribed types are stored as `,a,b,`), with the pattern as
 * a literal in the SQL text. Bound as a parameter, SQLite marks the statement to be prepared again each
 * time that parameter is bound (its LIKE optimisation depends on the pattern), so the cached statement of
 * the outbox write was compiled anew on every event: 40 µs of wall time against 6 µs with a literal
 * (docs/performance-backend.md, round 4). The types are the catalogue's fixed names; anything else
 * (never expected) stays a bound parameter, correct but slower.
 */
export function subscribedTo(column: ReturnType<typeof sql.ref>, type: string) {
  const pattern = `%,${type},%`;
  return LITERAL_EVENT_TYPE.test(type)
    ? sql<boolean>`${column} like ${sql.lit(pattern)}`
    : sql<boolean>`${column} like ${pattern}`;
}

/** The values an outbox write binds (`WebhookOutbox.nativeWriter` binds them by these names). */
interface OutboxValues {
  msgId: string;
  clientId: string;
  type: string;
  body: string;
  orderKey: string | null;
  at: number;
}

const OUTBOX_VALUE_NAMES = [
  'msgId',
  'clientId',
  'type',
  'body',
  'orderKey',
  'at',
] as const satisfies readonly (keyof OutboxValues)[];

/**
 * One event's delivery rows: an INSERT … SELECT over the app's live endpoints subscribed to `type`.
 * `withId`: the caller gave the message id, which may have been written before; that delivery stays the
 * one delivery of the event, its body brought up to date only while no attempt has been made (a receiver
 * dedups by id, so a changed body sent under an id it has seen would be dropped anyway). The SELECT's
 * WHERE is what SQLite needs to tell this ON CONFLICT from a join's ON.
 */
function outboxInsert(v: OutboxValues, type: string, withId: boolean) {
  const onConflict = withId
    ? sql` on conflict (endpoint_id, msg_id) do update set payload = excluded.payload
            where webhook_deliveries.attempts = 0 and webhook_deliveries.state = 'pending'
              and webhook_deliveries.lease_until < ${v.at}`
    : sql``;
  return sql`insert into webhook_deliveries (endpoint_id, msg_id, client_id, type, payload, order_key,
        state, attempts, next_attempt_at, lease_until, created_at)
      select id, ${v.msgId}, ${v.clientId}, ${v.type}, ${v.body}, ${v.orderKey},
        'pending', 0, ${v.at}, 0, ${v.at}
      from webhook_endpoints
      where client_id = ${v.clientId} and deleted_at is null and ${subscribedTo(sql.ref('events'), type)}${onConflict}`;
}

/**
 * The outbox write a store adds to its own transaction: one delivery row per live endpoint of the app
 * subscribed to the type, in one INSERT … SELECT (none when the app has no such endpoint, so a change
 * of an app without webhooks costs one indexed read). `statement` is the same write for PostgreSQL's
 * single-statement paths (a data-modifying CTE).
 */
export class WebhookOutbox {
  /**
   * Told after a write that queued at least one delivery (the local delivery worker looks at once instead
   * of at its next poll). An event of an app without a subscribed endpoint queues nothing and tells nobody:
   * before, every event woke the worker for a claim query of its own, about one per 5 ms under a backend
   * round-trip load with no webhook configured (docs/performance-backend.md, round 4).
   */
  onWrite: (() => void) | undefined;

  /** For a caller that ran `statement` inside a statement of its own and knows it queued deliveries. */
  queued(): void {
    this.onWrite?.();
  }

  /**
   * The span that wrote each recent event (by message id), kept in this process only: the delivery of an
   * event continues its request's trace (docs/operations.md, "Traces"). Bounded; a delivery made by another
   * replica, or after a restart, starts a trace of its own.
   */
  readonly #origins = new Map<string, SpanContext>();

  /** The span context of the request that wrote `msgId`'s event, if this process saw it recently. */
  originOf(msgId: string): SpanContext | undefined {
    return this.#origins.get(msgId);
  }

  /** The write of `event`'s deliveries; the caller that runs it tells `queued()` when it inserted rows. */
  statement(event: OutboxEvent) {
    return outboxInsert(this.#valuesOf(event), event.type, event.msgId !== undefined);
  }

  /**
   * The same write on SQLite's native handle, for a caller inside a native transaction (the backend
   * exchange's commit, once per round trip): one prepared statement per event type and id kind, its text
   * compiled by Kysely once, so an event costs its values and one `run` — not a compilation, nor the hashing
   * of a new 500-character text to find the cached statement (docs/performance-backend.md, round 9).
   * Answers whether a delivery row was written or brought up to date.
   */
  nativeWriter(native: SQLite.Database, db: Db): (event: OutboxEvent) => boolean {
    const prepared = new Map<
      string,
      { run: SQLite.Statement; order: (keyof OutboxValues | { constant: unknown })[] }
    >();
    return (event) => {
      const values = this.#valuesOf(event);
      const withId = event.msgId !== undefined;
      const key = withId ? `${event.type}\n` : event.type;
      let statement = prepared.get(key);
      if (!statement) {
        // Compiled with each value replaced by a marker of its name: the markers' places among the
        // compiled parameters are the order in which this statement takes the values.
        const markers = new Map(OUTBOX_VALUE_NAMES.map((name) => [{ name }, name] as const));
        const byName = Object.fromEntries([...markers].map(([marker, name]) => [name, marker]));
        const compiled = outboxInsert(byName as unknown as OutboxValues, event.type, withId).compile(db);
        const order = compiled.parameters.map(
          (p) => markers.get(p as { name: keyof OutboxValues }) ?? { constant: p },
        );
        statement = { run: native.prepare(compiled.sql), order };
        prepared.set(key, statement);
      }
      const parameters = statement.order.map((o) => (typeof o === 'string' ? values[o] : o.constant));
      return statement.run.run(...parameters).changes > 0;
    };
  }

  /** The values of `event`'s write; its message id (new unless given) remembers the span that wrote it. */
  #valuesOf(event: OutboxEvent): OutboxValues {
    const at = event.at ?? Date.now();
    const msgId = event.msgId ?? newMessageId(at);
    const origin = currentLink();
    if (origin) {
      if (this.#origins.size >= 10_000) this.#origins.delete(this.#origins.keys().next().value!);
      this.#origins.set(msgId, origin.context);
    }
    return {
      msgId,
      clientId: event.clientId,
      type: event.type,
      body: eventBody(event, at),
      orderKey: event.orderKey ?? null,
      at,
    };
  }

  /** Of `clientIds`, the apps with a live endpoint subscribed to `type` (to skip building bodies nobody gets). */
  async subscribers(db: Db, type: string, clientIds: string[]): Promise<Set<string>> {
    if (clientIds.length === 0) return new Set();
    const rows = await db
      .selectFrom('webhook_endpoints')
      .select('client_id')
      .distinct()
      .where('client_id', 'in', clientIds)
      .where('deleted_at', 'is', null)
      .where(subscribedTo(sql.ref('events'), type))
      .execute();
    return new Set(rows.map((r) => r.client_id));
  }

  /** Writes the events' deliveries with `trx` (the caller's transaction). */
  async record(trx: Db, ...events: OutboxEvent[]): Promise<void> {
    let queued = false;
    for (const event of events) {
      const result = await this.statement(event).execute(trx);
      if ((result.numAffectedRows ?? 0n) > 0n) queued = true;
    }
    if (queued) this.queued();
  }
}

const toEndpoint = (row: WebhookEndpointsTable): WebhookEndpoint => ({
  id: row.id,
  clientId: row.client_id,
  url: row.url,
  events: row.events.split(',').filter(Boolean),
  secretSealed: row.secret_sealed,
  previousSecretSealed: row.previous_secret_sealed ?? undefined,
  previousSecretExpiresAt:
    row.previous_secret_expires_at == null ? undefined : Number(row.previous_secret_expires_at),
  failingSince: row.failing_since == null ? undefined : Number(row.failing_since),
  createdAt: Number(row.created_at),
});

const toDelivery = (row: WebhookDeliveriesTable): WebhookDelivery => ({
  endpointId: row.endpoint_id,
  msgId: row.msg_id,
  clientId: row.client_id,
  type: row.type,
  payload: row.payload,
  state: row.state,
  attempts: Number(row.attempts),
  nextAttemptAt: Number(row.next_attempt_at),
  lastStatus: row.last_status ?? undefined,
  lastError: row.last_error ?? undefined,
  createdAt: Number(row.created_at),
  deliveredAt: row.delivered_at == null ? undefined : Number(row.delivered_at),
});

export const eventList = (events: readonly string[]) => `,${[...new Set(events)].join(',')},`;

/** Endpoints, the delivery queue and its attempts. */
export class WebhookStore {
  readonly #postgres: boolean;
  readonly #finishes: WebhookFinishes;

  constructor(private readonly db: Db) {
    this.#postgres = db.getExecutor().adapter instanceof PostgresAdapter;
    this.#finishes = new WebhookFinishes(db);
  }

  async insertEndpoint(endpoint: WebhookEndpoint): Promise<void> {
    await this.db
      .insertInto('webhook_endpoints')
      .values({
        id: endpoint.id,
        client_id: endpoint.clientId,
        url: endpoint.url,
        events: eventList(endpoint.events),
        secret_sealed: endpoint.secretSealed,
        previous_secret_sealed: null,
        previous_secret_expires_at: null,
        failing_since: null,
        created_at: endpoint.createdAt,
        deleted_at: null,
      })
      .execute();
  }

  async countEndpoints(clientId: string): Promise<number> {
    const row = await this.db
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('client_id', '=', clientId)
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async listEndpoints(clientId: string): Promise<WebhookEndpoint[]> {
    const rows = await this.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('client_id', '=', clientId)
      .where('deleted_at', 'is', null)
      .orderBy('created_at')
      .execute();
    return rows.map(toEndpoint);
  }

  async findEndpoint(clientId: string, id: string): Promise<WebhookEndpoint | undefined> {
    const row = await this.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', id)
      .where('client_id', '=', clientId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return row ? toEndpoint(row) : undefined;
  }

  async updateEndpoint(
    clientId: string,
    id: string,
    changes: { url?: string | undefined; events?: string[] | undefined },
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('webhook_endpoints')
      .set({
        ...(changes.url !== undefined ? { url: changes.url } : {}),
        ...(changes.events !== undefined ? { events: eventList(changes.events) } : {}),
      })
      .where('id', '=', id)
      .where('client_id', '=', clientId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** Deletes an endpoint; its pending deliveries are dropped with it (failed, never sent). */
  async deleteEndpoint(clientId: string, id: string, now: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('webhook_endpoints')
        .set({ deleted_at: now })
        .where('id', '=', id)
        .where('client_id', '=', clientId)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      if (affected(result) !== 1) return false;
      await trx
        .updateTable('webhook_deliveries')
        .set({ state: 'failed', last_error: 'endpoint deleted', lease_until: 0 })
        .where('endpoint_id', '=', id)
        .where('state', '=', 'pending')
        .execute();
      return true;
    });
  }

  /** Every endpoint of a deleted app stops at once. */
  async deleteEndpointsOfClient(clientId: string, now: number): Promise<void> {
    await this.db
      .updateTable('webhook_endpoints')
      .set({ deleted_at: now })
      .where('client_id', '=', clientId)
      .where('deleted_at', 'is', null)
      .execute();
  }

  async rotateSecret(
    clientId: string,
    id: string,
    secretSealed: string,
    previousSealed: string,
    previousExpiresAt: number,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('webhook_endpoints')
      .set({
        secret_sealed: secretSealed,
        previous_secret_sealed: previousSealed,
        previous_secret_expires_at: previousExpiresAt,
      })
      .where('id', '=', id)
      .where('client_id', '=', clientId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  async listDeliveries(endpointId: string, limit: number, state?: DeliveryState): Promise<WebhookDelivery[]> {
    let query = this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', endpointId)
      .orderBy('msg_id', 'desc')
      .limit(limit);
    if (state) query = query.where('state', '=', state);
    return (await query.execute()).map(toDelivery);
  }

  async findDelivery(endpointId: string, msgId: string): Promise<WebhookDelivery | undefined> {
    const row = await this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', endpointId)
      .where('msg_id', '=', msgId)
      .executeTakeFirst();
    return row ? toDelivery(row) : undefined;
  }

  async listAttempts(endpointId: string, msgIds: string[]): Promise<Map<string, WebhookAttempt[]>> {
    const out = new Map<string, WebhookAttempt[]>();
    if (msgIds.length === 0) return out;
    const rows = await this.db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('endpoint_id', '=', endpointId)
      .where('msg_id', 'in', msgIds)
      .orderBy('attempt')
      .execute();
    for (const row of rows) {
      const list = out.get(row.msg_id) ?? [];
      list.push({
        attempt: Number(row.attempt),
        at: Number(row.at),
        outcome: row.outcome,
        status: row.status ?? undefined,
        durationMs: Number(row.duration_ms),
        error: row.error ?? undefined,
      });
      out.set(row.msg_id, list);
    }
    return out;
  }

  /**
   * Queues a delivery again now, whatever its state (a manual retry); the same `webhook-id` is sent.
   * False when there is no such delivery or it is being attempted right now.
   */
  async retryNow(endpointId: string, msgId: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('webhook_deliveries')
      .set({ state: 'pending', next_attempt_at: now, delivered_at: null })
      .where('endpoint_id', '=', endpointId)
      .where('msg_id', '=', msgId)
      .where('lease_until', '<', now)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /**
   * Leases up to `limit` due deliveries for `holder` until `now + leaseMs`, none of which waits behind
   * an earlier pending delivery of its order key to the same endpoint. PostgreSQL: `FOR UPDATE SKIP
   * LOCKED`, so replicas claiming at once take disjoint rows without waiting; the outer condition is
   * checked again on the locked row. SQLite has one writer, so the UPDATE alone is atomic.
   */
  async claim(holder: string, now: number, limit: number, leaseMs: number): Promise<LeasedDelivery[]> {
    const due = sql`select c.endpoint_id, c.msg_id from webhook_deliveries c
      where c.state = 'pending' and c.next_attempt_at <= ${now} and c.lease_until < ${now}
        and (c.order_key is null or not exists (select 1 from webhook_deliveries p
          where p.endpoint_id = c.endpoint_id and p.order_key = c.order_key and p.state = 'pending'
            and p.msg_id < c.msg_id))
      order by c.next_attempt_at, c.msg_id
      limit ${limit}`;
    const claimed = this.#postgres
      ? await sql<WebhookDeliveriesTable>`update webhook_deliveries d
          set lease_until = ${now + leaseMs}, leased_by = ${holder}
          where (d.endpoint_id, d.msg_id) in (${due} for update skip locked)
            and d.state = 'pending' and d.lease_until < ${now}
          returning d.*`.execute(this.db)
      : await sql<WebhookDeliveriesTable>`update webhook_deliveries
          set lease_until = ${now + leaseMs}, leased_by = ${holder}
          where (endpoint_id, msg_id) in (${due})
          returning *`.execute(this.db);
    if (claimed.rows.length === 0) return [];
    const endpoints = await this.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', 'in', [...new Set(claimed.rows.map((r) => r.endpoint_id))])
      .execute();
    const byId = new Map(endpoints.map((e) => [e.id, toEndpoint(e)]));
    const leased: LeasedDelivery[] = [];
    for (const row of claimed.rows) {
      const endpoint = byId.get(row.endpoint_id);
      if (!endpoint) continue;
      leased.push({
        ...toDelivery(row),
        url: endpoint.url,
        secretSealed: endpoint.secretSealed,
        previousSecretSealed: endpoint.previousSecretSealed,
        previousSecretExpiresAt: endpoint.previousSecretExpiresAt,
      });
    }
    return leased;
  }

  /**
   * Records one attempt and the delivery's next state, only while `holder` still holds the lease (a
   * worker whose lease expired lets the new holder's outcome stand). `failing`: the endpoint is marked
   * failing (retries spent) or cleared (a delivery succeeded). The finishes of one event-loop turn share
   * one commit (`WebhookFinishes`).
   */
  finishAttempt(input: FinishedAttempt): Promise<boolean> {
    return this.#finishes.finish(input);
  }

  /** Finishes committed together, in how many batches (tests, benchmarks). */
  finishBatches(): { batches: number; finishes: number } {
    return this.#finishes.batches();
  }

  /** Pending deliveries and the creation time of the oldest (metrics). */
  async backlog(): Promise<{ depth: number; oldestCreatedAt: number | undefined }> {
    const row = await this.db
      .selectFrom('webhook_deliveries')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('created_at').as('oldest')])
      .where('state', '=', 'pending')
      .executeTakeFirstOrThrow();
    return {
      depth: Number(row.n),
      oldestCreatedAt: row.oldest == null ? undefined : Number(row.oldest),
    };
  }
}

/**
 * Intents of events of changes made on chain only (migration 0195): written before the chain write,
 * turned into the event exactly once — by whichever of the answer's path and the recovery sweep gets
 * there first, in one transaction that marks the intent completed (with the change it reports) and
 * writes the deliveries.
 */
export class WebhookIntentStore {
  constructor(
    private readonly db: Db,
    private readonly outbox: WebhookOutbox,
  ) {}

  /** Whether `clientId` has a live endpoint subscribed to `type` (no intent is needed otherwise). */
  async subscribed(clientId: string, type: string): Promise<boolean> {
    return (await this.outbox.subscribers(this.db, type, [clientId])).has(clientId);
  }

  /** Writes the intent under a new `webhook-id`, which it returns. */
  async open(intent: Omit<WebhookIntent, 'msgId'>): Promise<string> {
    const msgId = newMessageId(intent.createdAt);
    await this.db
      .insertInto('webhook_intents')
      .values({
        msg_id: msgId,
        client_id: intent.clientId,
        type: intent.type,
        facts: intent.facts,
        from_block: Number(intent.fromBlock),
        holder: intent.holder,
        created_at: intent.createdAt,
      })
      .execute();
    return msgId;
  }

  /** The event of a change that needed no intent (none was wanted when it began), on its own. */
  async record(event: Omit<OutboxEvent, 'msgId'>): Promise<void> {
    await this.outbox.record(this.db, event);
  }

  /**
   * Turns the intent into its event (`event.msgId` is the intent's) and records `changeKey` (the change
   * on chain it reports, `<tx hash>:<log index>`). False, writing nothing, when the intent is completed
   * or gone already (the other path was first), or when that change was reported by another intent.
   */
  async complete(
    msgId: string,
    event: Omit<OutboxEvent, 'msgId'>,
    changeKey: string,
    now = Date.now(),
  ): Promise<boolean> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        const done = await trx
          .updateTable('webhook_intents')
          .set({ completed_at: now, change_key: changeKey })
          .where('msg_id', '=', msgId)
          .where('completed_at', 'is', null)
          .executeTakeFirst();
        if (affected(done) !== 1) return false;
        await this.outbox.record(trx, { ...event, msgId });
        return true;
      });
    } catch (err) {
      // The unique change key: another intent reported this change (its transaction rolled back whole).
      if (await this.#claimed(changeKey)) return false;
      throw err;
    }
  }

  /** Of `changeKeys`, those an intent has reported already. */
  async claimed(changeKeys: string[]): Promise<Set<string>> {
    if (changeKeys.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('webhook_intents')
      .select('change_key')
      .where('change_key', 'in', changeKeys)
      .execute();
    return new Set(rows.map((r) => r.change_key!));
  }

  async #claimed(changeKey: string): Promise<boolean> {
    return (await this.claimed([changeKey])).has(changeKey);
  }

  /** Forgets an open intent whose change did not happen (the write was refused, or never landed). */
  async drop(msgId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('webhook_intents')
      .where('msg_id', '=', msgId)
      .where('completed_at', 'is', null)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** Deletes completed intents older than `before` (their change can no longer be found again). */
  async prune(before: number): Promise<number> {
    const result = await this.db
      .deleteFrom('webhook_intents')
      .where('completed_at', '<', before)
      .executeTakeFirst();
    return affected(result);
  }

  /** Open intents, oldest first. */
  async list(limit: number): Promise<WebhookIntent[]> {
    const rows = await this.db
      .selectFrom('webhook_intents')
      .selectAll()
      .where('completed_at', 'is', null)
      .orderBy('created_at')
      .orderBy('msg_id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      msgId: r.msg_id,
      clientId: r.client_id,
      type: r.type,
      facts: r.facts,
      fromBlock: BigInt(r.from_block),
      holder: r.holder,
      createdAt: Number(r.created_at),
    }));
  }
}
