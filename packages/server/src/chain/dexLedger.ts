import { OperationReverted } from '../errors.js';
import type { ChainGateway } from './chainGateway.js';
import type { ContractCalls } from './contractCalls.js';
import type { OperatorWallet } from './operations/operatorWallet.js';
import type { Address, Call, Hash } from './types.js';

/** A slot write the dex recorded. */
export interface DexReceipt {
  txHash: Hash;
  userOpHash: Hash;
}

/**
 * The dex contract's slot records: reads through the gateway, writes as operations of the platform
 * operator wallet (the dex's `operator`). A refusal arrives as `OperationReverted` carrying the dex's
 * custom error (`SlotExists`, `NotSlotOwner`, `SameOwner`), whether the estimate saw it (nothing was
 * sent) or the mined operation did (its call reverted, nothing changed).
 */
export class DexLedger {
  constructor(
    private readonly gateway: Pick<ChainGateway, 'walletAddress' | 'slotOwner' | 'contracts'>,
    private readonly calls: Pick<ContractCalls, 'platform'>,
    private readonly operator: Pick<OperatorWallet, 'execute'>,
  ) {}

  /** The counterfactual content wallet of `ownerEoa` at C_SALT = `slotId` (factory `getAddress`). */
  /** The dex: first owner of every new content wallet, so the slot's recorded owner operates it. */
  get contentWalletOwner(): Address {
    return this.gateway.contracts.dex;
  }

  /** The content wallet of a new slot: C_SALT = `slotId`, first owner the dex. */
  async contentWalletAddress(slotId: bigint): Promise<Address> {
    return this.gateway.walletAddress(this.contentWalletOwner, slotId);
  }

  /** The wallet the dex records as the slot's owner; undefined when the slot does not exist on chain. */
  async ownerOf(slotId: bigint): Promise<Address | undefined> {
    return this.gateway.slotOwner(slotId);
  }

  /** `buy_slot(owner, slotId, contentAddress)`: records a new slot. */
  async buySlot(owner: Address, slotId: bigint, contentAddress: Address): Promise<DexReceipt> {
    return this.#write(this.calls.platform('dex', 'buy_slot', [owner, slotId, contentAddress]));
  }

  /** `init_self(from, slotId, to)`: moves a slot from its current owner wallet to another. */
  async moveSlot(from: Address, slotId: bigint, to: Address): Promise<DexReceipt> {
    return this.#write(this.calls.platform('dex', 'init_self', [from, slotId, to]));
  }

  async #write(call: Call): Promise<DexReceipt> {
    const result = await this.operator.execute([call]);
    if (!result.success) {
      throw OperationReverted.included(result, 'The dex refused the write');
    }
    return { txHash: result.txHash, userOpHash: result.userOpHash };
  }
}
