import type { Db } from '../db/database.js';
import { isUniqueViolation } from './slotStore.js';
import { affected } from './kyselyResults.js';
import type { WebhookOutbox } from './webhookStore.js';

/** `active` (on offer) → `pending` (claimed by one buyer; chain step in flight) → `sold`; or `cancelled`. */
export type ListingStatus = 'active' | 'pending' | 'sold' | 'cancelled';

export interface MarketListingsTable {
  id: string;
  slot_id: string;
  client_id: string;
  seller_uuid: number;
  price: string;
  status: ListingStatus;
  buyer_uuid: number | null;
  tx_hash: string | null;
  /** How the price was settled: `onchain` (paid in the sale's operation), `not_collected` (sales before 0060). */
  payment: string | null;
  user_op_hash: string | null;
  created_at: number;
  updated_at: number;
}

declare module '../db/database.js' {
  interface Database {
    market_listings: MarketListingsTable;
  }
}

export interface Listing {
  id: string;
  slotId: string;
  clientId: string;
  sellerUuid: number;
  /** Wei, as a decimal string. */
  price: string;
  status: ListingStatus;
  buyerUuid: number | undefined;
  txHash: string | undefined;
  /** `onchain` once sold by this service; `not_collected` for sales before payment was collected. */
  payment: string | undefined;
  createdAt: number;
  updatedAt: number;
  /** The listed slot was imported (its id is then written as a JSON string). */
  slotImported: boolean;
}

const toListing = (r: MarketListingsTable & { slot_imported: number | null }): Listing => ({
  id: r.id,
  slotId: r.slot_id,
  clientId: r.client_id,
  sellerUuid: Number(r.seller_uuid),
  price: r.price,
  status: r.status,
  buyerUuid: r.buyer_uuid === null ? undefined : Number(r.buyer_uuid),
  txHash: r.tx_hash ?? undefined,
  payment: r.payment ?? undefined,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
  slotImported: Number(r.slot_imported ?? 0) === 1,
});

export class MarketStore {
  /** `outbox`: a sale writes `market.listing.sold` in its transaction. */
  constructor(
    private readonly db: Db,
    private readonly outbox?: WebhookOutbox,
  ) {}

  /** Inserts an active listing; false when the slot already has an open (active or pending) listing. */
  async insert(
    listing: Omit<Listing, 'status' | 'buyerUuid' | 'txHash' | 'payment' | 'updatedAt' | 'slotImported'>,
  ): Promise<boolean> {
    try {
      await this.db
        .insertInto('market_listings')
        .values({
          id: listing.id,
          slot_id: listing.slotId,
          client_id: listing.clientId,
          seller_uuid: listing.sellerUuid,
          price: listing.price,
          status: 'active',
          buyer_uuid: null,
          tx_hash: null,
          payment: null,
          user_op_hash: null,
          created_at: listing.createdAt,
          updated_at: listing.createdAt,
        })
        .execute();
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  #select() {
    return this.db
      .selectFrom('market_listings')
      .leftJoin('slots', 'slots.id', 'market_listings.slot_id')
      .selectAll('market_listings')
      .select('slots.imported as slot_imported');
  }

  async find(id: string): Promise<Listing | undefined> {
    const row = await this.#select().where('market_listings.id', '=', id).executeTakeFirst();
    return row ? toListing(row) : undefined;
  }

  /** Listings by status (default: on offer), newest first, optionally of one app. */
  async list(filter: { status?: ListingStatus; clientId?: string; limit: number }): Promise<Listing[]> {
    let query = this.#select().where('market_listings.status', '=', filter.status ?? 'active');
    if (filter.clientId !== undefined) query = query.where('market_listings.client_id', '=', filter.clientId);
    const rows = await query
      .orderBy('market_listings.created_at', 'desc')
      .orderBy('market_listings.id')
      .limit(filter.limit)
      .execute();
    return rows.map(toListing);
  }

  /** The one conditional UPDATE that decides which of several concurrent buyers gets the listing. */
  async claim(id: string, buyerUuid: number): Promise<boolean> {
    const result = await this.db
      .updateTable('market_listings')
      .set({ status: 'pending', buyer_uuid: buyerUuid, updated_at: Date.now() })
      .where('id', '=', id)
      .where('status', '=', 'active')
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** Puts a claimed listing back on offer (the transfer failed). */
  async release(id: string, buyerUuid: number): Promise<boolean> {
    const result = await this.db
      .updateTable('market_listings')
      .set({ status: 'active', buyer_uuid: null, updated_at: Date.now() })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where('buyer_uuid', '=', buyerUuid)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** `payment`: `onchain` when the sale's operation paid the price (the hashes are then known). */
  async markSold(
    id: string,
    buyerUuid: number,
    sale: { txHash: string; userOpHash?: string | undefined; payment: 'onchain' },
    trx?: Db,
  ): Promise<boolean> {
    if (trx) return this.#markSold(trx, id, buyerUuid, sale);
    if (!this.outbox) return this.#markSold(this.db, id, buyerUuid, sale);
    return this.db.transaction().execute((t) => this.#markSold(t, id, buyerUuid, sale));
  }

  /** The sale, and with an outbox `market.listing.sold` (with its price) in the same transaction. */
  async #markSold(
    trx: Db,
    id: string,
    buyerUuid: number,
    sale: { txHash: string; userOpHash?: string | undefined; payment: 'onchain' },
  ): Promise<boolean> {
    const result = await trx
      .updateTable('market_listings')
      .set({
        status: 'sold',
        tx_hash: sale.txHash,
        user_op_hash: sale.userOpHash ?? null,
        payment: sale.payment,
        updated_at: Date.now(),
      })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where('buyer_uuid', '=', buyerUuid)
      .executeTakeFirst();
    if (affected(result) !== 1) return false;
    if (this.outbox) {
      const row = await trx
        .selectFrom('market_listings')
        .select(['slot_id', 'client_id', 'seller_uuid', 'price'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      await this.outbox.record(trx, {
        type: 'market.listing.sold',
        clientId: row.client_id,
        orderKey: `slot:${row.slot_id}`,
        data: {
          listing_id: id,
          slot_id: row.slot_id,
          seller_user_id: String(row.seller_uuid),
          buyer_user_id: String(buyerUuid),
          price: String(row.price),
          ...(sale.txHash ? { tx_hash: sale.txHash } : {}),
        },
      });
    }
    return true;
  }

  /** Withdraws an active listing of this seller. */
  async cancel(id: string, sellerUuid: number): Promise<boolean> {
    const result = await this.db
      .updateTable('market_listings')
      .set({ status: 'cancelled', updated_at: Date.now() })
      .where('id', '=', id)
      .where('status', '=', 'active')
      .where('seller_uuid', '=', sellerUuid)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** Cancels every active listing of a slot (it changed owner outside the marketplace). */
  async cancelForSlot(slotId: string): Promise<number> {
    const result = await this.db
      .updateTable('market_listings')
      .set({ status: 'cancelled', updated_at: Date.now() })
      .where('slot_id', '=', slotId)
      .where('status', '=', 'active')
      .executeTakeFirst();
    return affected(result);
  }
}
