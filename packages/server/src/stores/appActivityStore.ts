import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { type ContentPurchase, contentPurchasesOf, exactAmountSum } from './contentPurchases.js';

/** Milliseconds in a UTC day: `at / DAY_MS` (integer division on both databases) is the day's number. */
export const DAY_MS = 86_400_000;
/** Written into the SQL as a literal, so `GROUP BY` names the very expression the select list has. */
const DAY = sql.lit(DAY_MS);

/** A count for one UTC day; `day` is the number of days since 1970-01-01. */
export interface DayCount {
  day: number;
  count: number;
}

/** One purchase of content tokens, as the audit trail recorded it. */
export type PurchaseRecord = ContentPurchase;

/** The consumptions of one cuid on one day. */
export interface ConsumptionDay {
  day: number;
  cuid: string;
  records: number;
  /** Content-token units, a decimal string. */
  amount: string;
}

/** One marketplace sale. */
export interface SaleRecord {
  at: number;
  /** Wei, a decimal string. */
  price: string;
}

/**
 * The app owner's activity report (`GET /v1/dev-user/clients/{id}/activity`, docs/console.md): a read-only
 * view over what other domains already record, so nothing on a hot path writes anything more for it.
 * It owns no table; it reads `oauth_grants` and `oauth_refresh_tokens` (sign-ins and token refreshes),
 * `audit_log` (content purchases), `content_usage` with `slots` (consumptions and who made them),
 * `sponsorship_spend` (the app's sponsored gas), `market_listings` (sales) and `content_providers`.
 * Every query is bounded by the app and a start time; the grants of a sign-in stay on record while its
 * refresh token lives (30 days), which is why the report covers 30 days at most.
 */
export class AppActivityStore {
  constructor(private readonly db: Db) {}

  /** New grants (one per sign-in: code, backend, device or direct grant) per day since `since` (ms). */
  async signInsByDay(clientId: string, since: number): Promise<DayCount[]> {
    const { rows } = await sql<{ day: number | string; n: number | string }>`
      select created_at / ${DAY} as day, count(*) as n
      from oauth_grants
      where client_id = ${clientId} and created_at >= ${since}
      group by created_at / ${DAY}`.execute(this.db);
    return rows.map((r) => ({ day: Number(r.day), count: Number(r.n) }));
  }

  /**
   * Distinct players per day: those who signed in, refreshed a token, bought or consumed content of the app
   * that day.
   */
  async activePlayersByDay(clientId: string, since: number): Promise<DayCount[]> {
    const { rows } = await sql<{ day: number | string; n: number | string }>`
      select day, count(distinct player) as n from (
        select created_at / ${DAY} as day, cast(user_uuid as varchar(32)) as player
          from oauth_grants where client_id = ${clientId} and created_at >= ${since}
        union all
        select created_at / ${DAY} as day, cast(user_uuid as varchar(32)) as player
          from oauth_refresh_tokens where client_id = ${clientId} and created_at >= ${since}
        union all
        select at / ${DAY} as day, actor_user as player
          from audit_log
          where action = 'content.purchase' and outcome = 'success' and client_id = ${clientId}
            and at >= ${since} and actor_user is not null
        union all
        select u.accepted_at / ${DAY} as day, cast(s.owner_uuid as varchar(32)) as player
          from content_usage u join slots s on s.id = u.slot_id
          where u.client_id = ${clientId} and u.accepted_at >= ${since} and u.state <> 'failed'
      ) activity
      group by day`.execute(this.db);
    return rows.map((r) => ({ day: Number(r.day), count: Number(r.n) }));
  }

  /** The app's sponsored gas per UTC day (`YYYY-MM-DD`) from `sinceDay` on. */
  async sponsoredGasByDay(
    clientId: string,
    sinceDay: string,
  ): Promise<{ day: string; gas: number; operations: number }[]> {
    const rows = await this.db
      .selectFrom('sponsorship_spend')
      .select(['day', 'gas', 'operations'])
      .where('scope', '=', 'app')
      .where('subject', '=', clientId)
      .where('day', '>=', sinceDay)
      .execute();
    return rows.map((r) => ({ day: r.day, gas: Number(r.gas), operations: Number(r.operations) }));
  }

  /** The app's successful content purchases since `since` (ms), oldest first. */
  async purchases(clientId: string, since: number): Promise<PurchaseRecord[]> {
    const rows = await this.db
      .selectFrom('audit_log')
      .select(['at', 'details'])
      .where('action', '=', 'content.purchase')
      .where('outcome', '=', 'success')
      .where('client_id', '=', clientId)
      .where('at', '>=', since)
      .orderBy('at')
      .execute();
    return contentPurchasesOf(rows);
  }

  /** Accepted consumption records per day and cuid since `since` (ms), with their summed amounts. */
  async consumptionsByDay(clientId: string, since: number): Promise<ConsumptionDay[]> {
    const total = exactAmountSum(this.db, 'amount');
    const { rows } = await sql<{ day: number | string; cuid: string; n: number | string; total: string }>`
      select accepted_at / ${DAY} as day, cuid, count(*) as n, ${total} as total
      from content_usage
      where client_id = ${clientId} and accepted_at >= ${since} and state <> 'failed'
      group by accepted_at / ${DAY}, cuid`.execute(this.db);
    return rows.map((r) => ({
      day: Number(r.day),
      cuid: r.cuid,
      records: Number(r.n),
      amount: String(r.total ?? '0'),
    }));
  }

  /** The app's marketplace sales since `since` (ms): when each was sold and for how much. */
  async sales(clientId: string, since: number): Promise<SaleRecord[]> {
    const rows = await this.db
      .selectFrom('market_listings')
      .select(['updated_at', 'price'])
      .where('client_id', '=', clientId)
      .where('status', '=', 'sold')
      .where('updated_at', '>=', since)
      .orderBy('updated_at')
      .execute();
    return rows.map((r) => ({ at: Number(r.updated_at), price: r.price }));
  }

  /** The cuids registered to the app, in the order they were registered. */
  async cuids(clientId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('content_providers')
      .select('cuid')
      .where('client_id', '=', clientId)
      .where('state', '=', 'registered')
      .orderBy('created_at')
      .orderBy('cuid')
      .execute();
    return rows.map((r) => r.cuid);
  }
}
