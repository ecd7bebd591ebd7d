import type { ChainGateway } from '../../chain/chainGateway.js';
import type { ContractCalls } from '../../chain/contractCalls.js';
import type { OperatorWallet } from '../../chain/operations/operatorWallet.js';
import type { OperationResult } from '../../chain/operations/pendingOperation.js';
import type { Address } from '../../chain/types.js';
import { AppError, conflict } from '../../errors.js';
import type { LedgerReceipt, SlotLedger } from './slotLedger.js';

/** The dex's refusals, by the custom error its revert decodes to. */
function refusal(reason: string): AppError | undefined {
  if (/^SlotExists/.test(reason)) return conflict('slot_exists', 'The dex already records this slot id');
  if (/^NotSlotOwner/.test(reason)) {
    return conflict('slot_owner_mismatch', 'On chain the slot is not owned by the from_uuid user’s wallet');
  }
  if (/^SameOwner/.test(reason)) return conflict('same_owner', 'The slot is already owned by that wallet');
  return undefined;
}

/**
 * `SlotLedger` over the chain layer: reads through the gateway, writes as operations of the
 * platform operator wallet (the dex's `operator`). A dex refusal, whether found by the estimate
 * (nothing sent) or in the mined operation (its call reverted, nothing changed), becomes a 409.
 */
export class DexSlotLedger implements SlotLedger {
  constructor(
    private readonly gateway: Pick<ChainGateway, 'walletAddress' | 'slotOwner'>,
    private readonly calls: Pick<ContractCalls, 'platform'>,
    private readonly operator: Pick<OperatorWallet, 'execute'>,
  ) {}

  async contentWalletAddress(ownerEoa: Address, slotId: bigint): Promise<Address> {
    return this.gateway.walletAddress(ownerEoa, slotId);
  }

  async ownerOf(slotId: bigint): Promise<Address | undefined> {
    return this.gateway.slotOwner(slotId);
  }

  async buySlot(owner: Address, slotId: bigint, contentAddress: Address): Promise<LedgerReceipt> {
    return this.#write(() =>
      this.operator.execute([this.calls.platform('dex', 'buy_slot', [owner, slotId, contentAddress])]),
    );
  }

  async moveSlot(from: Address, slotId: bigint, to: Address): Promise<LedgerReceipt> {
    return this.#write(() =>
      this.operator.execute([this.calls.platform('dex', 'init_self', [from, slotId, to])]),
    );
  }

  async #write(send: () => Promise<OperationResult>): Promise<LedgerReceipt> {
    let result: OperationResult;
    try {
      result = await send();
    } catch (err) {
      // Seen by the estimate: the call would revert, and nothing was sent.
      const reason = err instanceof AppError ? err.details?.revert_reason : undefined;
      throw (typeof reason === 'string' && refusal(reason)) || err;
    }
    if (!result.success) {
      const reason = result.revertReason ?? 'no reason';
      throw (
        refusal(reason) ??
        new AppError(422, 'operation_reverted', `The dex refused the write: ${reason}`, {
          revert_reason: reason,
          tx_hash: result.txHash,
        })
      );
    }
    return { txHash: result.txHash, userOpHash: result.userOpHash };
  }
}
