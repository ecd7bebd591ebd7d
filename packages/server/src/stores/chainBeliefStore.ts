import type { Db } from '../db/database.js';

/** What the database believes the chain holds (read by the consistency check after a recovery). */
export interface WalletBelief {
  address: string;
}
export interface SlotBelief {
  slotId: string;
  /** The owner's main wallet: the dex's `ownerOf(slot)`. */
  ownerWallet: string;
}
export interface ContentBelief {
  cuid: string;
  slot: string;
  balance: bigint;
  used: bigint;
}

/**
 * Read-only queries over other domains' tables for the chain consistency check: deployed wallets, active
 * slots with their owner's main wallet, and content balances with nothing reserved (settled figures).
 * Each list is bounded: a check must not hold up a large installation.
 */
export class ChainBeliefStore {
  constructor(private readonly db: Db) {}

  async deployedWallets(limit: number): Promise<WalletBelief[]> {
    const rows = await this.db
      .selectFrom('wallets')
      .select('address')
      .where('deployed', '=', 1)
      .orderBy('created_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ address: r.address }));
  }

  async activeSlots(limit: number): Promise<SlotBelief[]> {
    const rows = await this.db
      .selectFrom('slots')
      .innerJoin('wallets', (join) =>
        join.onRef('wallets.user_uuid', '=', 'slots.owner_uuid').on('wallets.kind', '=', 'main'),
      )
      .select(['slots.id as id', 'wallets.address as wallet'])
      .where('slots.state', '=', 'active')
      .orderBy('slots.updated_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ slotId: r.id, ownerWallet: r.wallet }));
  }

  async settledContentBalances(limit: number): Promise<ContentBelief[]> {
    const rows = await this.db
      .selectFrom('content_balances')
      .select(['cuid', 'slot', 'chain_balance', 'chain_used', 'reserved'])
      .where('reserved', '=', '0')
      .orderBy('updated_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      cuid: r.cuid,
      slot: r.slot,
      balance: BigInt(r.chain_balance),
      used: BigInt(r.chain_used),
    }));
  }
}
