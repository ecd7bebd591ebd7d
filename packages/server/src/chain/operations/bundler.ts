import type { Logger } from 'pino';
import { AppError, chainUnavailable, OperationOutcomeUnknownError } from '../../errors.js';
import { isOutsideValidityWindow, UserOperationRejectedError } from '../chainErrors.js';
import {
  type BundleSimulation,
  type ChainGateway,
  encodeHandleOps,
  executionReserve,
} from '../chainGateway.js';
import type { TransactionReceipt } from 'viem';
import type { Hex } from '../types.js';
import { decodeOperationResults, type OperationOutcome } from './decodeOperationResults.js';
import { OPERATION_GAS, type OperationSigner } from './operationSigner.js';
import type { OperationResult, PendingOperation } from './pendingOperation.js';
import { inSpanUnder, linksOf, type Span } from '../../observability/spans.js';
import { type RelayerSubmitter, SubmissionOutcomeUnknown } from './relayerSubmitter.js';

export interface BundlerOptions {
  /**
   * Most operations in one `handleOps` (BUNDLE_MAX_OPERATIONS); 1 submits every operation in its own
   * transaction. The default is high enough that the gas and byte ceilings are what bind.
   */
  maxOpsPerBundle: number;
  /**
   * How long the first waiting operation waits for company before its bundle goes out. The wait ends early
   * when no other operation is being prepared (nobody is about to join).
   */
  windowMs: number;
  /** Gas ceiling of one `handleOps` transaction (below the block gas limit). */
  maxBundleGas: bigint;
  /**
   * Calldata ceiling of one `handleOps` transaction in bytes: geth-based nodes refuse a transaction over
   * 128 KiB into their pool ("oversized data"), whatever the block's gas room.
   */
  maxBundleBytes: number;
  /** Times an operation is put back after a nonce conflict or a bundle that did not land. */
  maxAttempts: number;
  /**
   * Bundles sent and not yet mined at a time (BUNDLES_IN_FLIGHT). Each takes the relayer's next nonce, so
   * several can share a block; 1 sends a bundle only once the one before it is mined.
   */
  bundlesInFlight: number;
  /**
   * What a bundle's transaction asks beyond the gas its simulation needed, in percent of it
   * (BUNDLE_GAS_MARGIN_PERCENT): the chain may differ from the simulation's state by the time the bundle runs
   * (other bundles of the same block ran first). A block builder counts a transaction's gas limit against
   * the block, so the worst-case sum of the operations' limits would leave room for one bundle per block.
   */
  gasMarginPercent: number;
  /**
   * While bundles are in flight, how long a bundle that is not full waits for operations being prepared
   * (instead of `windowMs`): sent now it would only wait in the pool for the same block, and every bundle in
   * flight takes one of the `bundlesInFlight` places. The wait ends early once the bundle is full, nobody is
   * preparing an operation, or the bundles in flight are mined.
   */
  flightWindowMs: number;
}

export const DEFAULT_BUNDLER_OPTIONS: Omit<BundlerOptions, 'maxBundleGas'> = {
  maxOpsPerBundle: 1024,
  windowMs: 10,
  maxAttempts: 4,
  maxBundleBytes: 120_000,
  bundlesInFlight: 8,
  gasMarginPercent: 20,
  flightWindowMs: 250,
};

/** EntryPoint bookkeeping per operation beyond its own gas limits (nonce, deposit, events, inner call). */
const PER_OP_OVERHEAD_GAS = 60_000n;
/** `handleOps` itself beyond its operations and calldata. */
const BUNDLE_OVERHEAD_GAS = 50_000n;

/**
 * What the bundler knows of one wallet's EntryPoint nonce sequence and its operations in flight. A wallet has
 * one lane per nonce key it uses (EntryPoint v0.6's 2-D nonces: nonce = key << 64 | sequence, one sequence
 * per key): operations under different keys are independent and may share a bundle or be in flight together.
 */
interface SenderLane {
  sender: Hex;
  nonceKey: bigint;
  /** The next nonce the chain expects (as of the last mined bundle or chain read). */
  confirmed: bigint;
  /** The next nonce to hand out. */
  next: bigint;
  /** Unsettled operations of this wallet, by ascending nonce. */
  ops: PendingOperation[];
  /** The chain's nonce must be read again before the next bundle. */
  stale: boolean;
  touchedAt: number;
}

