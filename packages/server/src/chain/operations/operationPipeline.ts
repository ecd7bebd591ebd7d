import { AppError, chainUnavailable, OperationOutcomeUnknownError } from '../../errors.js';
import type { ChainGateway } from '../chainGateway.js';
import { encodeWalletCalls } from '../contractCalls.js';
import type { Address, Call, Hex } from '../types.js';
import type { OperationSubmitter } from './bundler.js';
import type { OperationOwner } from './operationOwner.js';
import { OPERATION_GAS, type OperationSigner } from './operationSigner.js';
import { type OperationResult, PendingOperation } from './pendingOperation.js';
import type { SponsorshipPolicy } from './sponsorshipPolicy.js';
import { currentLink, inSpan } from '../../observability/spans.js';

export interface SubmitOperationParameters {
  /** The wallet's current owner: its address, and a callback that signs the EntryPoint's operation hash. */
  owner: OperationOwner;
  /** W_SALT (0) for a user's main wallet, C_SALT (the slot id) for a content wallet. */
  salt: bigint;
  /**
   * The wallet, when known. Required once the owner was rotated: a wallet's address derives from its first
   * owner. Defaults to the counterfactual wallet of (`owner.address`, `salt`).
   */
  sender?: Address;
  /** What the wallet does: one call is `execute`, several are `executeBatch` (all or nothing). */
  calls?: readonly Call[];
  /** Raw operation call data instead of `calls` (e.g. `calls.changeOwnerCallData(newOwner)`). */
  callData?: Hex;
  /** Skip the estimate and use this `callGasLimit`. */
  callGasLimit?: bigint;
  /**
   * `verificationGasLimit` of a deployed wallet's operation when validation does more than check a signature
   * (a session key's policy check, docs/session-keys.md); `OPERATION_GAS.verificationGasLimit` by default.
   */
  verificationGasLimit?: bigint;
  /**
   * EntryPoint nonce key (v0.6 2-D nonces): operations of one wallet under different keys are independent
   * sequences, so they can be in flight (and in one bundle) together. The replica's own key by default
   * (`replicaNonceKey`, 0 on replica 0).
   */
  nonceKey?: bigint;
  /** The app that causes the operation (a session key's app): its daily sponsorship budget is charged too. */
  clientId?: string;
}

/**
 * Whether this process may send to the chain now: undefined when it may, else why not (another process holds
 * this replica's lease, services/replicas/replicaLease.ts).
 */
export interface SendingFence {
  readonly detail: string | undefined;
}

/**
 * The one way the server changes anything on chain from a wallet: builds a v0.6 UserOperation (initCode
 * for an undeployed wallet, nonce from the EntryPoint, `execute`/`executeBatch`, estimated call gas),
 * has the platform's paymaster sponsor it (validUntil = now + 300 s), has the owner sign the EntryPoint's
 * hash, and hands it to the bundler, which submits it through `handleOps` and returns this operation's
 * own result.
 *
 * Throws (nothing was sent): `OperationReverted` 422 when the call would revert; `chain_unavailable`
 * 503; `UserOperationRejectedError` when the EntryPoint refuses it (e.g. 403 `invalid_owner_signature`);
 * 409 `wallet_owner_mismatch`. Throws `OperationOutcomeUnknownError` (503) when the node vanished after
 * the bundle was sent. Returns `{success: false, revert}` when the operation was mined but its call
 * reverted (its nonce is used; nothing else changed).
 */
export class OperationPipeline {
  #policy: Pick<SponsorshipPolicy, 'checkTargets' | 'admit'> | undefined;

  constructor(
    private readonly gateway: ChainGateway,
    private readonly bundler: OperationSubmitter,
    private readonly signer: OperationSigner,
    /**
     * The nonce key this replica hands its wallets' nonces out under (nonceKeys.ts): another replica reading
     * the same wallet's nonce at the same moment hands out another key's, so no two requests can ever
     * become one operation.
     */
    private readonly nonceKey = 0n,
    /** Checked before each operation is built: a replica whose lease another process holds sends nothing. */
    private readonly fence?: SendingFence,
  ) {}

