import type { Db } from '../db/database.js';
import { affected } from './kyselyResults.js';

type Hex = `0x${string}`;

export interface UserOperationJournalTable {
  user_op_hash: string;
  chain_id: number;
  sender: string;
  nonce: string;
  operation: string;
  valid_until: number;
  state: 'sent' | 'included' | 'dropped';
  tx_hash: string | null;
  block_number: number | null;
  created_at: number;
  updated_at: number;
}

declare module '../db/database.js' {
  interface Database {
    user_operation_journal: UserOperationJournalTable;
  }
}

/** A signed user operation about to go to an external bundler. */
export interface NewUserOperationEntry {
  userOpHash: Hex;
  chainId: number;
  sender: Hex;
  nonce: bigint;
  /** The signed operation as ERC-4337 JSON-RPC carries it (hex fields). */
  operation: Record<string, Hex>;
  /** Unix seconds: the paymaster's validUntil. */
  validUntil: number;
}

export interface UserOperationEntry extends NewUserOperationEntry {
  state: 'sent' | 'included' | 'dropped';
  txHash: Hex | undefined;
  blockNumber: bigint | undefined;
  createdAt: number;
}

const toEntry = (r: UserOperationJournalTable): UserOperationEntry => ({
  userOpHash: r.user_op_hash as Hex,
  chainId: Number(r.chain_id),
  sender: r.sender as Hex,
  nonce: BigInt(r.nonce),
  operation: JSON.parse(r.operation) as Record<string, Hex>,
  validUntil: Number(r.valid_until),
  state: r.state,
  txHash: (r.tx_hash ?? undefined) as Hex | undefined,
  blockNumber: r.block_number === null ? undefined : BigInt(r.block_number),
  createdAt: Number(r.created_at),
});

/**
 * The journal of user operations sent to an independent bundler (`chain/operations/externalBundler.ts`):
 * written before each `eth_sendUserOperation`, settled when the operation is seen included or can no longer
 * be. A state only moves forward from `sent` (conditional updates), so two replicas settling the same entry
 * agree; the one way back is `markReorged` (a reorg took the included operation out of the chain), conditional
 * on the inclusion it undoes.
 */
export class UserOperationJournalStore {
  constructor(private readonly db: Db) {}

  /** Records `e` as sent; recording the same userOpHash again changes nothing. */
  async record(e: NewUserOperationEntry): Promise<void> {
    const now = Date.now();
    await this.db
      .insertInto('user_operation_journal')
      .values({
        user_op_hash: e.userOpHash.toLowerCase(),
        chain_id: e.chainId,
        sender: e.sender,
        nonce: e.nonce.toString(),
        operation: JSON.stringify(e.operation),
        valid_until: e.validUntil,
        state: 'sent',
        tx_hash: null,
        block_number: null,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.column('user_op_hash').doNothing())
      .execute();
  }

  /** The operation is in a block. True when this call settled it. */
  async markIncluded(userOpHash: Hex, inclusion: { txHash: Hex; blockNumber: bigint }): Promise<boolean> {
    const result = await this.db
      .updateTable('user_operation_journal')
      .set({
        state: 'included',
        tx_hash: inclusion.txHash,
        block_number: Number(inclusion.blockNumber),
        updated_at: Date.now(),
      })
      .where('user_op_hash', '=', userOpHash.toLowerCase())
      .where('state', '=', 'sent')
      .executeTakeFirst();
    return affected(result) > 0;
  }

  /**
   * A reorg took the operation's bundle out of the chain: `included` back to `sent`, its inclusion cleared.
   * Conditional on the inclusion being `txHash` still, so of two replicas that saw the same reorg one alone
   * sends it again. True when this call moved it.
   */
  async markReorged(userOpHash: Hex, txHash: Hex): Promise<boolean> {
    const result = await this.db
      .updateTable('user_operation_journal')
      .set({ state: 'sent', tx_hash: null, block_number: null, updated_at: Date.now() })
      .where('user_op_hash', '=', userOpHash.toLowerCase())
      .where('state', '=', 'included')
      .where('tx_hash', '=', txHash)
      .executeTakeFirst();
    return affected(result) > 0;
  }

  /** The operation never ran and never will (refused, expired, or its nonce went to another). */
  async markDropped(userOpHash: Hex): Promise<boolean> {
    const result = await this.db
      .updateTable('user_operation_journal')
      .set({ state: 'dropped', updated_at: Date.now() })
      .where('user_op_hash', '=', userOpHash.toLowerCase())
      .where('state', '=', 'sent')
      .executeTakeFirst();
    return affected(result) > 0;
  }

  async get(userOpHash: Hex): Promise<UserOperationEntry | undefined> {
    const row = await this.db
      .selectFrom('user_operation_journal')
      .selectAll()
      .where('user_op_hash', '=', userOpHash.toLowerCase())
      .executeTakeFirst();
    return row ? toEntry(row) : undefined;
  }

  /** Entries of `chainId` still `sent`, oldest first. */
  async open(chainId: number): Promise<UserOperationEntry[]> {
    const rows = await this.db
      .selectFrom('user_operation_journal')
      .selectAll()
      .where('chain_id', '=', chainId)
      .where('state', '=', 'sent')
      .orderBy('created_at')
      .orderBy('user_op_hash')
      .execute();
    return rows.map(toEntry);
  }

  /** Entries of `chainId` included in block `fromBlock` or later (the reorg watch's window), oldest block first. */
  async includedSince(chainId: number, fromBlock: bigint): Promise<UserOperationEntry[]> {
    const rows = await this.db
      .selectFrom('user_operation_journal')
      .selectAll()
      .where('chain_id', '=', chainId)
      .where('state', '=', 'included')
      .where('block_number', '>=', Number(fromBlock))
      .orderBy('block_number')
      .orderBy('user_op_hash')
      .execute();
    return rows.map(toEntry);
  }

  /** Deletes settled entries last changed before `before` (ms). */
  async compact(before: number): Promise<number> {
    const result = await this.db
      .deleteFrom('user_operation_journal')
      .where('state', '!=', 'sent')
      .where('updated_at', '<', before)
      .executeTakeFirst();
    return affected(result);
  }
}