/** A lane this recent is trusted without a chain read when a new operation arrives. */
const LANE_TRUST_MS = 60_000;
const MAX_IDLE_LANES = 10_000;

/** What the bundler reports as it works (metrics are wired in the composition root). */
export interface BundlerObserver {
  /**
   * A bundle of `size` operations was mined successfully; `gas` is what its transaction asked (its gas
   * limit), what it used, and the worst-case bound of its operations' limits (what it asked before issue 43).
   */
  bundleMined(size: number, gas?: { asked: bigint; used: bigint; bound: bigint }): void;
  /** A bundle transaction was dropped or reverted as a whole (it is simulated and sent again). */
  bundleFailed(kind: 'dropped' | 'reverted'): void;
  /** An included operation's call reverted; `reason` is the revert's name (`Error`, a custom error, `unknown`). */
  operationReverted(reason: string): void;
}

const NO_OBSERVER: BundlerObserver = {
  bundleMined: () => undefined,
  bundleFailed: () => undefined,
  operationReverted: () => undefined,
};

/**
 * What the operation pipeline hands its operations to: the built-in `Bundler`, an `ExternalBundler`
 * (BUNDLER_RPC_URL), or a `RoutedSubmitter` that picks one of them per wallet.
 */
export interface OperationSubmitter {
  /** Announces a submission being prepared; call the returned function once it was queued or failed. */
  expect(): () => void;
  /** True when a new operation of `sender` (under `nonceKey`, 0 by default) needs no chain nonce read before `admit`. */
  knowsNonce(sender: string, nonceKey?: bigint): boolean;
  /** Gives `op` its nonce. */
  admit(op: PendingOperation, chainNonce: bigint | undefined): void;
  /** Takes an admitted operation out before `enqueue` (its signing failed). */
  withdraw(op: PendingOperation): void;
  /** Submits the operation; resolves with its own result. */
  enqueue(op: PendingOperation): Promise<OperationResult>;
}

/**
 * Sends each wallet's operations to one of two submitters: the built-in bundler for the wallets `builtIn`
 * names (docs/operations.md, "Which bundler": the platform operator wallet's parallel operations break a
 * public mempool's per-sender limits), the other one for every other wallet.
 */
export class RoutedSubmitter implements OperationSubmitter {
  constructor(
    private readonly builtIn: OperationSubmitter,
    private readonly external: OperationSubmitter,
    private readonly useBuiltIn: (sender: string) => boolean,
  ) {}

  #for(sender: string): OperationSubmitter {
    return this.useBuiltIn(sender) ? this.builtIn : this.external;
  }

  expect(): () => void {
    const a = this.builtIn.expect();
    const b = this.external.expect();
    return () => {
      a();
      b();
    };
  }

  knowsNonce(sender: string, nonceKey?: bigint): boolean {
    return this.#for(sender).knowsNonce(sender, nonceKey);
  }

  admit(op: PendingOperation, chainNonce: bigint | undefined): void {
    this.#for(op.sender).admit(op, chainNonce);
  }

  withdraw(op: PendingOperation): void {
    this.#for(op.sender).withdraw(op);
  }

  enqueue(op: PendingOperation): Promise<OperationResult> {
    return this.#for(op.sender).enqueue(op);
  }
}

/**
 * The single submitter. Operations of any number of concurrent callers are collected for `windowMs` (or
 * until a bundle is full) into one `handleOps` sent by the relayer; each caller gets its own result. Before
 * sending, the bundle is simulated (`ChainGateway.simulateHandleOps`): an operation the EntryPoint refuses
 * (`FailedOp`) is taken out and its caller gets the typed error, and the rest go out without it; the
 * transaction asks the gas the simulation needed plus `gasMarginPercent`. A bundle that reverts on chain,
 * or whose transaction was dropped, is simulated and sent again.
 *
 * Bundles in flight: up to `bundlesInFlight` bundles are sent and not yet mined at a time, on consecutive
 * relayer nonces (the `RelayerSubmitter` follows each, journaled before it is sent). Bundles are prepared
 * (signed, simulated) one after another; an operation is in at most one of them, and a wallet's next
 * operation waits until the bundle carrying its previous one is mined (its nonce is bundled only when it is
 * the chain's next), so each simulation holds whatever the bundles ahead of it do on chain.
 *
 * Nonces: each wallet has a lane. Concurrent operations of one wallet get consecutive nonces and go out in
 * order (the first one carrying the initCode); if one of them is refused, the later ones move down a nonce
 * and are signed again. A nonce conflict with another submitter (AA25) re-reads the chain's nonce.
 */
