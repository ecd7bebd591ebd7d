import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { isUniqueViolation } from './slotStore.js';
import { admitAll, groupBySlot, requestKeyOf, slotsByCuid } from './contentAdmission.js';
import { nativeLedgerWrites } from './contentLedgerNative.js';
import { affected } from './kyselyResults.js';
import { derivedMessageId, type WebhookOutbox } from './webhookStore.js';

export type UsageState = 'queued' | 'sent' | 'included' | 'failed';
export type BatchState = 'sending' | 'included' | 'dropped';

export interface ContentBalancesTable {
  cuid: string;
  slot: string;
  chain_balance: string;
  chain_used: string;
  chain_block: number;
  reserved: string;
  version: number;
  updated_at: number;
}

export interface ContentUsageTable {
  id: string;
  client_id: string;
  cuid: string;
  slot: string;
  slot_id: string;
  amount: string;
  request_key: string | null;
  state: UsageState;
  batch_id: string | null;
  tx_hash: string | null;
  block_number: number | null;
  balance_after: string | null;
  used_after: string | null;
  error: string | null;
  accepted_at: number;
  updated_at: number;
}

export interface ContentBatchesTable {
  id: string;
  state: BatchState;
  from_block: number;
  tx_hint: string | null;
  tx_hash: string | null;
  block_number: number | null;
  records: number;
  created_at: number;
  updated_at: number;
}

declare module '../db/database.js' {
  interface Database {
    content_balances: ContentBalancesTable;
    content_usage: ContentUsageTable;
    content_batches: ContentBatchesTable;
  }
}

/** The DB-side view of one slot's balance of one cuid. */
export interface BalanceRow {
  cuid: string;
  slot: string;
  chainBalance: bigint;
  chainUsed: bigint;
  chainBlock: bigint;
  /** Accepted records not yet reflected in `chainBalance`. */
  reserved: bigint;
  version: number;
}

export interface UsageRecord {
  id: string;
  clientId: string;
  cuid: string;
  slot: `0x${string}`;
  slotId: string;
  amount: bigint;
  requestKey: string | undefined;
  state: UsageState;
  batchId: string | undefined;
  txHash: `0x${string}` | undefined;
  blockNumber: bigint | undefined;
  balanceAfter: bigint | undefined;
  usedAfter: bigint | undefined;
  error: string | undefined;
  acceptedAt: number;
}

export interface BatchRecord {
  id: string;
  state: BatchState;
  fromBlock: bigint;
  txHint: `0x${string}` | undefined;
  txHash: `0x${string}` | undefined;
  blockNumber: bigint | undefined;
  records: number;
  createdAt: number;
  /** Last change (opened, or its outcome became unknown). */
  updatedAt: number;
}

/** What the chain reported for one record of an included batch. */
export interface IncludedRecord {
  id: string;
  balanceAfter: bigint;
  usedAfter: bigint;
}

const toBalance = (r: ContentBalancesTable): BalanceRow => ({
  cuid: r.cuid,
  slot: r.slot,
  chainBalance: BigInt(r.chain_balance),
  chainUsed: BigInt(r.chain_used),
  chainBlock: BigInt(r.chain_block),
  reserved: BigInt(r.reserved),
  version: Number(r.version),
});

const optBig = (v: string | number | null): bigint | undefined => (v === null ? undefined : BigInt(v));

const toUsage = (r: ContentUsageTable): UsageRecord => ({
  id: r.id,
  clientId: r.client_id,
  cuid: r.cuid,
  slot: r.slot as `0x${string}`,
  slotId: r.slot_id,
  amount: BigInt(r.amount),
  requestKey: r.request_key ?? undefined,
  state: r.state,
  batchId: r.batch_id ?? undefined,
  txHash: (r.tx_hash ?? undefined) as `0x${string}` | undefined,
  blockNumber: optBig(r.block_number),
  balanceAfter: optBig(r.balance_after),
  usedAfter: optBig(r.used_after),
  error: r.error ?? undefined,
  acceptedAt: Number(r.accepted_at),
});

