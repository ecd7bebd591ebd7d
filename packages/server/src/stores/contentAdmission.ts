import type { BalanceRow, NewUsage, ReserveResult, UsageRecord } from './contentLedgerStore.js';
import { timeOrderedUuid } from '../crypto/timeOrderedUuid.js';

/**
 * The content-token admission rule (decisions §6), free of I/O: which consumption records a slot's
 * balance admits. `ContentLedgerStore.reserveMany` runs it inside one transaction, under each slot's
 * balance-row lock, and writes down what it decides — through Kysely, or on SQLite through one native
 * better-sqlite3 transaction (`contentLedgerNative.ts`); both take the same steps from here.
 */

/** Request keys are unique per client: the key of a keyed record, undefined for an unkeyed one. */
export function requestKeyOf(usage: Pick<NewUsage, 'clientId' | 'requestKey'>): string | undefined {
  return usage.requestKey === undefined ? undefined : `${usage.clientId}\u0000${usage.requestKey}`;
}

/**
 * Sorts a call's records: a request key already stored gives `duplicate` at once; every other record
 * joins its slot's group (indexes into `usages`, in input order).
 */
export function groupBySlot(
  usages: readonly NewUsage[],
  stored: ReadonlyMap<string, UsageRecord>,
): { duplicates: Map<number, ReserveResult>; bySlot: Map<string, number[]> } {
  const duplicates = new Map<number, ReserveResult>();
  const bySlot = new Map<string, number[]>();
  usages.forEach((usage, i) => {
    const key = requestKeyOf(usage);
    const existing = key === undefined ? undefined : stored.get(key);
    if (existing) {
      duplicates.set(i, { kind: 'duplicate', existing });
      return;
    }
    const slotKey = `${usage.cuid}\u0000${usage.slot}`;
    const list = bySlot.get(slotKey);
    if (list) list.push(i);
    else bySlot.set(slotKey, [i]);
  });
  return { duplicates, bySlot };
}

/**
 * Admits one slot's records in order while `chain_balance − reserved` covers them. A record whose key
 * was admitted earlier in the call is a `duplicate` of it (`seen` gains every admitted keyed record); a
 * record that does not fit is `insufficient` and changes nothing. A missing row, or one marked stale
 * after a chain rewind (`chainBlock < 0`), admits nothing: it must be read from the chain first.
 * Returns each index's result, the admitted records and the slot's new `reserved`.
 */
export function admitOnSlot(
  row: BalanceRow | undefined,
  usages: readonly NewUsage[],
  indexes: readonly number[],
  seen: Map<string, UsageRecord>,
  now: number,
): { results: Map<number, ReserveResult>; accepted: UsageRecord[]; reserved: bigint | undefined } {
  const results = new Map<number, ReserveResult>();
  const accepted: UsageRecord[] = [];
  if (!row || row.chainBlock < 0n) {
    for (const i of indexes) results.set(i, { kind: 'no_balance_row' });
    return { results, accepted, reserved: undefined };
  }
  let reserved = row.reserved;
  for (const i of indexes) {
    const usage = usages[i]!;
    const key = requestKeyOf(usage);
    const earlier = key === undefined ? undefined : seen.get(key);
    if (earlier) {
      results.set(i, { kind: 'duplicate', existing: earlier });
      continue;
    }
    const available = row.chainBalance - reserved;
    if (usage.amount > available) {
      results.set(i, { kind: 'insufficient', available, row: { ...row, reserved } });
      continue;
    }
    reserved += usage.amount;
    const record = queuedRecord(usage, now);
    if (key !== undefined) seen.set(key, record);
    accepted.push(record);
    results.set(i, { kind: 'accepted', record });
  }
  return { results, accepted, reserved };
}

/** A slot's new `reserved` after a call admitted records on it. */
export interface ReservedChange {
  slot: string;
  reserved: bigint;
}

/** The slots of each cuid a call touches (its rows are locked together: one statement per cuid). */
export function slotsByCuid(usages: readonly NewUsage[], bySlot: ReadonlyMap<string, number[]>) {
  const slots = new Map<string, string[]>();
  for (const indexes of bySlot.values()) {
    const { cuid, slot } = usages[indexes[0]!]!;
    const list = slots.get(cuid);
    if (list) list.push(slot);
    else slots.set(cuid, [slot]);
  }
  return slots;
}

/**
 * Runs `admitOnSlot` over every slot of a call, given its locked rows (keyed `cuid\u0000slot`): each
 * index's result (the duplicates found earlier included), the admitted records in order, and the
 * `reserved` to write per cuid (only slots whose figure changed).
 */
export function admitAll(
  usages: readonly NewUsage[],
  grouped: ReturnType<typeof groupBySlot>,
  rows: ReadonlyMap<string, BalanceRow>,
  seen: Map<string, UsageRecord>,
  now: number,
): { results: ReserveResult[]; accepted: UsageRecord[]; reservedByCuid: Map<string, ReservedChange[]> } {
  const results: ReserveResult[] = new Array<ReserveResult>(usages.length);
  for (const [i, result] of grouped.duplicates) results[i] = result;
  const accepted: UsageRecord[] = [];
  const reservedByCuid = new Map<string, ReservedChange[]>();
  for (const [slotKey, indexes] of grouped.bySlot) {
    const { cuid, slot } = usages[indexes[0]!]!;
    const row = rows.get(slotKey);
    const admitted = admitOnSlot(row, usages, indexes, seen, now);
    for (const [i, result] of admitted.results) results[i] = result;
    accepted.push(...admitted.accepted);
    if (row && admitted.reserved !== undefined && admitted.reserved !== row.reserved) {
      const list = reservedByCuid.get(cuid);
      if (list) list.push({ slot, reserved: admitted.reserved });
      else reservedByCuid.set(cuid, [{ slot, reserved: admitted.reserved }]);
    }
  }
  return { results, accepted, reservedByCuid };
}

function queuedRecord(usage: NewUsage, now: number): UsageRecord {
  return {
    // Time-ordered: `content_usage` grows at one edge of its primary-key index (timeOrderedUuid.ts).
    id: timeOrderedUuid(now),
    ...usage,
    state: 'queued',
    batchId: undefined,
    txHash: undefined,
    blockNumber: undefined,
    balanceAfter: undefined,
    usedAfter: undefined,
    error: undefined,
    acceptedAt: now,
  };
}
