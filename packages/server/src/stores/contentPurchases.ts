import { PostgresAdapter, type RawBuilder, sql } from 'kysely';
import type { Db } from '../db/database.js';

/** One purchase of content tokens, as the audit trail recorded it. */
export interface ContentPurchase {
  at: number;
  cuid: string;
  /** Content-token units, a decimal string. */
  amount: string;
}

/**
 * The purchases among `content.purchase` audit rows: a row whose details do not parse or carry no cuid
 * and whole amount is left out (the trail is append-only and written by every version of the service).
 */
export function contentPurchasesOf(rows: { at: number | string; details: string }[]): ContentPurchase[] {
  const purchases: ContentPurchase[] = [];
  for (const row of rows) {
    let details: Record<string, unknown>;
    try {
      details = JSON.parse(row.details) as Record<string, unknown>;
    } catch {
      continue;
    }
    const { cuid, amount } = details;
    if (typeof cuid !== 'string' || !/^\d+$/.test(String(amount))) continue;
    purchases.push({ at: Number(row.at), cuid, amount: String(amount) });
  }
  return purchases;
}

/**
 * `sum(column)` of decimal-text amounts (uint128) as text: PostgreSQL sums them exactly as numeric; SQLite as
 * 64-bit integers, exact up to 9.2e18 units per group.
 */
export function exactAmountSum(db: Db, column: string): RawBuilder<string> {
  return db.getExecutor().adapter instanceof PostgresAdapter
    ? sql<string>`cast(sum(cast(${sql.ref(column)} as numeric)) as text)`
    : sql<string>`cast(sum(cast(${sql.ref(column)} as integer)) as text)`;
}
