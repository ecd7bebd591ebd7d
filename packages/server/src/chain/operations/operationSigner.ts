import { encodeInitCode, getUserOpHash, type UnsignedUserOperation } from '@dauth/contracts';
import type { ChainGateway } from '../chainGateway.js';
import type { FeePolicy } from '../feePolicy.js';
import type { Hex } from '../types.js';
import { isFirstOfKey } from './nonceKeys.js';
import type { PendingOperation, SignedOperation } from './pendingOperation.js';
import type { Sponsor } from './sponsorship.js';

/**
 * Fixed gas of every operation. Validation of a deployed DauthAccount plus the paymaster measures about
 * 40k gas, and about 112k with the wallet's deployment (EntryPoint `simulateValidation`); the limits leave
 * more than twice that (unused gas is refunded to the paymaster). `callGasLimit` is estimated per operation.
 */
export const OPERATION_GAS = {
  verificationGasLimit: 150_000n,
  verificationGasLimitWithInitCode: 300_000n,
  /** Covers the bundle's share of calldata and intrinsic gas the relayer pays. */
  preVerificationGas: 50_000n,
} as const;

/** Re-sign an operation whose sponsorship has less than this left, so it never reaches the chain expired. */
const MIN_VALIDITY_LEFT_SECONDS = 60;

/**
 * Completes an operation in the only valid order: gas and fee fields, then the platform's paymaster
 * signature (it covers them), then the owner's signature over the EntryPoint hash (it covers everything).
 */
export class OperationSigner {
  constructor(
    private readonly gateway: ChainGateway,
    private readonly sponsor: Sponsor,
    /** MAX_FEE_PER_GAS: the paymaster never signs an operation offering more per gas (undefined: no cap). */
    private readonly feePolicy?: FeePolicy,
  ) {}

  /**
   * True when `op` was never signed, was signed for another nonce, carries an initCode for a wallet found
   * deployed since (by an operation under another nonce key: its own nonce did not move, AA10), or its
   * sponsorship is about to lapse.
   */
  needsSigning(op: PendingOperation, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
    return (
      !op.signed ||
      op.signed.nonce !== op.nonce ||
      (op.deployed && op.signed.op.initCode !== '0x') ||
      op.signed.validUntil - nowSeconds < MIN_VALIDITY_LEFT_SECONDS
    );
  }

  async sign(pending: PendingOperation): Promise<SignedOperation> {
    const { contracts, chainId } = this.gateway;
    const nonce = pending.nonce;
    // Only the wallet's first operation deploys it; later ones (also later ones in the same bundle) do not.
    // Under a nonce key of its own (2-D nonces) the first operation of that key may be the first one.
    const initCode: Hex =
      isFirstOfKey(nonce) && !pending.deployed
        ? encodeInitCode(contracts.account_factory, pending.firstOwner, pending.salt)
        : '0x';
    const suggested = await this.gateway.fees();
    const fees = this.feePolicy?.initial(suggested) ?? suggested;
    const unsigned: UnsignedUserOperation = {
      sender: pending.sender,
      nonce,
      initCode,
      callData: pending.callData,
      callGasLimit: pending.callGasLimit,
      verificationGasLimit:
        initCode === '0x'
          ? (pending.verificationGasLimit ?? OPERATION_GAS.verificationGasLimit)
          : OPERATION_GAS.verificationGasLimitWithInitCode,
      preVerificationGas: OPERATION_GAS.preVerificationGas,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    };
    const { paymasterAndData, validUntil } = await this.sponsor.sponsor(unsigned);
    const sponsored = { ...unsigned, paymasterAndData, signature: '0x' as Hex };
    const userOpHash = getUserOpHash(sponsored, contracts.entry_point, chainId);
    const signature = await pending.owner.signUserOpHash(userOpHash);
    const signed: SignedOperation = { op: { ...sponsored, signature }, userOpHash, nonce, validUntil };
    pending.signed = signed;
    return signed;
  }
}
