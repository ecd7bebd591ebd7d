import type { Address, Hash, Hex } from '../types.js';

/** Where a journaled transaction landed. */
export interface JournalInclusion {
  blockNumber: bigint;
  blockHash: Hash;
  /** Seconds, as in the block header. */
  blockTimestamp: bigint;
  txIndex: number;
}

/**
 * `lost`: it was mined (and answered as such), then a reorg or a node restart took its block away; it is sent
 * again every journal round until the chain holds it again (then `mined`), and never compacted meanwhile.
 */
export type JournalState = 'sent' | 'mined' | 'dropped' | 'lost';

export interface JournalEntry {
  hash: Hash;
  chainId: number;
  /** Send order. */
  seq: number;
  sender: Address;
  nonce: number;
  /** The signed transaction, byte for byte as it was sent. */
  raw: Hex;
  state: JournalState;
  inclusion: JournalInclusion | undefined;
  createdAt: number;
}

export interface NewJournalEntry {
  hash: Hash;
  chainId: number;
  seq: number;
  sender: Address;
  nonce: number;
  raw: Hex;
}

/**
 * The durable record of every transaction the service signs (docs/chain.md, "Durability"). `record` must be
 * on disk when it resolves: the transaction is sent only afterwards.
 */
export interface TransactionJournal {
  /** Records a transaction before it is sent (a second record of the same hash changes nothing). */
  record(entry: NewJournalEntry): Promise<void>;
  markMined(hash: Hash, inclusion: JournalInclusion): Promise<void>;
  markDropped(hashes: readonly Hash[]): Promise<void>;
  /** Mined entries whose block the chain no longer has: `lost`, their inclusion forgotten. */
  markLost(hashes: readonly Hash[]): Promise<void>;
  /** Every entry of `chainId` that is not dropped, in send order. */
  entries(chainId: number): Promise<JournalEntry[]>;
  /** Entries still `sent` or `lost` (not on the chain as far as the journal knows), in send order. */
  unsettled(chainId: number): Promise<JournalEntry[]>;
  /** Deletes mined entries at or below `blockNumber` created before `createdBefore`, and dropped ones; returns how many. */
  compact(chainId: number, blockNumber: bigint, createdBefore: number): Promise<number>;
}

/** The switch-off: nothing is recorded (benchmarks measure the journal's cost against it). */
export class NoJournal implements TransactionJournal {
  async record(): Promise<void> {}
  async markMined(): Promise<void> {}
  async markDropped(): Promise<void> {}
  async markLost(): Promise<void> {}
  async entries(): Promise<JournalEntry[]> {
    return [];
  }
  async unsettled(): Promise<JournalEntry[]> {
    return [];
  }
  async compact(): Promise<number> {
    return 0;
  }
}
