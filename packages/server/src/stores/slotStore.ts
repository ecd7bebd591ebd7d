import type SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { type Db, nativeSqlite } from '../db/database.js';
import { affected } from './kyselyResults.js';
import type { WebhookOutbox } from './webhookStore.js';

export type Address = `0x${string}`;
/** `pending`: row written, dex not yet confirmed; `active`: recorded on chain; `moving`: a transfer is in flight. */
export type SlotState = 'pending' | 'active' | 'moving';

export interface SlotsTable {
  id: string;
  client_id: string;
  owner_uuid: number;
  content_address: string;
  tr_cnt: number;
  token_nickname: string;
  meta_idx: number;
  imported: number;
  state: SlotState;
  state_since: number;
  created_at: number;
  updated_at: number;
}

declare module '../db/database.js' {
  interface Database {
    slots: SlotsTable;
  }
}

export interface Slot {
  /** The slot id as decimal digits (a uint256; never a JavaScript number). */
  id: string;
  clientId: string;
  ownerUuid: number;
  contentAddress: Address;
  trCnt: number;
  tokenNickname: string;
  metaIdx: number;
  /** Issued before this service (imported): its id travels as a JSON string, not a raw number. */
  imported: boolean;
  state: SlotState;
  stateSince: number;
  createdAt: number;
  updatedAt: number;
}

