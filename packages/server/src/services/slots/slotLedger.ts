import type { Address, Hash } from '../../chain/types.js';

/** What the chain answered for a slot write sent through the platform operator wallet. */
export interface LedgerReceipt {
  txHash: Hash;
  userOpHash: Hash;
}

/**
 * The slots' view of the chain: the dex contract, written by the platform operator wallet, is the
 * only source of truth for slot ownership (spec, Account hierarchy). Implementations translate
 * failures at the gateway boundary: `chain_unavailable` (503) when nothing was sent,
 * `OperationOutcomeUnknownError` (503) when a write may or may not have landed, and a 4xx
 * `AppError` when the dex refused the write.
 */
export interface SlotLedger {
  /** The counterfactual content wallet of `ownerEoa` at C_SALT = `slotId` (factory `getAddress`). */
  contentWalletAddress(ownerEoa: Address, slotId: bigint): Promise<Address>;
  /** The wallet the dex records as the slot's owner; undefined when the slot does not exist on chain. */
  ownerOf(slotId: bigint): Promise<Address | undefined>;
  /** `buy_slot(owner, slotId, contentAddress)`: records a new slot. */
  buySlot(owner: Address, slotId: bigint, contentAddress: Address): Promise<LedgerReceipt>;
  /** `init_self(from, slotId, to)`: moves a slot from its current owner wallet to another. */
  moveSlot(from: Address, slotId: bigint, to: Address): Promise<LedgerReceipt>;
}

/** Compares two addresses regardless of checksum casing. */
export const sameAddress = (a: string | undefined, b: string | undefined): boolean =>
  a !== undefined && b !== undefined && a.toLowerCase() === b.toLowerCase();

/**
 * True when a chain write may have landed although no receipt came back (the gateway's
 * `OperationOutcomeUnknownError`): the caller must neither record it as done nor as failed.
 */
export const isOutcomeUnknown = (err: unknown): boolean =>
  err instanceof Error && err.name === 'OperationOutcomeUnknownError';
