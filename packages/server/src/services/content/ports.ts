import type { Address, Call, Hash } from '../../chain/types.js';

/**
 * What the content-token domain needs from the world outside it. The composition root plugs in the real
 * implementations (the content-token gateway over the operator wallet, the custody service, the OAuth
 * client and slot stores); nothing here imports viem or Kysely.
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

/**
 * The DauthContentToken contract as the domain sees it. Writes go through the platform operator wallet
 * and resolve after inclusion; failures are `AppError`s (503 `chain_unavailable` when nothing was sent,
 * `OperationOutcomeUnknownError` when a write may or may not have landed, 4xx when the contract refused).
 */
export interface ContentTokenChain {
  readonly contentToken: Address;
  registerProvider(input: {
    clientId: string;
    cuid: string;
    releasePer: number;
    ownerAddr: Address;
  }): Promise<ChainWrite>;
  setReleaseEnabled(cuid: string, enabled: boolean): Promise<ChainWrite>;
  /** `fundPool(cuid)` paid by the platform's operator wallet. */
  fundPool(cuid: string, amount: bigint): Promise<ChainWrite & { pool: bigint }>;
  release(cuid: string, slot: Address): Promise<ChainWrite & { usage: bigint; paid: bigint }>;
  /**
   * Sends the batch as one operator operation and resolves after inclusion with the transaction that
   * recorded it: this one, or an earlier one when the batch had already landed (a resend records nothing).
   */
  recordUsage(batch: UsageBatch): Promise<RecordedBatch>;
  /**
   * The transaction that recorded the batch, if any. `pending` tells that `txHint` still waits in the
   * node's pool, so the batch may land without being sent again.
   */
  findUsageBatch(
    batch: UsageBatch,
    txHint?: Hash,
  ): Promise<({ found: true } & RecordedBatch) | { found: false; pending: boolean }>;
  readSlot(cuid: string, slot: Address, blockNumber?: bigint): Promise<SlotFigures>;
  readProvider(cuid: string): Promise<ProviderOnChain | undefined>;
  releasable(cuid: string, slot: Address): Promise<{ usage: bigint; amount: bigint }>;
  treasury(): Promise<Address>;
  /** The call a wallet makes to buy `value` wei of `cuid` tokens for `slot`. */
  buyCall(cuid: string, slot: Address, value: bigint): Call;
  /** The `ContentTokenBought` figures of a confirmed purchase transaction. */
  purchaseOf(txHash: Hash, cuid: string, slot: Address): Promise<PurchaseOnChain & { blockNumber: bigint }>;
  blockNumber(): Promise<bigint>;
  /** Native balance of an address, in wei. */
  nativeBalance(address: Address): Promise<bigint>;
}

/** The PIN trio a user-wallet operation needs (decisions §4). */
export interface PinTrio {
  pinHash: string;
  pinSalt: string;
  keyShareUser: string;
}

/** Runs sponsored operations from a user's own main wallet (W_SALT); provided by PIN custody. */
export interface UserWalletExecutor {
  /** Missing trio → 401 `pin_required`; wrong PIN → 401 `invalid_pin`; locked → 423 `pin_locked`. */
  executeFromMainWallet(
    userUuid: number,
    pin: Partial<PinTrio>,
    calls: Call[],
  ): Promise<{ txHash: Hash; userOpHash?: Hash | undefined }>;
  /** The user's main wallet address, if the user has one. */
  mainWalletOf(userUuid: number): Promise<Address | undefined>;
}

/** OAuth clients, as far as content tokens care: who owns one. */
export interface ClientDirectory {
  ownerOf(clientId: string): Promise<number | undefined>;
}

export interface SlotView {
  id: string;
  clientId: string;
  ownerUuid: number;
  contentAddress: Address;
}

/** Slots, as far as content tokens care. */
export interface SlotDirectory {
  findById(slotId: string): Promise<SlotView | undefined>;
  findByContentAddress(address: Address): Promise<SlotView | undefined>;
}