export class Bundler implements OperationSubmitter {
  observer: BundlerObserver = NO_OBSERVER;
  readonly #lanes = new Map<string, SenderLane>();
  /**
   * Signed operations until they are settled, in arrival order (a set: taking one out is O(1)); those in a
   * bundle in flight are also in `#flying`.
   */
  readonly #ready = new Set<PendingOperation>();
  /** Operations in a bundle being prepared or in flight: not bundled again unless it fails. */
  readonly #flying = new Set<PendingOperation>();
  /** Bundles being prepared or in flight, each until its operations are settled or put back. */
  readonly #flights = new Set<Promise<void>>();
  #wake: (() => void) | undefined;
  #closing = false;
  #closed = false;
  /** Submissions being prepared (estimated, signed) that will be queued soon. */
  #preparing = 0;
  readonly #loop: Promise<void>;

  constructor(
    private readonly gateway: ChainGateway,
    private readonly signer: OperationSigner,
    private readonly submitter: RelayerSubmitter,
    private readonly options: BundlerOptions,
    private readonly logger: Logger,
  ) {
    this.#loop = this.#run();
  }

  /** Signed operations not settled yet: waiting for a bundle, or in one that is not mined yet. */
  get queued(): number {
    return this.#ready.size;
  }

  /** Bundles being prepared or sent and not yet mined. */
  get inFlight(): number {
    return this.#flights.size;
  }

  /** True when a new operation of `sender` can take its nonce from the lane without reading the chain. */
  knowsNonce(sender: string, nonceKey = 0n): boolean {
    const lane = this.#lanes.get(laneKey(sender, nonceKey));
    return !!lane && !lane.stale && (lane.ops.length > 0 || Date.now() - lane.touchedAt < LANE_TRUST_MS);
  }

  /**
   * Announces a submission that is being prepared, so a bundle about to go out waits for it (within the
   * window). Call the returned function once it was queued or failed.
   */
  expect(): () => void {
    this.#preparing += 1;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#preparing -= 1;
      if (this.#preparing === 0) this.#poke();
    };
  }

