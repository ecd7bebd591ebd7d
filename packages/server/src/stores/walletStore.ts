import type { Db } from '../db/database.js';
import { affected } from './kyselyResults.js';

export type Address = `0x${string}`;
/**
 * `main`: a user's wallet (W_SALT). `content`: a slot's content wallet owned by the dex (operated by
 * whoever owns the slot, through the dex; in nobody's key custody). `slot`: a content wallet made
 * before that, still owned by its first owner's EOA until custody hands it to the dex.
 */
export type WalletKind = 'main' | 'slot' | 'content';

export interface WalletsTable {
  address: string;
  user_uuid: number;
  kind: WalletKind;
  salt: string;
  initial_owner: string;
  owner: string;
  deployed: number;
  created_at: number;
}

declare module '../db/database.js' {
  interface Database {
    wallets: WalletsTable;
  }
}

export interface Wallet {
  address: Address;
  userUuid: number;
  kind: WalletKind;
  salt: bigint;
  /** The owner the CREATE2 address was derived from (initCode needs it to deploy). */
  initialOwner: Address;
  /** The current owner EOA, as last recorded. */
  owner: Address;
  deployed: boolean;
  createdAt: number;
}

const toWallet = (r: WalletsTable): Wallet => ({
  address: r.address as Address,
  userUuid: Number(r.user_uuid),
  kind: r.kind,
  salt: BigInt(r.salt),
  initialOwner: r.initial_owner as Address,
  owner: r.owner as Address,
  deployed: Number(r.deployed) === 1,
  createdAt: Number(r.created_at),
});

/**
 * The wallets table, shared by PIN custody (main wallets, owner rotation) and slots (content
 * wallets). Methods accept an optional transaction so callers can make multi-table steps atomic.
 */
export class WalletStore {
  constructor(private readonly db: Db) {}

  async insert(wallet: Wallet, trx: Db = this.db): Promise<void> {
    await trx
      .insertInto('wallets')
      .values({
        address: wallet.address,
        user_uuid: wallet.userUuid,
        kind: wallet.kind,
        salt: wallet.salt.toString(),
        initial_owner: wallet.initialOwner,
        owner: wallet.owner,
        deployed: wallet.deployed ? 1 : 0,
        created_at: wallet.createdAt,
      })
      .execute();
  }

  async findByAddress(address: string, trx: Db = this.db): Promise<Wallet | undefined> {
    const row = await trx.selectFrom('wallets').selectAll().where('address', '=', address).executeTakeFirst();
    return row ? toWallet(row) : undefined;
  }

  async mainWallet(userUuid: number, trx: Db = this.db): Promise<Wallet | undefined> {
    const row = await trx
      .selectFrom('wallets')
      .selectAll()
      .where('user_uuid', '=', userUuid)
      .where('kind', '=', 'main')
      .executeTakeFirst();
    return row ? toWallet(row) : undefined;
  }

  /** The wallets the user's owner key controls (`content` wallets are the dex's, not theirs). */
  async listForUser(userUuid: number, trx: Db = this.db): Promise<Wallet[]> {
    const rows = await trx
      .selectFrom('wallets')
      .selectAll()
      .where('user_uuid', '=', userUuid)
      .where('kind', '!=', 'content')
      .orderBy('created_at')
      .execute();
    return rows.map(toWallet);
  }

  async markDeployed(address: Address, trx: Db = this.db): Promise<void> {
    await trx.updateTable('wallets').set({ deployed: 1 }).where('address', '=', address).execute();
  }

  /** Records a new owner for every wallet of the user (after an on-chain `changeOwner`). */
  async setOwnerForUser(userUuid: number, owner: Address, trx: Db = this.db): Promise<void> {
    await trx
      .updateTable('wallets')
      .set({ owner })
      .where('user_uuid', '=', userUuid)
      .where('kind', '!=', 'content')
      .execute();
  }

  /** Content wallets still owned by the user's EOA (made before content wallets were the dex's). */
  async legacyContentWallets(userUuid: number, trx: Db = this.db): Promise<Wallet[]> {
    const rows = await trx
      .selectFrom('wallets')
      .selectAll()
      .where('user_uuid', '=', userUuid)
      .where('kind', '=', 'slot')
      .execute();
    return rows.map(toWallet);
  }

  /** Records that a legacy content wallet now belongs to the dex (after its `changeOwner(dex)`). */
  async markHandedToDex(address: Address, dex: Address, trx: Db = this.db): Promise<boolean> {
    const result = await trx
      .updateTable('wallets')
      .set({ kind: 'content', owner: dex, deployed: 1 })
      .where('address', '=', address)
      .where('kind', '=', 'slot')
      .executeTakeFirst();
    return affected(result) === 1;
  }
}
