import type { Address, Hash } from './types.js';

/**
 * What the DauthContentToken gateway reads and writes, in the chain layer's own terms. The content
 * services' port (`services/content/ports.ts`) is written in these types, so the gateway fits it without
 * knowing it exists.
 */

/** A confirmed chain write. */
export interface ChainWrite {
  txHash: Hash;
  blockNumber: bigint;
  userOpHash?: Hash | undefined;
}

/** One `recordUsage(cuid, slots, amounts)` call of a batch. */
export interface UsageGroup {
  cuid: string;
  slots: Address[];
  amounts: bigint[];
}

/** One `UsageRecorded` event: the slot's figures right after that record. */
export interface RecordedUsage {
  cuidHash: Hash;
  slot: Address;
  amount: bigint;
  balance: bigint;
  used: bigint;
}

/**
 * A batch of consumption records, sent as one operator operation (one `recordUsage` call per group). Its id
 * names it on chain: however often it is sent, the contract records it once.
 */
export interface UsageBatch {
  id: string;
  /** A block at or before the batch was first sent: its transaction cannot be in an earlier one. */
  fromBlock: bigint;
  /** The batch's calls, in order. */
  groups: UsageGroup[];
  /**
   * The operator wallet's EntryPoint nonce key to send it under (2-D nonces): batches under different keys
   * are in flight together. Any key will do for a resend: the contract records a batch key once.
   */
  nonceKey?: bigint;
}

/** A batch found on chain: its transaction and its `UsageRecorded` events in record order. */
export interface RecordedBatch {
  write: ChainWrite;
  events: RecordedUsage[];
}

export interface ProviderOnChain {
  clientId: string;
  ownerAddr: Address;
  releasePer: number;
  releaseEnabled: boolean;
  pool: bigint;
}

export interface SlotFigures {
  balance: bigint;
  used: bigint;
  blockNumber: bigint;
}

export interface PurchaseOnChain {
  amount: bigint;
  platformFee: bigint;
  providerAmount: bigint;
}

/** A purchase found in the chain's logs (not from a receipt the caller holds). */
export interface FoundPurchase extends PurchaseOnChain {
  txHash: Hash;
  blockNumber: bigint;
  logIndex: number;
}

/** A release found in the chain's logs. */
export interface FoundRelease {
  txHash: Hash;
  blockNumber: bigint;
  logIndex: number;
  usage: bigint;
  /** Wei paid to the provider's owner address. */
  paid: bigint;
}
