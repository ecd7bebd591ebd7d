import type { Address, Hash } from '../../chain/types.js';
import { conflict, OperationReverted } from '../../errors.js';

/** What the chain answered for a slot write sent through the platform operator wallet. */
export interface LedgerReceipt {
  txHash: Hash;
  userOpHash: Hash;
}

/**
 * The slots' view of the chain: the dex contract, written by the platform operator wallet, is the
 * only source of truth for slot ownership (spec, Account hierarchy). Implementations translate
 * failures at the gateway boundary: `chain_unavailable` (503) when nothing was sent,
 * `OperationOutcomeUnknownError` (503) when a write may or may not have landed, a 409 (`slotRefusal`)
 * when the dex refused the write for a reason the slots domain names, and `OperationReverted` (422)
 * for any other refusal.
 */
export interface SlotLedger {
  /**
   * The content wallet of a new slot: the wallet at C_SALT = `slotId` whose first owner is the dex
   * (`contentWalletOwner`), so whoever the dex records as the slot's owner operates it, and no key
   * has to change hands when the slot does.
   */
  contentWalletAddress(slotId: bigint): Promise<Address>;
  /** The dex: first owner of every new content wallet. */
  readonly contentWalletOwner: Address;
  /** The wallet the dex records as the slot's owner; undefined when the slot does not exist on chain. */
  ownerOf(slotId: bigint): Promise<Address | undefined>;
  /** `buy_slot(owner, slotId, contentAddress)`: records a new slot. */
  buySlot(owner: Address, slotId: bigint, contentAddress: Address): Promise<LedgerReceipt>;
  /** `init_self(from, slotId, to)`: moves a slot from its current owner wallet to another. */
  moveSlot(from: Address, slotId: bigint, to: Address): Promise<LedgerReceipt>;
}

/**
 * What a dex refusal means to the slots domain, by the custom error its revert names; any other error
 * is returned unchanged. The adapter behind `SlotLedger` applies it to every write.
 */
export function slotRefusal(err: unknown): unknown {
  if (!(err instanceof OperationReverted)) return err;
  switch (err.revert.name) {
    case 'SlotExists':
      return conflict('slot_exists', 'The dex already records this slot id');
    case 'NotSlotOwner':
      return conflict('slot_owner_mismatch', 'On chain the slot is not owned by the from_uuid user’s wallet');
    case 'SameOwner':
      return conflict('same_owner', 'The slot is already owned by that wallet');
    default:
      return err;
  }
}