  /**
   * Installs the sponsorship policy (targets, gas cap, daily budgets), checked before anything is
   * signed. Set by the composition root once the stores it counts in exist.
   */
  usePolicy(policy: Pick<SponsorshipPolicy, 'checkTargets' | 'admit'>): void {
    this.#policy = policy;
  }

  /** The counterfactual wallet of (`firstOwner`, `salt`) (= factory `getAddress`). */
  walletAddress(firstOwner: Address, salt: bigint): Address {
    return this.gateway.walletAddress(firstOwner, salt);
  }

  async submitOperation(params: SubmitOperationParameters): Promise<OperationResult> {
    if ((params.calls === undefined) === (params.callData === undefined)) {
      throw new Error('submitOperation takes either calls or callData');
    }
    // The reason is for `/readyz` and the log; the caller hears only that nothing was sent.
    if (this.fence?.detail)
      throw chainUnavailable('This replica may not send to the chain now; nothing was changed');
    // The user operation's life as one span (docs/operations.md, "Traces"): its estimate and sponsorship
    // under it, then the wait for the bundle (a trace of its own, linked to this span) until it is mined.
    return inSpan(
      'user_operation',
      { attributes: params.clientId ? { 'dauth.client_id': params.clientId } : {} },
      async (span) => {
        const prepared = this.bundler.expect();
        try {
          const result = await this.#submit(params, prepared);
          span.setAttributes({
            sender: result.sender,
            user_op_hash: result.userOpHash,
            tx_hash: result.txHash,
            block_number: Number(result.blockNumber),
            'dauth.operation.success': result.success,
          });
          return result;
        } finally {
          prepared();
        }
      },
    );
  }

  async #submit(params: SubmitOperationParameters, prepared: () => void): Promise<OperationResult> {
    const { owner, salt } = params;
    const counterfactual = this.gateway.walletAddress(owner.address, salt);
    const sender = params.sender ?? counterfactual;
    const callData = params.callData ?? encodeWalletCalls(params.calls!);
    this.#policy?.checkTargets({ sender, callData });

    const nonceKey = params.nonceKey ?? this.nonceKey;
    const [deployed, chainNonce] = await Promise.all([
      this.gateway.isDeployed(sender),
      this.bundler.knowsNonce(sender, nonceKey) ? undefined : this.gateway.getNonce(sender, nonceKey),
    ]);
    if (!deployed && sender.toLowerCase() !== counterfactual.toLowerCase()) {
      throw new AppError(
        409,
        'wallet_owner_mismatch',
        'The wallet is not deployed and is not the wallet of this owner and salt',
      );
    }
    const callGasLimit =
      params.callGasLimit ??
      withMargin(await this.gateway.estimateCallGas(sender, callData, deployed ? undefined : owner.address));

    const reservation = await this.#policy?.admit({
      sender,
      callData,
      ...(params.clientId !== undefined ? { clientId: params.clientId } : {}),
      gas:
        callGasLimit +
        OPERATION_GAS.preVerificationGas +
        (deployed
          ? (params.verificationGasLimit ?? OPERATION_GAS.verificationGasLimit)
          : OPERATION_GAS.verificationGasLimitWithInitCode),
    });
    const op = new PendingOperation(sender, owner.address, salt, owner, callData, callGasLimit, deployed);
    op.nonceKey = nonceKey;
    if (params.verificationGasLimit !== undefined) op.verificationGasLimit = params.verificationGasLimit;
    this.bundler.admit(op, chainNonce);
    try {
      await this.signer.sign(op);
    } catch (err) {
      this.bundler.withdraw(op);
      await reservation?.release();
      throw err;
    }
    op.origin = currentLink();
    const result = this.bundler.enqueue(op);
    prepared();
    if (!reservation) return result;
    // Refused before it was sent (simulation, the EntryPoint, the bundler): its reservation is given back.
    // An outcome unknown may have been mined: the charge stays.
    return result.catch(async (err: unknown) => {
      if (!(err instanceof OperationOutcomeUnknownError)) await reservation.release().catch(() => undefined);
      throw err;
    });
  }
}

/** 20% over the estimate (which already includes 21000 of intrinsic gas the EntryPoint's call does not pay). */
function withMargin(estimate: bigint): bigint {
  return estimate + estimate / 5n;
}