const toBatch = (r: ContentBatchesTable): BatchRecord => ({
  id: r.id,
  state: r.state,
  fromBlock: BigInt(r.from_block),
  txHint: (r.tx_hint ?? undefined) as `0x${string}` | undefined,
  txHash: (r.tx_hash ?? undefined) as `0x${string}` | undefined,
  blockNumber: optBig(r.block_number),
  records: Number(r.records),
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

/** A batch just opened (`sending`, nothing sent yet). */
const openedBatch = (id: string, fromBlock: bigint, records: number, now: number): BatchRecord => ({
  id,
  state: 'sending',
  fromBlock,
  txHint: undefined,
  txHash: undefined,
  blockNumber: undefined,
  records,
  createdAt: now,
  updatedAt: now,
});

/** Block numbers are far below 2^53; the bigint column holds them as numbers. */
const blockNum = (b: bigint) => Number(b);

export type ReserveResult =
  | { kind: 'accepted'; record: UsageRecord }
  | { kind: 'insufficient'; available: bigint; row: BalanceRow }
  | { kind: 'no_balance_row' }
  | { kind: 'duplicate'; existing: UsageRecord };

export interface NewUsage {
  clientId: string;
  cuid: string;
  slot: `0x${string}`;
  slotId: string;
  amount: bigint;
  requestKey: string | undefined;
}

/**
 * The content-token ledger: per-slot balances that admission control reserves against, the durable queue
 * of accepted consumption records and the batches that carry them to the chain. The admission rule itself
 * is `contentAdmission.ts`.
 * Balance rows change only inside a transaction that first takes the row's lock with a conditional
 * `UPDATE … RETURNING` (bumping `version`), so two replicas (or two requests) can never both spend the same
 * available balance, on SQLite and PostgreSQL alike.
 */
export class ContentLedgerStore {
  /** Admission and batch opening as native transactions, on SQLite when it can (contentLedgerNative.ts). */
  readonly #nativeWrites: ReturnType<typeof nativeLedgerWrites>;

  /** `outbox`: records included on chain write `content.consumed` in the transaction that records them. */
  constructor(
    private readonly db: Db,
    private readonly outbox?: WebhookOutbox,
  ) {
    this.#nativeWrites = nativeLedgerWrites(db, { toBalance, toUsage });
  }

  // ----- balances -----

  /** Every slot that ever held or used tokens of `cuid` (a balance row exists for it). */
  async slotsOf(cuid: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('content_balances')
      .select('slot')
      .where('cuid', '=', cuid)
      .execute();
    return rows.map((r) => r.slot);
  }

  async findBalance(cuid: string, slot: string, trx: Db = this.db): Promise<BalanceRow | undefined> {
    const row = await trx
      .selectFrom('content_balances')
      .selectAll()
      .where('cuid', '=', cuid)
      .where('slot', '=', slot)
      .executeTakeFirst();
    return row ? toBalance(row) : undefined;
  }

  /**
   * Reads a balance row inside `trx` and takes its row lock (a version bump with RETURNING): on
   * PostgreSQL concurrent writers of the row wait until this transaction ends; SQLite transactions are
   * exclusive anyway. Undefined when the row does not exist.
   */
  /** `#lockBalance` for many slots of one cuid: the rows found, locked (500 slots per statement). */
  async #lockBalances(trx: Db, cuid: string, slots: string[]): Promise<BalanceRow[]> {
    if (slots.length === 1) {
      const row = await this.#lockBalance(trx, cuid, slots[0]!);
      return row ? [row] : [];
    }
    const rows: BalanceRow[] = [];
    for (let i = 0; i < slots.length; i += 500) {
      const found = await trx
        .updateTable('content_balances')
        .set((eb) => ({ version: eb('version', '+', 1) }))
        .where('cuid', '=', cuid)
        .where('slot', 'in', slots.slice(i, i + 500))
        .returningAll()
        .execute();
      rows.push(...found.map(toBalance));
    }
    return rows;
  }

  async #lockBalance(trx: Db, cuid: string, slot: string): Promise<BalanceRow | undefined> {
    const row = await trx
      .updateTable('content_balances')
      .set((eb) => ({ version: eb('version', '+', 1) }))
      .where('cuid', '=', cuid)
      .where('slot', '=', slot)
      .returningAll()
      .executeTakeFirst();
    return row ? toBalance(row) : undefined;
  }

  /** Creates the row from a chain read if none exists yet (a concurrent creator wins harmlessly). */
  async insertBalance(cuid: string, slot: string, chain: { balance: bigint; used: bigint; block: bigint }) {
    await this.db
      .insertInto('content_balances')
      .values({
        cuid,
        slot,
        chain_balance: chain.balance.toString(),
        chain_used: chain.used.toString(),
        chain_block: blockNum(chain.block),
        reserved: '0',
        version: 0,
        updated_at: Date.now(),
      })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  /**
   * Replaces the chain figures with a newer read (at `block`), keeping the reservations. Skipped when the
   * row already reflects that block or a later one. Reads taken after a batch was included but before the
   * batcher recorded it make `available` briefly too small, never too large.
   */
  async refreshBalance(
    cuid: string,
    slot: string,
    chain: { balance: bigint; used: bigint; block: bigint },
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('content_balances')
      .set((eb) => ({
        chain_balance: chain.balance.toString(),
        chain_used: chain.used.toString(),
        chain_block: blockNum(chain.block),
        version: eb('version', '+', 1),
        updated_at: Date.now(),
      }))
      .where('cuid', '=', cuid)
      .where('slot', '=', slot)
      .where('chain_block', '<', blockNum(chain.block))
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** `reserveMany` for one record. */
  async reserve(usage: NewUsage, now = Date.now()): Promise<ReserveResult> {
    return (await this.reserveMany([usage], now))[0]!;
  }

  /**
   * Admits many consumption records in one transaction (group commit): for each slot, under its row lock,
   * records are taken in order while `chain_balance − reserved` covers them, `reserved` rises once by their
   * sum, and the admitted records are inserted as `queued`. A request key seen before (or earlier in the
   * same call) gives `duplicate`; nothing else changes for a record that is not admitted. Results are in
   * input order.
   */
  async reserveMany(usages: NewUsage[], now = Date.now()): Promise<ReserveResult[]> {
    try {
      // Natively only while no Kysely transaction holds the connection (it would become a savepoint of it).
      const native = this.#nativeWrites.alone();
      if (native) return native.reserveMany(usages, now);
      return await this.db.transaction().execute((trx) => this.#reserveMany(trx, usages, now));
    } catch (err) {
      // Another replica inserted one of the request keys between our check and our insert: settle each
      // record on its own so only the duplicate is affected.
      if (!isUniqueViolation(err) || usages.length === 1) {
        if (isUniqueViolation(err) && usages[0]?.requestKey !== undefined) {
          const existing = await this.findByRequestKey(usages[0].clientId, usages[0].requestKey);
          if (existing) return [{ kind: 'duplicate', existing }];
        }
        throw err;
      }
      const results: ReserveResult[] = [];
      for (const usage of usages) results.push(await this.reserve(usage, now));
      return results;
    }
  }

  async #reserveMany(trx: Db, usages: NewUsage[], now: number): Promise<ReserveResult[]> {
    // Request keys already stored; admitted records join it, so repeats within this call are seen too.
    const seen = await this.#storedRequestKeys(trx, usages);
    const grouped = groupBySlot(usages, seen);
    // Every slot row the call touches is locked by one statement per cuid, and every changed `reserved`
    // is written by one more (a CASE over the slots), instead of two statements per slot.
    const rows = new Map<string, BalanceRow>();
    for (const [cuid, slots] of slotsByCuid(usages, grouped.bySlot)) {
      for (const row of await this.#lockBalances(trx, cuid, slots)) rows.set(`${cuid}\u0000${row.slot}`, row);
    }
    const { results, accepted, reservedByCuid } = admitAll(usages, grouped, rows, seen, now);
    for (const [cuid, changes] of reservedByCuid) {
      for (let i = 0; i < changes.length; i += 200) {
        const chunk = changes.slice(i, i + 200);
        await trx
          .updateTable('content_balances')
          .set({
            reserved: sql<string>`case slot ${sql.join(
              chunk.map((c) => sql`when ${c.slot} then ${c.reserved.toString()}`),
              sql` `,
            )} end`,
            updated_at: now,
          })
          .where('cuid', '=', cuid)
          .where(
            'slot',
            'in',
            chunk.map((c) => c.slot),
          )
          .execute();
      }
    }
    // 100 rows × 10 columns stays far below both databases' bound on parameters.
    for (let i = 0; i < accepted.length; i += 100) {
      await trx
        .insertInto('content_usage')
        .values(
          accepted.slice(i, i + 100).map((record) => ({
            id: record.id,
            client_id: record.clientId,
            cuid: record.cuid,
            slot: record.slot,
            slot_id: record.slotId,
            amount: record.amount.toString(),
            request_key: record.requestKey ?? null,
            state: 'queued' as const,
            // batch_id, tx_hash, block_number, balance_after, used_after and error start NULL (no default):
            // left out, the statement binds 10 parameters per record instead of 16.
            accepted_at: now,
            updated_at: now,
          })),
        )
        .execute();
    }
    return results;
  }

  /** The stored records whose request keys the call repeats, by `requestKeyOf`. */
  async #storedRequestKeys(trx: Db, usages: NewUsage[]): Promise<Map<string, UsageRecord>> {
    const seen = new Map<string, UsageRecord>();
    const keyed = usages.filter((u) => u.requestKey !== undefined);
    for (const clientId of new Set(keyed.map((u) => u.clientId))) {
      const keys = keyed.filter((u) => u.clientId === clientId).map((u) => u.requestKey!);
      for (let i = 0; i < keys.length; i += 500) {
        const rows = await trx
          .selectFrom('content_usage')
          .selectAll()
          .where('client_id', '=', clientId)
          .where('request_key', 'in', keys.slice(i, i + 500))
          .execute();
        for (const row of rows)
          seen.set(requestKeyOf({ clientId, requestKey: row.request_key! })!, toUsage(row));
      }
    }
    return seen;
  }

  // ----- consumption records -----

  async findUsage(id: string): Promise<UsageRecord | undefined> {
    const row = await this.db.selectFrom('content_usage').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toUsage(row) : undefined;
  }

  async findByRequestKey(clientId: string, requestKey: string): Promise<UsageRecord | undefined> {
    const row = await this.db
      .selectFrom('content_usage')
      .selectAll()
      .where('client_id', '=', clientId)
      .where('request_key', '=', requestKey)
      .executeTakeFirst();
    return row ? toUsage(row) : undefined;
  }

  /** The oldest queued records, at most `limit`. */
  async listQueued(limit: number): Promise<UsageRecord[]> {
    const rows = await this.db
      .selectFrom('content_usage')
      .selectAll()
      .where('state', '=', 'queued')
      .orderBy('accepted_at')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(toUsage);
  }

  async countByState(state: UsageState): Promise<number> {
    const row = await this.db
      .selectFrom('content_usage')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('state', '=', state)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async listBatchRecords(batchId: string): Promise<UsageRecord[]> {
    const rows = await this.db
      .selectFrom('content_usage')
      .selectAll()
      .where('batch_id', '=', batchId)
      .orderBy('accepted_at')
      .orderBy('id')
      .execute();
    return rows.map(toUsage);
  }

  // ----- batches -----

  /**
   * Opens a batch for the given queued records (those still queued join it) before anything is sent, so
   * a crash leaves a `sending` batch to settle at the next start. Returns the records that joined.
   */
  async openBatch(
    recordIds: string[],
    fromBlock: bigint,
    now = Date.now(),
  ): Promise<{ batch: BatchRecord; records: UsageRecord[] }> {
    const id = randomUUID();
    const native = this.#nativeWrites.alone();
    if (native) {
      const rows = native.openBatch(id, recordIds, blockNum(fromBlock), now);
      return { batch: openedBatch(id, fromBlock, rows.length, now), records: rows.map(toUsage) };
    }
    return this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('content_batches')
        .values({
          id,
          state: 'sending',
          from_block: blockNum(fromBlock),
          tx_hint: null,
          tx_hash: null,
          block_number: null,
          records: 0,
          created_at: now,
          updated_at: now,
        })
        .execute();
      for (let i = 0; i < recordIds.length; i += 500) {
        await trx
          .updateTable('content_usage')
          .set({ state: 'sent', batch_id: id, updated_at: now })
          .where('id', 'in', recordIds.slice(i, i + 500))
          .where('state', '=', 'queued')
          .execute();
      }
      const rows = await trx
        .selectFrom('content_usage')
        .selectAll()
        .where('batch_id', '=', id)
        .orderBy('accepted_at')
        .orderBy('id')
        .execute();
      await trx.updateTable('content_batches').set({ records: rows.length }).where('id', '=', id).execute();
      return { batch: openedBatch(id, fromBlock, rows.length, now), records: rows.map(toUsage) };
    });
  }

  /** Notes the transaction hash the chain layer reported for a batch whose outcome became unknown. */
  async setBatchHint(batchId: string, txHash: string | undefined, now = Date.now()): Promise<void> {
    await this.db
      .updateTable('content_batches')
      .set({ ...(txHash ? { tx_hint: txHash } : {}), updated_at: now })
      .where('id', '=', batchId)
      .where('state', '=', 'sending')
      .execute();
  }

  async listSendingBatches(): Promise<BatchRecord[]> {
    const rows = await this.db
      .selectFrom('content_batches')
      .selectAll()
      .where('state', '=', 'sending')
      .orderBy('created_at')
      .execute();
    return rows.map(toBatch);
  }

  async findBatch(batchId: string): Promise<BatchRecord | undefined> {
    const row = await this.db
      .selectFrom('content_batches')
      .selectAll()
      .where('id', '=', batchId)
      .executeTakeFirst();
    return row ? toBatch(row) : undefined;
  }

  /**
   * Records an included batch in one transaction: every record becomes `included` with the figures the
   * chain reported after it, the reservations are released, and each slot's chain figures move to the
   * batch's block unless a later read already superseded them. False when the batch was settled already.
   */
  async completeBatch(
    batchId: string,
    inclusion: { txHash: string; blockNumber: bigint; records: IncludedRecord[] },
    now = Date.now(),
  ): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const closed = await trx
        .updateTable('content_batches')
        .set({
          state: 'included',
          tx_hash: inclusion.txHash,
          block_number: blockNum(inclusion.blockNumber),
          updated_at: now,
        })
        .where('id', '=', batchId)
        .where('state', '=', 'sending')
        .executeTakeFirst();
      if (affected(closed) !== 1) return false;
      const records = await trx
        .selectFrom('content_usage')
        .selectAll()
        .where('batch_id', '=', batchId)
        .where('state', '=', 'sent')
        .execute();
      const byId = new Map(inclusion.records.map((r) => [r.id, r]));
      // Per slot: the amount to release from `reserved` and the figures after its last record.
      const slots = new Map<string, { cuid: string; slot: string; sum: bigint; last: IncludedRecord }>();
      for (const row of records) {
        const reported = byId.get(row.id);
        if (!reported) throw new Error(`inclusion of batch ${batchId} does not report record ${row.id}`);
        const key = `${row.cuid}\u0000${row.slot}`;
        const entry = slots.get(key);
        if (entry) {
          entry.sum += BigInt(row.amount);
          // Used only grows within a batch: the largest is the slot's figure after its last record.
          if (reported.usedAfter > entry.last.usedAfter) entry.last = reported;
        } else {
          slots.set(key, { cuid: row.cuid, slot: row.slot, sum: BigInt(row.amount), last: reported });
        }
      }
      const native = this.#nativeWrites.inHeldTransaction();
      if (native) {
        const reported = records.map((row) => byId.get(row.id)!);
        native.markIncluded(inclusion.txHash, blockNum(inclusion.blockNumber), reported, now);
      } else {
        // One statement per 200 records: the per-record figures go in through CASE expressions.
        for (let i = 0; i < records.length; i += 200) {
          const chunk = records.slice(i, i + 200).map((row) => ({ id: row.id, reported: byId.get(row.id)! }));
          const figure = (pick: (r: IncludedRecord) => bigint) =>
            sql<string>`case id ${sql.join(
              chunk.map((c) => sql`when ${c.id} then ${pick(c.reported).toString()}`),
              sql` `,
            )} end`;
          await trx
            .updateTable('content_usage')
            .set({
              state: 'included',
              tx_hash: inclusion.txHash,
              block_number: blockNum(inclusion.blockNumber),
              balance_after: figure((r) => r.balanceAfter),
              used_after: figure((r) => r.usedAfter),
              updated_at: now,
            })
            .where(
              'id',
              'in',
              chunk.map((c) => c.id),
            )
            .execute();
        }
      }
      for (const { cuid, slot, sum, last } of slots.values()) {
        const row = await this.#lockBalance(trx, cuid, slot);
        if (!row) continue;
        // Several batches can be included in one block (usage batches in flight together) and complete in
        // any order. A slot's `used` only ever grows on chain, so within one block the figures with the
        // larger `used` are the later ones: they already reflect every earlier record of the block.
        const newer =
          row.chainBlock < inclusion.blockNumber ||
          (row.chainBlock === inclusion.blockNumber && last.usedAfter > row.chainUsed);
        await trx
          .updateTable('content_balances')
          .set({
            reserved: (row.reserved - sum).toString(),
            ...(newer
              ? {
                  chain_balance: last.balanceAfter.toString(),
                  chain_used: last.usedAfter.toString(),
                  chain_block: blockNum(inclusion.blockNumber),
                }
              : {}),
            updated_at: now,
          })
          .where('cuid', '=', cuid)
          .where('slot', '=', slot)
          .execute();
      }
      await this.#consumedEvents(trx, records, byId, inclusion);
      return true;
    });
  }

  /** `content.consumed` for each record now on chain, for the apps subscribed to it (one read finds them). */
  async #consumedEvents(
    trx: Db,
    records: ContentUsageTable[],
    byId: Map<string, IncludedRecord>,
    inclusion: { txHash: string; blockNumber: bigint },
  ): Promise<void> {
    if (!this.outbox || records.length === 0) return;
    const apps = await this.outbox.subscribers(trx, 'content.consumed', [
      ...new Set(records.map((r) => r.client_id)),
    ]);
    for (const row of records) {
      if (!apps.has(row.client_id)) continue;
      const reported = byId.get(row.id)!;
      await this.outbox.record(trx, {
        type: 'content.consumed',
        clientId: row.client_id,
        // One event per record, whatever the inclusions: a record included again after a chain rewind
        // reports under the same `webhook-id` (the outbox keeps one delivery).
        msgId: derivedMessageId(Number(row.accepted_at), `content.consumed:${row.id}`),
        data: {
          record_id: row.id,
          cuid: row.cuid,
          slot_id: row.slot_id,
          slot_address: row.slot,
          amount: BigInt(row.amount).toString(),
          ...(row.request_key ? { request_key: row.request_key } : {}),
          balance_after: reported.balanceAfter.toString(),
          used_after: reported.usedAfter.toString(),
          tx_hash: inclusion.txHash,
          block_number: inclusion.blockNumber.toString(),
        },
      });
    }
  }

  /**
   * The chain went back to block `head` (the embedded chain restarted from an older saved state): batches
   * recorded as included in a later block may no longer be on chain, or may land again (their signed
   * transaction can be mined anew). They become `sending` again, with their reservations, so recovery
   * settles each from the chain's logs: found → included again; not found → requeued. Every balance row
   * read after `head` is marked stale (`chain_block = -1`) so admission reads it from the chain again.
   * Returns the number of batches reopened.
   */
  async reopenAfterRewind(head: bigint, now = Date.now()): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const lost = await trx
        .selectFrom('content_batches')
        .selectAll()
        .where('state', '=', 'included')
        .where('block_number', '>', blockNum(head))
        .execute();
      for (const batch of lost) {
        const records = await trx
          .selectFrom('content_usage')
          .selectAll()
          .where('batch_id', '=', batch.id)
          .execute();
        const sums = new Map<string, { cuid: string; slot: string; sum: bigint }>();
        for (const r of records) {
          const key = `${r.cuid}\u0000${r.slot}`;
          const entry = sums.get(key) ?? { cuid: r.cuid, slot: r.slot, sum: 0n };
          entry.sum += BigInt(r.amount);
          sums.set(key, entry);
        }
        for (const { cuid, slot, sum } of sums.values()) {
          const row = await this.#lockBalance(trx, cuid, slot);
          if (!row) continue;
          await trx
            .updateTable('content_balances')
            .set({ reserved: (row.reserved + sum).toString(), chain_block: -1, updated_at: now })
            .where('cuid', '=', cuid)
            .where('slot', '=', slot)
            .execute();
        }
        await trx
          .updateTable('content_usage')
          .set({
            state: 'sent',
            tx_hash: null,
            block_number: null,
            balance_after: null,
            used_after: null,
            updated_at: now,
          })
          .where('batch_id', '=', batch.id)
          .execute();
        await trx
          .updateTable('content_batches')
          .set({
            state: 'sending',
            from_block: Math.min(Number(batch.from_block), blockNum(head)),
            tx_hint: batch.tx_hash,
            tx_hash: null,
            block_number: null,
            updated_at: now,
          })
          .where('id', '=', batch.id)
          .execute();
      }
      await trx
        .updateTable('content_balances')
        .set((eb) => ({ chain_block: -1, version: eb('version', '+', 1), updated_at: now }))
        .where('chain_block', '>', blockNum(head))
        .execute();
      return lost.length;
    });
  }

  /** A batch known not to be on chain (and never to land): its records go back to the queue. */
  async dropBatch(batchId: string, now = Date.now()): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const dropped = await trx
        .updateTable('content_batches')
        .set({ state: 'dropped', updated_at: now })
        .where('id', '=', batchId)
        .where('state', '=', 'sending')
        .executeTakeFirst();
      if (affected(dropped) !== 1) return false;
      await trx
        .updateTable('content_usage')
        .set({ state: 'queued', batch_id: null, updated_at: now })
        .where('batch_id', '=', batchId)
        .where('state', '=', 'sent')
        .execute();
      return true;
    });
  }

  /**
   * Takes records the chain refused out of the queue (state `failed`, reservation released). Only used
   * when a record the reservation admitted exceeds the on-chain balance, which dauth alone never causes.
   */
  async failRecords(ids: string[], error: string, now = Date.now()): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (const id of ids) {
        const row = await trx.selectFrom('content_usage').selectAll().where('id', '=', id).executeTakeFirst();
        if (!row || (row.state !== 'queued' && row.state !== 'sent')) continue;
        await trx
          .updateTable('content_usage')
          .set({ state: 'failed', error, batch_id: null, updated_at: now })
          .where('id', '=', id)
          .execute();
        const balance = await this.#lockBalance(trx, row.cuid, row.slot);
        if (!balance) continue;
        await trx
          .updateTable('content_balances')
          .set({ reserved: (balance.reserved - BigInt(row.amount)).toString(), updated_at: now })
          .where('cuid', '=', row.cuid)
          .where('slot', '=', row.slot)
          .execute();
      }
    });
  }
}
