import type { OperationOwner } from '../../chain/operations/operationOwner.js';
import type { OperationResult } from '../../chain/operations/pendingOperation.js';
import type { Address, Call, Hash, Hex } from '../../chain/types.js';

export type { Address, Call, Hash, Hex, OperationOwner, OperationResult };

/** What an operation does: wallet calls (`execute`/`executeBatch`) or raw call data (`changeOwner`). */
export type OperationAction = { calls: Call[] } | { callData: Hex };

/** The wallet an operation is sent from, as the wallets table records it. */
export interface WalletRef {
  address: Address;
  /** The owner the CREATE2 address came from; with `salt` it makes the initCode of an undeployed wallet. */
  initialOwner: Address;
  salt: bigint;
  deployed: boolean;
}

/**
 * What PIN custody and transfers need from the chain, as a port (implemented over the chain
 * engineer's gateway and operation pipeline in `composition/custody.ts`). Failures arrive as
 * `AppError`s: 503 `chain_unavailable` when nothing was sent, `OperationOutcomeUnknownError` (503)
 * when it may have been.
 */
export interface WalletChain {
  /** Counterfactual address `factory.getAddress(owner, salt)`, computed off-chain. */
  walletAddress(owner: Address, salt: bigint): Promise<Address>;
  /** The wallet's on-chain `owner()`, or undefined while it is not deployed. */
  ownerOf(wallet: Address): Promise<Address | undefined>;
  /** True when `address` holds contract code. */
  hasCode(address: Address): Promise<boolean>;
  /**
   * One sponsored operation from `wallet` (initCode when undeployed) signed by `owner`; `forApp`: the app
   * it is made for (a login JWT bound to it), whose sponsorship policy applies too.
   */
  submit(
    wallet: WalletRef,
    action: OperationAction,
    owner: OperationOwner,
    options?: { forApp?: string | undefined },
  ): Promise<OperationResult>;
  /** Operation call data `changeOwner(newOwner)`, which the EntryPoint calls on the wallet directly. */
  changeOwnerCallData(newOwner: Address): Hex;
  /** The call `token.transfer(to, amount)`. */
  erc20TransferCall(token: Address, to: Address, amount: bigint): Call;
  /** The dex: owner of every slot content wallet (new ones from birth, legacy ones once handed over). */
  readonly dex: Address;
  /**
   * The main-wallet calls that make the content wallet of `slotId` run `calls` through
   * `dex.executeFromSlot`, preceded by its deployment (`factory.createAccount(dex, slotId)`) when `deploy`.
   */
  contentWalletCalls(slotId: bigint, contentWallet: Address, deploy: boolean, calls: Call[]): Call[];
}