  /** Gives `op` the next nonce of its wallet. `chainNonce` is required unless `knowsNonce(sender)`. */
  admit(op: PendingOperation, chainNonce: bigint | undefined): void {
    if (this.#closing) throw shuttingDown();
    const key = laneOf(op);
    let lane = this.#lanes.get(key);
    if (!lane) {
      if (chainNonce === undefined) throw new Error(`no nonce known for ${op.sender}`);
      this.#evictIdleLanes();
      lane = {
        sender: op.sender,
        nonceKey: op.nonceKey,
        confirmed: chainNonce,
        next: chainNonce,
        ops: [],
        stale: false,
        touchedAt: Date.now(),
      };
      this.#lanes.set(key, lane);
    } else if (lane.ops.length === 0) {
      if (chainNonce !== undefined && chainNonce > lane.confirmed) lane.confirmed = chainNonce;
      if (chainNonce !== undefined) lane.stale = false;
      lane.next = lane.confirmed;
    }
    lane.touchedAt = Date.now();
    op.nonce = lane.next;
    lane.next += 1n;
    lane.ops.push(op);
  }

  /** Queues a signed operation for the next bundle; resolves with its own result. */
  enqueue(op: PendingOperation): Promise<OperationResult> {
    if (this.#closed) {
      this.#drop(op, shuttingDown());
    } else {
      op.enqueuedAt = Date.now();
      this.#ready.add(op);
      this.#poke();
    }
    return op.result;
  }

  /** Takes an unsent operation out (it failed before it was bundled); later ones of its wallet move down. */
  withdraw(op: PendingOperation): void {
    this.#ready.delete(op);
    const lane = this.#lanes.get(laneOf(op));
    if (lane && lane.ops.includes(op)) {
      lane.ops = lane.ops.filter((o) => o !== op);
      for (const later of lane.ops) if (later.nonce > op.nonce) later.nonce -= 1n;
      lane.next -= 1n;
    }
    this.#poke();
  }

  /** Forgets every wallet's nonce (the chain restarted from an older state). */
  resetLanes(): void {
    for (const lane of this.#lanes.values()) lane.stale = true;
  }

  /** Sends what is queued, then stops; operations still arriving are refused with 503. */
  async close(timeoutMs = 15_000): Promise<void> {
    this.#closing = true;
    this.#poke();
    const timer = new Promise<'timeout'>((resolve) =>
      setTimeout(() => resolve('timeout'), timeoutMs).unref(),
    );
    if ((await Promise.race([this.#loop, timer])) === 'timeout') {
      // An operation that went out in a bundle hears that its outcome is unknown, the others 503.
      for (const op of [...this.#ready]) this.#drop(op, shuttingDown());
      this.#ready.clear();
    }
    this.#closed = true;
  }

  // ----- the loop -----

  async #run(): Promise<void> {
    for (;;) {
      let oldest = Infinity;
      for (const op of this.#ready) {
        if (!this.#flying.has(op) && op.enqueuedAt < oldest) oldest = op.enqueuedAt;
      }
      if (oldest === Infinity) {
        // Nothing waits for a bundle (some may be in flight): done when closing and everything is settled.
        if (this.#closing && this.#ready.size === 0 && this.#flights.size === 0) {
          this.#closed = true;
          return;
        }
        await this.#sleep();
        continue;
      }
      // Every place is taken: the next bundle waits for one to be mined (its landing wakes the loop).
      if (this.#flights.size >= this.options.bundlesInFlight) {
        await this.#sleep();
        continue;
      }
      const window = this.#flights.size > 0 ? this.options.flightWindowMs : this.options.windowMs;
      const wait = oldest + window - Date.now();
      if (wait > 0 && this.#preparing > 0 && !this.#closing && !this.#waitingFillABundle()) {
        await this.#sleep(wait);
        continue;
      }
      try {
        const progressed = await this.#processBundle();
        // Everything waits on a predecessor that is still being signed or is in flight: wait for it.
        if (!progressed) await this.#sleep(20);
      } catch (err) {
        this.logger.error({ err }, 'bundler step failed');
        await this.#sleep(100);
      }
    }
  }

  /**
   * Forms a bundle and prepares it (signs, simulates); once it is handed to the relayer (or taken apart),
   * returns while the relayer follows it. False when nothing could be bundled yet.
   */
  async #processBundle(): Promise<boolean> {
    await this.#resyncStaleLanes();
    const bundle = this.#form();
    if (bundle.length === 0) return false;
    for (const op of bundle) this.#flying.add(op);
    let handedOver!: () => void;
    const prepared = new Promise<void>((resolve) => (handedOver = resolve));
    // A bundle is a trace of its own, linked to the requests whose operations it carries.
    const flight: Promise<void> = inSpanUnder(
      undefined,
      'bundle',
      {
        links: linksOf(bundle.map((op) => op.origin)),
        attributes: { 'dauth.bundle.operations': bundle.length },
      },
      (span) => this.#sendBundle(bundle, span, handedOver),
    )
      .catch((err: unknown) => this.logger.error({ err }, 'bundle failed unexpectedly'))
      .finally(() => {
        handedOver();
        // Settled operations left `#ready`; the others are bundled again.
        for (const op of bundle) this.#flying.delete(op);
        this.#flights.delete(flight);
        this.#poke();
      });
    this.#flights.add(flight);
    await prepared;
    return true;
  }

  /**
   * Whether the operations waiting for a bundle would fill one (its count, gas or calldata ceiling): then it
   * goes out without waiting for company. Nonce order is not checked (an estimate for the wait only).
   */
  #waitingFillABundle(): boolean {
    const size = new BundleSize();
    let count = 0;
    for (const op of this.#ready) {
      if (this.#flying.has(op)) continue;
      const cost = operationCost(op);
      if (
        ++count > this.options.maxOpsPerBundle ||
        size.gasWith(cost) > this.options.maxBundleGas ||
        size.bytesWith(cost) > this.options.maxBundleBytes
      ) {
        return true;
      }
      size.add(cost);
    }
    return false;
  }

  /**
   * Signs, simulates and sends `bundle`, and settles its operations from the receipt. `handedOver` is called
   * once the relayer has the transaction: the next bundle may be prepared from then on.
   */
  async #sendBundle(bundle: PendingOperation[], span: Span, handedOver: () => void): Promise<void> {
    // Sign what is unsigned, signed for another nonce, or close to the end of its sponsorship.
    const toSign = bundle.filter((op) => this.signer.needsSigning(op));
    if (toSign.length > 0) {
      const results = await Promise.allSettled(toSign.map((op) => this.signer.sign(op)));
      let withdrew = false;
      results.forEach((r, i) => {
        if (r.status === 'rejected') {
          this.#drop(toSign[i]!, r.reason);
          withdrew = true;
        }
      });
      // Dropping an operation moved later nonces of its wallet: form the bundle again.
      if (withdrew || bundle.some((op) => op.signed?.nonce !== op.nonce)) return;
    }

    let data: Hex;
    let bound: bigint;
    let simulation: BundleSimulation;
    try {
      const ops = bundle.map((op) => op.signed!.op);
      data = encodeHandleOps(ops, this.submitter.address);
      bound = bundleGas(bundle);
      simulation = await this.gateway.simulateHandleOps(ops, this.submitter.address, bound);
    } catch (err) {
      // The node is down (or something unexpected broke): nothing was sent; every caller hears it at once.
      if (!(err instanceof AppError)) this.logger.error({ err }, 'bundle could not be prepared');
      for (const op of bundle) this.#drop(op, err);
      return;
    }
    if (!simulation.ok) {
      const refused = bundle[simulation.opIndex];
      if (refused) this.#refuse(refused, simulation.reason);
      else for (const op of bundle) this.#drop(op, new UserOperationRejectedError(simulation.reason));
      return;
    }
    // An operation put back after a bundle that did not land goes out under the worst-case bound: if the
    // chain needed more than the simulation said, the same margin would fail again.
    const gas = bundle.some((op) => op.attempts > 0)
      ? bound
      : askedGas(simulation.gas, bound, this.options.gasMarginPercent);
    span.setAttributes({
      'dauth.bundle.gas_asked': Number(gas),
      'dauth.bundle.gas_simulated': Number(simulation.gas),
    });

    let outcome;
    try {
      const fromBlock = await this.gateway.blockNumber();
      for (const op of bundle) {
        op.sentFromBlock ??= fromBlock;
        op.sentUserOpHashes.push(op.signed!.userOpHash);
      }
      const submission = this.submitter.submit({ to: this.gateway.contracts.entry_point, data, gas });
      handedOver();
      outcome = await submission;
    } catch (err) {
      if (err instanceof SubmissionOutcomeUnknown) {
        const txHash = err.txHashes.at(-1);
        for (const op of bundle) {
          this.#forget(op);
          op.reject(new OperationOutcomeUnknownError({ userOpHash: op.signed!.userOpHash, txHash }));
        }
        this.logger.error({ txHashes: err.txHashes }, 'bundle outcome unknown: the node stopped answering');
      } else {
        for (const op of bundle) this.#drop(op, err);
      }
      return;
    }

    if (outcome.kind === 'dropped' || outcome.receipt.status !== 'success') {
      const what = outcome.kind === 'dropped' ? 'dropped' : 'reverted';
      this.logger.warn(
        {
          ops: bundle.length,
          ...(outcome.kind === 'mined' ? { txHash: outcome.receipt.transactionHash } : {}),
        },
        `bundle ${what}; simulating and sending again`,
      );
      this.observer.bundleFailed(what);
      for (const op of bundle) {
        op.attempts += 1;
        if (op.attempts > this.options.maxAttempts) {
          this.#drop(
            op,
            new AppError(502, 'bundle_failed', `The operation's transaction was ${what} repeatedly`),
          );
        }
      }
      for (const op of bundle) this.#laneOf(op).stale = true;
      return;
    }

    const receipt = outcome.receipt;
    span.setAttributes({
      tx_hash: receipt.transactionHash,
      block_number: Number(receipt.blockNumber),
      user_op_hashes: bundle.map((op) => op.signed!.userOpHash),
    });
    const results = decodeOperationResults(receipt, this.gateway.contracts.entry_point);
    this.observer.bundleMined(bundle.length, { asked: gas, used: receipt.gasUsed, bound });
    for (const op of bundle) {
      const signed = op.signed!;
      if (!results.has(signed.userOpHash.toLowerCase())) {
        this.#settle(op);
        this.#laneOf(op).stale = true;
        op.reject(new AppError(502, 'bundle_failed', 'The bundle was mined without this operation'));
        continue;
      }
      this.#resolveFromReceipt(op, signed.userOpHash, receipt, results);
    }
  }

  /**
   * Settles `op` with what `receipt` says about its execution under `userOpHash`. `results` is the
   * receipt's decoded operations (decoded once per receipt, not once per operation: a bundle of n
   * operations has n events).
   */
  #resolveFromReceipt(
    op: PendingOperation,
    userOpHash: Hex,
    receipt: TransactionReceipt,
    results: ReadonlyMap<string, OperationOutcome>,
  ): boolean {
    const result = results.get(userOpHash.toLowerCase());
    if (!result) return false;
    this.#settle(op);
    this.gateway.markDeployed(op.sender);
    if (result.revert) this.observer.operationReverted(result.revert.name ?? 'unknown');
    op.resolve({
      userOpHash,
      txHash: receipt.transactionHash,
      success: result.success,
      ...(result.revert !== undefined ? { revert: result.revert } : {}),
      sender: op.sender,
      nonce: op.signed?.userOpHash === userOpHash ? op.signed.nonce : op.nonce,
      actualGasCost: result.actualGasCost,
      blockNumber: receipt.blockNumber,
      logs: receipt.logs,
    });
    return true;
  }

  /**
   * Operations of stale lanes that were sent before may have run in a transaction we lost track of
   * (a replaced or re-mined bundle). Settle those from the chain's logs instead of signing them again.
   */
  async #settleAlreadyExecuted(ops: PendingOperation[]): Promise<void> {
    const sent = ops.filter((op) => op.sentUserOpHashes.length > 0 && !op.settled);
    if (sent.length === 0) return;
    const fromBlock = sent.reduce((min, op) => {
      const b = op.sentFromBlock ?? 0n;
      return b < min ? b : min;
    }, sent[0]!.sentFromBlock ?? 0n);
    const receipts = (
      await this.gateway.receiptsOfOperations(
        sent.flatMap((op) => op.sentUserOpHashes),
        fromBlock,
      )
    )
      .filter((receipt) => receipt.status === 'success')
      .map((receipt) => ({
        receipt,
        results: decodeOperationResults(receipt, this.gateway.contracts.entry_point),
      }));
    for (const op of sent) {
      for (const { receipt, results } of receipts) {
        if (op.sentUserOpHashes.some((hash) => this.#resolveFromReceipt(op, hash, receipt, results))) break;
      }
    }
  }

  /**
   * Picks ready operations whose nonce is next for their wallet, in arrival order, within the caps: the
   * operation count, the gas ceiling and the calldata ceiling. Each pass over the queue is linear (the gas
   * and size bounds are kept as running sums); another pass is needed only when a wallet's later operation
   * was queued before its earlier one.
   */
  #form(): PendingOperation[] {
    const bundle: PendingOperation[] = [];
    const chosen = new Set<PendingOperation>();
    const expected = new Map<string, bigint>();
    const size = new BundleSize();
    let progress = true;
    while (progress && bundle.length < this.options.maxOpsPerBundle) {
      progress = false;
      for (const op of this.#ready) {
        if (bundle.length >= this.options.maxOpsPerBundle) break;
        if (chosen.has(op) || this.#flying.has(op)) continue;
        const key = laneOf(op);
        const lane = this.#lanes.get(key);
        if (!lane || lane.stale) continue;
        if (op.nonce !== (expected.get(key) ?? lane.confirmed)) continue;
        const cost = operationCost(op);
        if (
          size.gasWith(cost) > this.options.maxBundleGas ||
          size.bytesWith(cost) > this.options.maxBundleBytes
        ) {
          if (bundle.length === 0) {
            this.#drop(
              op,
              new AppError(
                422,
                'operation_too_large',
                'The operation needs more gas or calldata than one bundle transaction may hold',
              ),
            );
            return [];
          }
          continue;
        }
        size.add(cost);
        bundle.push(op);
        chosen.add(op);
        expected.set(key, op.nonce + 1n);
        progress = true;
      }
    }
    return bundle;
  }

  /** The EntryPoint refused `op` in simulation: retry a nonce conflict, otherwise tell its caller. */
  #refuse(op: PendingOperation, reason: string): void {
    const lane = this.#laneOf(op);
    const conflict = /^AA(25|10)/.test(reason);
    if (conflict && op.attempts < this.options.maxAttempts) {
      op.attempts += 1;
      lane.stale = true;
      // AA10: the wallet exists already (deployed by someone else), so no initCode from now on.
      if (reason.startsWith('AA10')) for (const o of lane.ops) o.deployed = true;
      this.logger.info({ sender: op.sender, reason }, 'nonce conflict; reading the nonce again');
      return;
    }
    this.logger.info({ sender: op.sender, reason }, 'operation refused by the EntryPoint');
    const refusal = new UserOperationRejectedError(reason, op.signed?.userOpHash);
    if (op.sentUserOpHashes.length > 0 && isOutsideValidityWindow(reason)) {
      // Sent before, so its window was open then (it passed a simulation); shut now, it has ended, and with it
      // unused (the windows are checked after the nonce) it can never run, under any of its hashes: its caller
      // hears a plain refusal and may sign it again (a session operation whose UTC day ended on the way).
      this.withdraw(op);
      op.reject(refusal);
      return;
    }
    this.#drop(op, refusal);
  }

  /** Re-reads the chain's nonce for stale lanes with ready operations and renumbers them from it. */
  async #resyncStaleLanes(): Promise<void> {
    // A lane with an operation in a bundle in flight waits for that bundle: its outcome decides the nonce.
    const stale = [...new Set([...this.#ready].map(laneOf))]
      .map((key) => [key, this.#lanes.get(key)] as const)
      .filter(([, lane]) => lane?.stale && !lane.ops.some((op) => this.#flying.has(op)));
    if (stale.length === 0) return;
    // After a dropped or reverted bundle every one of its wallets is stale: look their sent operations up
    // on chain together (one log query, each receipt read and decoded once), not once per wallet.
    let lookupFailed: { err: unknown } | undefined;
    try {
      await this.#settleAlreadyExecuted(stale.flatMap(([, lane]) => lane!.ops));
    } catch (err) {
      lookupFailed = { err };
    }
    await Promise.all(
      stale.map(async ([, lane]) => {
        const sender = lane!.sender;
        try {
          if (lookupFailed) throw lookupFailed.err;
          const [nonce, deployed] = await Promise.all([
            this.gateway.getNonce(sender, lane!.nonceKey),
            this.gateway.isDeployed(sender),
          ]);
          lane!.confirmed = nonce;
          lane!.next = nonce;
          for (const op of lane!.ops) {
            op.nonce = lane!.next;
            lane!.next += 1n;
            if (deployed) op.deployed = true;
          }
          lane!.stale = false;
        } catch (err) {
          for (const op of [...lane!.ops]) if (this.#ready.has(op)) this.#drop(op, err);
        }
      }),
    );
  }

  // ----- bookkeeping -----

  #laneOf(op: PendingOperation): SenderLane {
    const lane = this.#lanes.get(laneOf(op));
    if (!lane) throw new Error(`no lane for ${op.sender}`);
    return lane;
  }

  /** The operation was mined (its nonce is used, whatever its call did). */
  #settle(op: PendingOperation): void {
    this.#ready.delete(op);
    const lane = this.#lanes.get(laneOf(op));
    if (!lane) return;
    lane.ops = lane.ops.filter((o) => o !== op);
    if (op.nonce + 1n > lane.confirmed) lane.confirmed = op.nonce + 1n;
    lane.touchedAt = Date.now();
  }

  /** The operation may or may not have used its nonce: take it out and read the chain again later. */
  #forget(op: PendingOperation): void {
    this.#ready.delete(op);
    const lane = this.#lanes.get(laneOf(op));
    if (!lane) return;
    lane.ops = lane.ops.filter((o) => o !== op);
    lane.stale = true;
  }

  /** Takes an unsent operation out and tells its caller why. */
  #drop(op: PendingOperation, err: unknown): void {
    this.withdraw(op);
    const lastSent = op.sentUserOpHashes.at(-1);
    if (lastSent) {
      // It was in a bundle that went out: whatever failed now, that bundle may still have run it. An
      // error that reads as "not sent" would make its caller send it again, so its outcome is unknown
      // and is settled from the chain (UserOperationEvent of one of its hashes) by the caller.
      this.logger.warn(
        { sender: op.sender, userOpHash: lastSent, err },
        'sent operation withdrawn; outcome unknown',
      );
      op.reject(new OperationOutcomeUnknownError({ userOpHash: lastSent }));
      return;
    }
    op.reject(err instanceof AppError ? err : err instanceof Error ? err : chainUnavailable());
  }

  #evictIdleLanes(): void {
    if (this.#lanes.size < MAX_IDLE_LANES) return;
    const cutoff = Date.now() - LANE_TRUST_MS;
    for (const [key, lane] of this.#lanes) {
      if (lane.ops.length === 0 && lane.touchedAt < cutoff) this.#lanes.delete(key);
    }
  }

  #poke(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** Only the loop sleeps: until `ms` passed or something was queued or withdrawn. */
  #sleep(ms?: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(() => this.#poke(), ms);
      this.#wake = () => {
        if (timer) clearTimeout(timer);
        resolve();
      };
    });
  }
}

/**
 * Upper bound of the gas `handleOps(bundle)` needs. Validation of every operation runs first (each within
 * its `verificationGasLimit`); then each operation's call runs (within its `callGasLimit`). The EntryPoint
 * refuses to start an operation's execution unless `callGasLimit + verificationGasLimit + 5000` is left
 * after the 63/64 rule ("AA95 out of gas"), so the largest such reserve is added once on top. Calldata is
 * priced at 16 gas a byte, intrinsic gas at 21000.
 */
export function bundleGas(bundle: readonly PendingOperation[]): bigint {
  const size = new BundleSize();
  for (const op of bundle) size.add(operationCost(op));
  return size.gas;
}

/**
 * The gas limit of a bundle's transaction: what its simulation needed plus `marginPercent`, never above
 * `bound` (the worst case, which the simulation ran under).
 */
export function askedGas(simulated: bigint, bound: bigint, marginPercent: number): bigint {
  const asked = simulated + (simulated * BigInt(Math.round(marginPercent * 100))) / 10_000n;
  return asked < bound ? asked : bound;
}

/** One operation's share of a bundle's gas bound and calldata. */
interface OperationCost {
  /** Its verification and call limits, EntryPoint bookkeeping and calldata gas. */
  gas: bigint;
  /** What must be left when its execution starts, beyond its own call limit (the AA95 reserve). */
  reserve: bigint;
  bytes: number;
}

function operationCost(op: PendingOperation): OperationCost {
  const verification = verificationGasOf(op);
  const bytes = operationBytes(op);
  return {
    gas: verification + op.callGasLimit + PER_OP_OVERHEAD_GAS + 16n * BigInt(bytes),
    reserve:
      executionReserve({ callGasLimit: op.callGasLimit, verificationGasLimit: verification }) -
      op.callGasLimit,
    bytes,
  };
}

/** Running gas bound and calldata size of a bundle being formed (`bundleGas`, kept in O(1) per operation). */
class BundleSize {
  #total = BUNDLE_OVERHEAD_GAS + 21_000n;
  #reserve = 0n;
  /** `handleOps` selector, beneficiary, the array's offset and length, and one offset word per operation. */
  #bytes = 4 + 3 * 32;

