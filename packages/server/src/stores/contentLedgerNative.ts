import type SQLite from 'better-sqlite3';
import { type Db, nativeSqlite } from '../db/database.js';
import { admitAll, groupBySlot, requestKeyOf, slotsByCuid } from './contentAdmission.js';
import type {
  BalanceRow,
  ContentBalancesTable,
  ContentUsageTable,
  NewUsage,
  ReserveResult,
  UsageRecord,
} from './contentLedgerStore.js';

/** How the store turns rows into domain values (passed in: the store owns the mapping). */
export interface RowMappers {
  toBalance(row: ContentBalancesTable): BalanceRow;
  toUsage(row: ContentUsageTable): UsageRecord;
}

/**
 * The ledger's two per-record writes on SQLite, each as one native better-sqlite3 transaction:
 *
 * - the admission group commit (`ContentLedgerStore.reserveMany`): the same steps and the same rules (`contentAdmission.ts`), one fixed prepared statement per
 * step run once per key, slot or record, and one commit — no Kysely compilation of a statement whose text
 * changes with the group's size (an `IN` list, a `CASE` per slot, a multi-row insert), no re-prepare, no
 * promise per statement. On the consumption path this was ≈ 12 % of the server's CPU through Kysely
 * (docs/performance-content.md, round 3, "Prepared statements");
 * - opening a batch (`ContentLedgerStore.openBatch`): the batch row, each record still queued moved into it
 *   by one prepared update per record (instead of an `IN` list of up to 500 compiled and prepared anew),
 *   the records that joined read back.
 *
 * Only while the connection is outside a transaction (`nativeSqlite`): the caller checks `inTransaction`.
 * SQLite transactions are exclusive, so the row "locks" are the transaction itself; the version bump stays
 * (every change bumps it, as on the Kysely path). A unique violation (a request key another writer stored
 * first) rolls the whole transaction back and throws, as the Kysely path does.
 */
export class NativeLedgerWrites {
  readonly #findByRequestKey: SQLite.Statement<[string, string], ContentUsageTable>;
  readonly #lockBalance: SQLite.Statement<[string, string], ContentBalancesTable>;
  readonly #writeReserved: SQLite.Statement<[string, number, string, string]>;
  readonly #insertUsage: SQLite.Statement<
    [string, string, string, string, string, string, string | null, number, number]
  >;
  readonly #run: (usages: NewUsage[], now: number) => ReserveResult[];
  readonly #insertBatch: SQLite.Statement<[string, number, number, number]>;
  readonly #joinBatch: SQLite.Statement<[string, number, string]>;
  readonly #batchRecords: SQLite.Statement<[string], ContentUsageTable>;
  readonly #countBatch: SQLite.Statement<[number, string]>;
  readonly #open: (id: string, recordIds: string[], fromBlock: number, now: number) => ContentUsageTable[];
  readonly #markIncluded: SQLite.Statement<[string, number, string, string, number, string]>;