/** A row as the domain sees it (also for stores that read a slot inside their own statements). */
export const toSlot = (r: SlotsTable): Slot => ({
  id: r.id,
  clientId: r.client_id,
  ownerUuid: Number(r.owner_uuid),
  contentAddress: r.content_address as Address,
  trCnt: Number(r.tr_cnt),
  tokenNickname: r.token_nickname,
  metaIdx: Number(r.meta_idx),
  imported: Number(r.imported) === 1,
  state: r.state,
  stateSince: Number(r.state_since),
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

const toRow = (s: Slot): SlotsTable => ({
  id: s.id,
  client_id: s.clientId,
  owner_uuid: s.ownerUuid,
  content_address: s.contentAddress,
  tr_cnt: s.trCnt,
  token_nickname: s.tokenNickname,
  meta_idx: s.metaIdx,
  imported: s.imported ? 1 : 0,
  state: s.state,
  state_since: s.stateSince,
  created_at: s.createdAt,
  updated_at: s.updatedAt,
});

/** A unique-constraint violation on either database (PostgreSQL 23505, SQLite SQLITE_CONSTRAINT_UNIQUE). */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * The slots table. Every state change is a conditional UPDATE checked by its affected-row count, so
 * two replicas racing on one slot settle the same way on SQLite and PostgreSQL.
 */
export class SlotStore {
  /** `outbox`: activating a slot writes `slot.created`, a completed move `slot.transferred`, in their transactions. */
  /** SQLite's better-sqlite3 handle (`nativeSqlite`) for the hot read below; undefined on PostgreSQL. */
  readonly #native: SQLite.Database | undefined;
  #byPlace: SQLite.Statement<[string, number, number], SlotsTable> | undefined;

  constructor(
    readonly db: Db,
    private readonly outbox?: WebhookOutbox,
  ) {
    this.#native = nativeSqlite(db);
  }

  /**
   * Inserts a slot; false when its id or its (client, owner, meta_idx) place is already taken, which
   * is how a concurrent creation for the same user and app, or an id collision, shows up.
   */
  async insert(slot: Slot, trx: Db = this.db): Promise<boolean> {
    const result = await trx
      .insertInto('slots')
      .values(toRow(slot))
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  async findById(id: string, trx: Db = this.db): Promise<Slot | undefined> {
    const row = await trx.selectFrom('slots').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toSlot(row) : undefined;
  }

  /**
   * Hand-written SQL: every backend authorize reads the slot so, and the query builder cost as much as SQLite
   * did; on SQLite a native statement when no Kysely transaction holds the connection (no mutex or promise).
   */
  async findByPlace(clientId: string, ownerUuid: number, metaIdx: number, trx: Db = this.db) {
    const native = this.#native;
    if (native && trx === this.db && !native.inTransaction) {
      this.#byPlace ??= native.prepare<[string, number, number], SlotsTable>(
        'select * from slots where client_id = ? and owner_uuid = ? and meta_idx = ?',
      );
      const row = this.#byPlace.get(clientId, ownerUuid, metaIdx);
      return row ? toSlot(row) : undefined;
    }
    const { rows } = await sql<SlotsTable>`select * from slots
      where client_id = ${clientId} and owner_uuid = ${ownerUuid} and meta_idx = ${metaIdx}`.execute(trx);
    return rows[0] ? toSlot(rows[0]) : undefined;
  }

  async findByContentAddress(address: string, trx: Db = this.db): Promise<Slot | undefined> {
    const row = await trx
      .selectFrom('slots')
      .selectAll()
      .where('content_address', '=', address)
      .orderBy('created_at')
      .executeTakeFirst();
    return row ? toSlot(row) : undefined;
  }

  /** The owner's slots, of one app when `clientId` is given, in meta_idx order. */
  async listByOwner(ownerUuid: number, clientId?: string, trx: Db = this.db): Promise<Slot[]> {
    let query = trx.selectFrom('slots').selectAll().where('owner_uuid', '=', ownerUuid);
    if (clientId !== undefined) query = query.where('client_id', '=', clientId);
    const rows = await query.orderBy('client_id').orderBy('meta_idx').execute();
    return rows.map(toSlot);
  }

  async countByOwner(clientId: string, ownerUuid: number, trx: Db = this.db): Promise<number> {
    const row = await trx
      .selectFrom('slots')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('client_id', '=', clientId)
      .where('owner_uuid', '=', ownerUuid)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** Moves a slot from one state to another if it is still in `from` since `since`; true when it did. */
  async transition(
    id: string,
    from: { state: SlotState; since?: number; ownerUuid?: number },
    to: { state: SlotState; since: number },
    trx: Db = this.db,
  ): Promise<boolean> {
    let query = trx
      .updateTable('slots')
      .set({ state: to.state, state_since: to.since, updated_at: Date.now() })
      .where('id', '=', id)
      .where('state', '=', from.state);
    if (from.since !== undefined) query = query.where('state_since', '=', from.since);
    if (from.ownerUuid !== undefined) query = query.where('owner_uuid', '=', from.ownerUuid);
    return affected(await query.executeTakeFirst()) === 1;
  }

  /**
   * pending → active, together with whatever else must commit with it (the content wallet row):
   * `alsoInTransaction` runs in the same transaction. False (and nothing written) when the slot was
   * no longer pending since `since`.
   */
  async activate(
    id: string,
    since: number,
    alsoInTransaction: (trx: Db) => Promise<void> = async () => undefined,
  ): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const ok = await this.transition(
        id,
        { state: 'pending', since },
        { state: 'active', since: Date.now() },
        trx,
      );
      if (!ok) return false;
      await alsoInTransaction(trx);
      const slot = this.outbox && (await this.findById(id, trx));
      if (slot) {
        await this.outbox!.record(trx, {
          type: 'slot.created',
          clientId: slot.clientId,
          orderKey: `slot:${slot.id}`,
          data: {
            slot_id: slot.id,
            user_id: String(slot.ownerUuid),
            meta_idx: slot.metaIdx,
            content_address: slot.contentAddress,
          },
        });
      }
      return true;
    });
  }

  /** Deletes a slot that is still pending since `since` (a creation that did not reach the chain). */
  async deletePending(id: string, since: number, trx: Db = this.db): Promise<boolean> {
    const result = await trx
      .deleteFrom('slots')
      .where('id', '=', id)
      .where('state', '=', 'pending')
      .where('state_since', '=', since)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /**
   * Records a completed owner change of a `moving` slot in one transaction: the slot goes to the end
   * of the new owner's list for its app (meta_idx = their count), `tr_cnt` grows by one, and the
   * previous owner's later slots of that app close the gap so their indexes stay 0-based and dense.
   * False when the slot is no longer moving from `fromUuid` (another step won).
   */
  async completeMove(
    id: string,
    fromUuid: number,
    toUuid: number,
    /** What the webhook event says about the move (`slot.transferred`): its reason and chain transaction. */
    event: { reason?: string; txHash?: string } = {},
  ): Promise<Slot | undefined> {
    // Two moves to one new owner may pick the same index at once; the unique index refuses the later
    // one, which then runs again and takes the next index.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#completeMoveOnce(id, fromUuid, toUuid, event);
      } catch (err) {
        if (attempt >= 5 || !isUniqueViolation(err)) throw err;
      }
    }
  }

  async #completeMoveOnce(
    id: string,
    fromUuid: number,
    toUuid: number,
    event: { reason?: string; txHash?: string },
  ): Promise<Slot | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const slot = await this.findById(id, trx);
      if (!slot || slot.state !== 'moving' || slot.ownerUuid !== fromUuid) return undefined;
      const newIndex = await this.countByOwner(slot.clientId, toUuid, trx);
      const now = Date.now();
      const moved = await trx
        .updateTable('slots')
        .set({
          owner_uuid: toUuid,
          meta_idx: newIndex,
          tr_cnt: slot.trCnt + 1,
          state: 'active',
          state_since: now,
          updated_at: now,
        })
        .where('id', '=', id)
        .where('state', '=', 'moving')
        .where('owner_uuid', '=', fromUuid)
        .executeTakeFirst();
      if (affected(moved) !== 1) return undefined;
      // Close the gap one row at a time in ascending order, so the unique index never sees two rows
      // at one index (PostgreSQL checks it per row).
      const later = await trx
        .selectFrom('slots')
        .select(['id', 'meta_idx'])
        .where('client_id', '=', slot.clientId)
        .where('owner_uuid', '=', fromUuid)
        .where('meta_idx', '>', slot.metaIdx)
        .orderBy('meta_idx')
        .execute();
      for (const row of later) {
        await trx
          .updateTable('slots')
          .set({ meta_idx: Number(row.meta_idx) - 1, updated_at: now })
          .where('id', '=', row.id)
          .execute();
      }
      if (this.outbox) {
        await this.outbox.record(trx, {
          type: 'slot.transferred',
          clientId: slot.clientId,
          orderKey: `slot:${slot.id}`,
          at: now,
          data: {
            slot_id: slot.id,
            from_user_id: String(fromUuid),
            to_user_id: String(toUuid),
            ...(event.reason ? { reason: event.reason } : {}),
            ...(event.txHash ? { tx_hash: event.txHash } : {}),
          },
        });
      }
      return this.findById(id, trx);
    });
  }

  /** Sets the fields an import may correct on a slot this import created earlier. */
  async updateImported(
    id: string,
    fields: { tokenNickname: string; trCnt: number },
    trx: Db = this.db,
  ): Promise<void> {
    await trx
      .updateTable('slots')
      .set({ token_nickname: fields.tokenNickname, tr_cnt: fields.trCnt, updated_at: Date.now() })
      .where('id', '=', id)
      .where('imported', '=', 1)
      .execute();
  }
}
