import type {
  ChainWrite,
  ProviderOnChain,
  PurchaseOnChain,
  RecordedBatch,
  SlotFigures,
  UsageBatch,
} from '../../chain/contentTokenTypes.js';
import type { Address, Call, Hash } from '../../chain/types.js';
import type { ChainEventFinder } from '../webhooks/chainEventIntents.js';

export type {
  ChainWrite,
  ProviderOnChain,
  PurchaseOnChain,
  RecordedBatch,
  RecordedUsage,
  SlotFigures,
  UsageBatch,
  UsageGroup,
} from '../../chain/contentTokenTypes.js';

/**
 * What the content-token domain needs from the world outside it. The composition root plugs in the real
 * implementations (the content-token gateway over the operator wallet, the custody service, the OAuth
 * client and slot services); nothing here imports viem or Kysely. The chain values are the chain layer's
 * own types (`chain/contentTokenTypes.ts`), re-exported for the services.
 */

/**
 * The DauthContentToken contract as the domain sees it. Writes go through the platform operator wallet
 * and resolve after inclusion; failures are `AppError`s (503 `chain_unavailable` when nothing was sent,
 * `OperationOutcomeUnknownError` when a write may or may not have landed, `OperationReverted` when the
 * contract refused: its `revert.name` is the contract's custom error). Its log queries
 * (`ChainEventFinder`) also serve the recovery of `content.purchased` / `content.released` after a crash
 * (docs/webhooks.md).
 */
export interface ContentTokenChain extends ChainEventFinder {
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
  /** `logIndex`: the `Released` event's, which names the change (webhook intents). */
  release(
    cuid: string,
    slot: Address,
  ): Promise<ChainWrite & { usage: bigint; paid: bigint; logIndex: number }>;
  /**
   * `amendTerms` on chain: settles the given slots' unsettled usage at the terms in force, then applies the
   * new ones; reverts with `UnsettledUsage` when usage outside `settle` is still unsettled (usage that
   * landed after the caller read), so usage recorded before a change is never paid at the new terms.
   */
  amendTerms(input: {
    cuid: string;
    releasePer: number;
    ownerAddr: Address;
    settle: Address[];
  }): Promise<ChainWrite & { paid: bigint }>;
  /** `settle` on chain: the given slots' unsettled usage paid at the terms in force (none: no error). */
  settle(cuid: string, slots: Address[]): Promise<ChainWrite & { paid: bigint }>;
  /** Usage of the cuid recorded and not yet settled, all slots together. */
  unsettledUsage(cuid: string): Promise<bigint>;
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
  /** `logIndex`: the `ContentTokenBought` event's, which names the purchase (webhook intents). */
  purchaseOf(
    txHash: Hash,
    cuid: string,
    slot: Address,
  ): Promise<PurchaseOnChain & { blockNumber: bigint; logIndex: number }>;
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