  get gas(): bigint {
    return this.#total + this.#reserve;
  }

  gasWith(cost: OperationCost): bigint {
    return this.#total + cost.gas + (cost.reserve > this.#reserve ? cost.reserve : this.#reserve);
  }

  bytesWith(cost: OperationCost): number {
    return this.#bytes + 32 + cost.bytes;
  }

  add(cost: OperationCost): void {
    this.#total += cost.gas;
    if (cost.reserve > this.#reserve) this.#reserve = cost.reserve;
    this.#bytes += 32 + cost.bytes;
  }
}

function verificationGasOf(op: PendingOperation): bigint {
  return op.signed?.op.verificationGasLimit ?? OPERATION_GAS.verificationGasLimitWithInitCode;
}

/** Bytes of the operation in `handleOps` calldata (15 words of head and lengths, plus its byte fields). */
function operationBytes(op: PendingOperation): number {
  const signed = op.signed?.op;
  const dynamic = signed
    ? [signed.initCode, signed.callData, signed.paymasterAndData, signed.signature]
    : [op.callData, `0x${'00'.repeat(300)}`];
  return 15 * 32 + dynamic.reduce((sum, hex) => sum + Math.ceil((hex.length - 2) / 64) * 32, 0);
}

/** The lane of (`sender`, `nonceKey`): key 0 (every wallet's usual sequence) is the bare address. */
function laneKey(sender: string, nonceKey: bigint): string {
  const address = sender.toLowerCase();
  return nonceKey === 0n ? address : `${address}:${nonceKey.toString(16)}`;
}

function laneOf(op: PendingOperation): string {
  return laneKey(op.sender, op.nonceKey);
}

function shuttingDown(): AppError {
  return new AppError(503, 'shutting_down', 'The service is shutting down; nothing was changed');
}
