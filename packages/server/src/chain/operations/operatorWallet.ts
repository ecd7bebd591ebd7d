import type { Address, Call } from '../types.js';
import type { OperationOwner } from './operationOwner.js';
import type { OperationPipeline } from './operationPipeline.js';
import type { OperationResult } from './pendingOperation.js';

/** Salt of the platform operator wallet (the operator owner's main wallet). */
export const OPERATOR_WALLET_SALT = 0n;

/**
 * The platform's operator wallet: a DauthAccount owned by the operator-owner key, wired into the dex and
 * the content-token contract as their `operator` at deployment. Everything the platform itself writes
 * (`buy_slot`, `init_self`, provider registration, usage records, releases) goes through it, as a
 * sponsored operation in the same bundles as users' operations.
 */
export class OperatorWallet {
  readonly address: Address;

  constructor(
    private readonly pipeline: OperationPipeline,
    private readonly owner: OperationOwner,
  ) {
    this.address = pipeline.walletAddress(owner.address, OPERATOR_WALLET_SALT);
  }

  /**
   * Runs `calls` from the operator wallet (several calls: all or nothing) and returns the operation's result.
   * `nonceKey`: the EntryPoint nonce key to send under (usage batches use keys of their own, so several are
   * in flight at once and share blocks; everything else uses key 0).
   */
  execute(
    calls: readonly Call[],
    options: { callGasLimit?: bigint; nonceKey?: bigint } = {},
  ): Promise<OperationResult> {
    return this.pipeline.submitOperation({
      owner: this.owner,
      salt: OPERATOR_WALLET_SALT,
      calls,
      ...(options.callGasLimit !== undefined ? { callGasLimit: options.callGasLimit } : {}),
      ...(options.nonceKey !== undefined ? { nonceKey: options.nonceKey } : {}),
    });
  }
}