  constructor(
    handle: SQLite.Database,
    private readonly map: RowMappers,
  ) {
    this.#findByRequestKey = handle.prepare(
      'select * from content_usage where client_id = ? and request_key = ?',
    );
    this.#lockBalance = handle.prepare(
      'update content_balances set version = version + 1 where cuid = ? and slot = ? returning *',
    );
    this.#writeReserved = handle.prepare(
      'update content_balances set reserved = ?, updated_at = ? where cuid = ? and slot = ?',
    );
    // batch_id, tx_hash, block_number, balance_after, used_after and error start NULL (no default).
    this.#insertUsage = handle.prepare(
      `insert into content_usage (id, client_id, cuid, slot, slot_id, amount, request_key, state, accepted_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?)`,
    );
    this.#run = handle.transaction((usages: NewUsage[], now: number) => this.#reserveMany(usages, now));

    this.#insertBatch = handle.prepare(
      `insert into content_batches (id, state, from_block, tx_hint, tx_hash, block_number, records, created_at, updated_at)
       values (?, 'sending', ?, null, null, null, 0, ?, ?)`,
    );
    this.#joinBatch = handle.prepare(
      `update content_usage set state = 'sent', batch_id = ?, updated_at = ? where id = ? and state = 'queued'`,
    );
    this.#batchRecords = handle.prepare(
      'select * from content_usage where batch_id = ? order by accepted_at, id',
    );
    this.#countBatch = handle.prepare('update content_batches set records = ? where id = ?');
    this.#open = handle.transaction((id: string, recordIds: string[], fromBlock: number, now: number) => {
      this.#insertBatch.run(id, fromBlock, now, now);
      for (const recordId of recordIds) this.#joinBatch.run(id, now, recordId);
      const rows = this.#batchRecords.all(id);
      this.#countBatch.run(rows.length, id);
      return rows;
    });
    this.#markIncluded = handle.prepare(
      `update content_usage set state = 'included', tx_hash = ?, block_number = ?, balance_after = ?, used_after = ?, updated_at = ?
       where id = ?`,
    );
  }

  /**
   * Marks a batch's records included with each one's figures, one prepared update per record, inside the
   * transaction the caller holds open (`ContentLedgerStore.completeBatch`'s). Kysely's form of this (one
   * statement per 200 records, the figures in a `CASE id WHEN …` each) made SQLite compare every row's id
   * with up to 200 literals twice: `completeBatch` was 7.8 % of the event loop under the consumption load
   * (docs/performance-content.md, round 19).
   */
  markIncluded(
    txHash: string,
    blockNumber: number,
    records: readonly { id: string; balanceAfter: bigint; usedAfter: bigint }[],
    now: number,
  ): void {
    for (const r of records) {
      this.#markIncluded.run(
        txHash,
        blockNumber,
        r.balanceAfter.toString(),
        r.usedAfter.toString(),
        now,
        r.id,
      );
    }
  }

  /** Opens batch `id` for the records still queued among `recordIds`; the rows that joined, in order. */
  openBatch(id: string, recordIds: string[], fromBlock: number, now: number): ContentUsageTable[] {
    return this.#open(id, recordIds, fromBlock, now);
  }

  /** Admits `usages` in one transaction; results in input order (see `ContentLedgerStore.reserveMany`). */
  reserveMany(usages: NewUsage[], now: number): ReserveResult[] {
    return this.#run(usages, now);
  }

  #reserveMany(usages: NewUsage[], now: number): ReserveResult[] {
    const seen = new Map<string, UsageRecord>();
    for (const usage of usages) {
      const key = requestKeyOf(usage);
      if (key === undefined || seen.has(key)) continue;
      const row = this.#findByRequestKey.get(usage.clientId, usage.requestKey!);
      if (row) seen.set(key, this.map.toUsage(row));
    }
    const grouped = groupBySlot(usages, seen);
    const rows = new Map<string, BalanceRow>();
    for (const [cuid, slots] of slotsByCuid(usages, grouped.bySlot)) {
      for (const slot of slots) {
        const row = this.#lockBalance.get(cuid, slot);
        if (row) rows.set(`${cuid}\u0000${slot}`, this.map.toBalance(row));
      }
    }
    const { results, accepted, reservedByCuid } = admitAll(usages, grouped, rows, seen, now);
    for (const [cuid, changes] of reservedByCuid) {
      for (const { slot, reserved } of changes) this.#writeReserved.run(reserved.toString(), now, cuid, slot);
    }
    for (const record of accepted) {
      this.#insertUsage.run(
        record.id,
        record.clientId,
        record.cuid,
        record.slot,
        record.slotId,
        record.amount.toString(),
        record.requestKey ?? null,
        now,
        now,
      );
    }
    return results;
  }
}

/**
 * The native writes over `db`, for each call: undefined on PostgreSQL and when statements are traced (no
 * native handle), and while a Kysely transaction holds the connection (a native transaction begun inside
 * one would become a savepoint of it, committed or rolled back with it): the caller then takes its Kysely
 * path, which waits for the connection. Prepared on first use, once the migrations ran.
 */
export function nativeLedgerWrites(
  db: Db,
  map: RowMappers,
): {
  /** Outside any transaction: for the writes that run as a native transaction of their own. */
  alone(): NativeLedgerWrites | undefined;
  /**
   * Inside a Kysely transaction the caller holds (its callback owns the single connection, so a statement
   * run on the handle now joins that transaction): for `markIncluded`.
   */
  inHeldTransaction(): NativeLedgerWrites | undefined;
} {
  const handle = nativeSqlite(db);
  let writes: NativeLedgerWrites | undefined;
  const prepared = (h: SQLite.Database) => (writes ??= new NativeLedgerWrites(h, map));
  return {
    alone: () => (handle && !handle.inTransaction ? prepared(handle) : undefined),
    inHeldTransaction: () => (handle?.inTransaction ? prepared(handle) : undefined),
  };
}
