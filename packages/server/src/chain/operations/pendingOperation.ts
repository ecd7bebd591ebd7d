import type { UserOperation } from '@dauth/contracts';
import type { Log } from 'viem';
import type { Revert } from '../../errors.js';
import type { Address, Hash, Hex } from '../types.js';
import type { Link } from '../../observability/spans.js';
import type { OperationOwner } from './operationOwner.js';

/** What a caller of `submitOperation` gets back once the operation's bundle is mined. */
export interface OperationResult {
  userOpHash: Hash;
  /** The `handleOps` transaction that carried the operation. */
  txHash: Hash;
  /** False when the wallet's call reverted (the nonce was used and gas paid, nothing else changed). */
  success: boolean;
  /** Set when `success` is false: the decoded revert, e.g. `NotSlotOwner` with its arguments. */
  revert?: Revert;
  sender: Address;
  nonce: bigint;
  /** Wei the paymaster paid for the operation. */
  actualGasCost: bigint;
  blockNumber: bigint;
  /**
   * The logs of the transaction that carried it, when the submitter had its receipt at hand (the built-in
   * bundler): a caller decoding its own events (e.g. a usage batch's) reads them here instead of fetching and
   * formatting the receipt again.
   */
  logs?: readonly Log[];
}

/** An operation as signed for a given nonce. */
export interface SignedOperation {
  op: UserOperation;
  userOpHash: Hash;
  nonce: bigint;
  validUntil: number;
}

let nextId = 1;

/**
 * One operation between `submitOperation` and its result. Its nonce is assigned by the bundler's sender
 * lanes and may change (a predecessor of the same wallet was dropped, or another submitter used the nonce);
 * the operation is then signed again before it is bundled.
 */
export class PendingOperation {
  readonly id = nextId++;
  /**
   * The EntryPoint nonce key (v0.6 2-D nonces: nonce = key << 64 | sequence). 0 for every wallet's usual
   * sequence; the operator wallet sends usage batches under keys of their own, so several are in flight.
   */
  nonceKey = 0n;
  nonce = -1n;
  signed: SignedOperation | undefined;
  /** Times the operation was put back after a nonce conflict or a failed bundle. */
  attempts = 0;
  settled = false;
  enqueuedAt = 0;
  /** The span that submitted it (its request's trace): the bundle's trace links back to it. */
  origin: Link | undefined;
  /**
   * Hashes this operation had in bundles that were sent, and the block before the first send. If a
   * bundle's fate is unclear (dropped, reverted, replaced), these are looked up on chain before the
   * operation is ever signed again, so an operation that already ran is never run twice.
   */
  sentUserOpHashes: Hash[] = [];
  /** Set for operations whose validation needs more than `OPERATION_GAS.verificationGasLimit` (session keys). */
  verificationGasLimit: bigint | undefined;
  sentFromBlock: bigint | undefined;
  readonly result: Promise<OperationResult>;
  #resolve!: (result: OperationResult) => void;
  #reject!: (err: unknown) => void;

  constructor(
    readonly sender: Address,
    /** The wallet's first owner and salt: its `initCode` while it is not deployed. */
    readonly firstOwner: Address,
    readonly salt: bigint,
    readonly owner: OperationOwner,
    readonly callData: Hex,
    readonly callGasLimit: bigint,
    /** Whether the wallet had code when the operation was admitted. */
    public deployed: boolean,
  ) {
    this.result = new Promise<OperationResult>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // The caller may not be awaiting yet (it is signing); the rejection is observed through `result`.
    this.result.catch(() => undefined);
  }

  resolve(result: OperationResult): void {
    if (this.settled) return;
    this.settled = true;
    this.#resolve(result);
  }

  reject(err: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.#reject(err);
  }
}
