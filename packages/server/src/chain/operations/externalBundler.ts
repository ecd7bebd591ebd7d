import {
  encodeInitCode,
  entryPointAbi,
  getUserOpHash,
  type UnsignedUserOperation,
  type UserOperation,
} from '@dauth/contracts';
import { type Hex, numberToHex } from 'viem';
import type { Logger } from 'pino';
import { AppError, chainUnavailable, OperationOutcomeUnknownError } from '../../errors.js';
import { UserOperationRejectedError } from '../chainErrors.js';
import type { ChainGateway, Fees } from '../chainGateway.js';
import { FeePolicy } from '../feePolicy.js';
import type { Address, Hash } from '../types.js';
import type { BundlerObserver, OperationSubmitter } from './bundler.js';
import { decodeOperationResults } from './decodeOperationResults.js';
import { isFirstOfKey, nonceKeyOf } from './nonceKeys.js';
import { OPERATION_GAS } from './operationSigner.js';
import type { OperationResult, PendingOperation } from './pendingOperation.js';
import type { Sponsor } from './sponsorship.js';

/** A JSON-RPC error answered by the bundler itself (it was reached; the request was refused). */
export class BundlerRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'BundlerRpcError';
  }
}

/** The bundler did not answer (refused, timed out, HTTP error). `refused`: it certainly got nothing. */
export class BundlerUnreachableError extends Error {
  constructor(
    message: string,
    readonly refused: boolean,
  ) {
    super(message);
    this.name = 'BundlerUnreachableError';
  }
}

/** The ERC-4337 JSON-RPC methods dauth uses, over plain HTTP (the URL may carry an API key: never logged). */
export class BundlerRpc {
  #id = 0;
  constructor(
    /** May carry an API key: never logged. */
    readonly url: string,
    private readonly timeoutMs = 10_000,
  ) {}

  async request<T>(method: string, params: unknown[]): Promise<T> {
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++this.#id, method, params }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const code = (err as { cause?: { code?: unknown } }).cause?.code;
      throw new BundlerUnreachableError(`the bundler did not answer ${method}`, code === 'ECONNREFUSED');
    }
    const text = await response.text().catch(() => '');
    let body: { result?: T; error?: { code: number; message: string; data?: unknown } };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new BundlerUnreachableError(`the bundler answered ${method} with HTTP ${response.status}`, false);
    }
    if (body.error) throw new BundlerRpcError(body.error.code, body.error.message, body.error.data);
    if (!response.ok) {
      throw new BundlerUnreachableError(`the bundler answered ${method} with HTTP ${response.status}`, false);
    }
    return body.result as T;
  }
}

/** A user operation as ERC-4337's JSON-RPC carries it (v0.6: every number a hex quantity). */
export function userOperationToRpc(op: UserOperation): Record<string, Hex> {
  return {
    sender: op.sender,
    nonce: numberToHex(op.nonce),
    initCode: op.initCode,
    callData: op.callData,
    callGasLimit: numberToHex(op.callGasLimit),
    verificationGasLimit: numberToHex(op.verificationGasLimit),
    preVerificationGas: numberToHex(op.preVerificationGas),
    maxFeePerGas: numberToHex(op.maxFeePerGas),
    maxPriorityFeePerGas: numberToHex(op.maxPriorityFeePerGas),
    paymasterAndData: op.paymasterAndData,
    signature: op.signature,
  };
}

/** The signed operation back from its JSON-RPC form. */
export function operationFromRpc(o: Record<string, Hex>): UserOperation {
  const field = (name: string): Hex => {
    const value = o[name];
    if (value === undefined) throw new Error(`journaled operation without ${name}`);
    return value;
  };
  return {
    sender: field('sender'),
    nonce: BigInt(field('nonce')),
    initCode: field('initCode'),
    callData: field('callData'),
    callGasLimit: BigInt(field('callGasLimit')),
    verificationGasLimit: BigInt(field('verificationGasLimit')),
    preVerificationGas: BigInt(field('preVerificationGas')),
    maxFeePerGas: BigInt(field('maxFeePerGas')),
    maxPriorityFeePerGas: BigInt(field('maxPriorityFeePerGas')),
    paymasterAndData: field('paymasterAndData'),
    signature: field('signature'),
  };
}

/** What `eth_getUserOperationReceipt` answers (the fields dauth reads). */
interface RpcUserOperationReceipt {
  userOpHash: Hash;
  success: boolean;
  actualGasCost: Hex;
  receipt: { transactionHash: Hash; blockNumber: Hex; blockHash: Hash };
}

/** One signed operation in the journal (the store is `stores/userOperationJournalStore.ts`). */
export interface JournaledUserOperation {
  userOpHash: Hash;
  chainId: number;
  sender: Address;
  nonce: bigint;
  operation: Record<string, Hex>;
  /** Unix seconds: the paymaster's validUntil. */
  validUntil: number;
}

/** A journaled operation with the bundle it was last seen included in (the reorg watch's view of it). */
export interface IncludedUserOperation extends JournaledUserOperation {
  txHash: Hash | undefined;
  blockNumber: bigint | undefined;
}

/**
 * Where signed operations are written before they go to the bundler, so a restart can ask what became of
 * them and send again the ones that can still land.
 */
export interface UserOperationJournal {
  record(e: JournaledUserOperation): Promise<void>;
  markIncluded(userOpHash: Hash, inclusion: { txHash: Hash; blockNumber: bigint }): Promise<boolean>;
  markDropped(userOpHash: Hash): Promise<boolean>;
  /** A reorg took the bundle `txHash` out of the chain: `included` back to `sent`. True when this call moved it. */
  markReorged(userOpHash: Hash, txHash: Hash): Promise<boolean>;
  open(chainId: number): Promise<JournaledUserOperation[]>;
  /** Entries of `chainId` included in block `fromBlock` or later. */
  includedSince(chainId: number, fromBlock: bigint): Promise<IncludedUserOperation[]>;
  /** Deletes settled entries last changed before `before` (ms). */
  compact(before: number): Promise<number>;
}

/** Settled journal entries are kept this long (ms), for an operator's questions, then deleted at a start. */
const SETTLED_RETENTION_MS = 7 * 24 * 3_600_000;

/**
 * Included operations this close to the head are watched for reorgs (the built-in journal compares its
 * blocks of the last 128 too). A reorg deeper than this is out of scope.
 */
export const REORG_WATCH_BLOCKS = 128n;

/** What one run of the reorg watch did. */
export interface UserOperationReorgReport {
  /** Taken out by a reorg and sent to the bundler again (the same signed operation). */
  resent: number;
  /** Taken out by a reorg and unable to run again (nonce used meanwhile, or sponsorship expired): lost. */
  dropped: number;
  /** Still on the chain, in another block or bundle than journaled (re-recorded). */
  moved: number;
}

/** What `recover` did with the journal's open entries at start. */
export interface UserOperationRecovery {
  included: number;
  dropped: number;
  resent: number;
}

export interface ExternalBundlerOptions {
  /** First and longest pause between receipt checks. */
  pollIntervalMs?: { min: number; max: number };
  /** Send the same signed operation again when it has no receipt after this long (a bundler that restarted forgets). */
  resendAfterMs?: number;
  /** Give up (outcome unknown) when the bundler did not answer for this long after the operation was sent. */
  outageTimeoutMs?: number;
  /** Give up (outcome unknown) when the operation has no receipt after this long. */
  maxWaitMs?: number;
  /** CHAIN_CONFIRMATIONS: blocks its bundle must be deep (its own counted) before it is answered as done. */
  confirmations?: number;
  /** MAX_FEE_PER_GAS (shared with the relayers: `/readyz`'s `chain_fees`); no cap when absent. */
  feePolicy?: FeePolicy;
  /**
   * SPONSOR_MAX_OPERATION_GAS: the most gas (call + verification + pre-verification) the paymaster signs for one
   * operation, whatever the bundler's estimate says; no bound when absent.
   */
  maxOperationGas?: bigint;
}

/** Where to look for an operation on the chain, and until when it can be included. */
interface SentFacts {
  /** A block at or before its first send. */
  fromBlock: bigint;
  /** Unix seconds: its paymaster's validUntil. */
  validUntil: number;
}

/** What following an operation to its receipt needs to know of it. */
type Followed = Pick<PendingOperation, 'sender' | 'nonce'>;

/** A 65-byte signature of the right form that recovers to nobody's key: estimation only (ERC-4337 "dummy signature"). */
const DUMMY_SIGNATURE: Hex = `0x${'11'.repeat(32)}${'22'.repeat(32)}1b`;

/**
 * Submits operations to an independent ERC-4337 bundler (BUNDLER_RPC_URL) instead of dauth's own:
 * `eth_estimateUserOperationGas` for the gas fields, then the paymaster signs those values (its signature
 * covers them), then the owner signs the EntryPoint hash, then `eth_sendUserOperation`; the result comes from
 * `eth_getUserOperationReceipt` and the bundle's receipt on dauth's own node (decoded like the built-in
 * bundler's, revert reasons included).
 *
 * One operation per wallet is with the bundler at a time: the next one of the same wallet is estimated and
 * signed once the previous one is included (public mempools accept few queued operations of one unstaked
 * sender; Alto's default is none), at the chain's nonce. Operations of different wallets go out at once.
 *
 * Crash safety: a sent operation is identified by its userOpHash. Until its receipt is seen, the same
 * signed operation is sent again every `resendAfterMs` (a bundler that restarted or dropped it gets it back;
 * its nonce makes a second inclusion impossible). A bundler that stops answering after the send gives
 * `OperationOutcomeUnknownError` with the userOpHash, as the built-in path does.
 */
export class ExternalBundler implements OperationSubmitter {
  observer: BundlerObserver = {
    bundleMined: () => undefined,
    bundleFailed: () => undefined,
    operationReverted: () => undefined,
  };
  readonly #tails = new Map<string, Promise<void>>();
  readonly #o: Required<Omit<ExternalBundlerOptions, 'maxOperationGas'>>;
  readonly #maxOperationGas: bigint | undefined;
  #closing = false;
  /** Set once `close` is done: every follow still running gives up (outcome unknown). */
  #stopped = false;
  #inFlight = 0;
  #watchTimer: NodeJS.Timeout | undefined;
  #watching: Promise<void> | undefined;
  /** The lowest block the reorg watch reads included entries from (head − REORG_WATCH_BLOCKS at its last run). */
  #watchFloor: bigint | undefined;
  /** Runs of the reorg watch that found an included operation taken out or moved (tests and the log). */
  reorgsSeen = 0;

  constructor(
    private readonly gateway: ChainGateway,
    private readonly sponsor: Sponsor,
    private readonly rpc: BundlerRpc,
    private readonly journal: UserOperationJournal,
    private readonly logger: Logger,
    options: ExternalBundlerOptions = {},
  ) {
    this.#maxOperationGas = options.maxOperationGas;
    const { maxOperationGas: _unused, ...rest } = options;
    this.#o = {
      pollIntervalMs: { min: 250, max: 2_000 },
      resendAfterMs: 15_000,
      outageTimeoutMs: 30_000,
      maxWaitMs: 600_000,
      confirmations: 1,
      feePolicy: new FeePolicy({ maxFeePerGas: undefined, replaceAfterBlocks: 2 }),
      ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)),
    };
  }

  /** Operations sent to the bundler and not yet settled, or waiting for their wallet's previous one. */
  get queued(): number {
    return this.#inFlight;
  }

  /** Resolves when the bundler answers `eth_supportedEntryPoints` within 3 s (readiness). */
  async probe(): Promise<void> {
    await new BundlerRpc(this.rpc.url, 3_000).request<Address[]>('eth_supportedEntryPoints', []);
  }

  /** The EntryPoints the bundler serves (`eth_supportedEntryPoints`), to check ours is among them at start. */
  supportedEntryPoints(): Promise<Address[]> {
    return this.rpc.request<Address[]>('eth_supportedEntryPoints', []);
  }

  expect(): () => void {
    return () => undefined;
  }

  /** The pipeline reads the chain's nonce (for its first signature); it is read again at the send. */
  knowsNonce(): boolean {
    return false;
  }

  admit(op: PendingOperation, chainNonce: bigint | undefined): void {
    if (this.#closing) throw shuttingDown();
    if (chainNonce !== undefined) op.nonce = chainNonce;
  }

  withdraw(): void {
    // Nothing is held before `enqueue`.
  }

  enqueue(op: PendingOperation): Promise<OperationResult> {
    if (this.#closing) {
      op.reject(shuttingDown());
      return op.result;
    }
    const key = op.sender.toLowerCase();
    const previous = this.#tails.get(key) ?? Promise.resolve();
    this.#inFlight += 1;
    const run = previous.then(() => this.#submit(op));
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      this.#inFlight -= 1;
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    run.then(
      (result) => op.resolve(result),
      (err: unknown) => op.reject(err),
    );
    return op.result;
  }

  /** Refuses new operations and waits (up to `timeoutMs`) for the ones with the bundler to settle. */
  async close(timeoutMs = 15_000): Promise<void> {
    this.#closing = true;
    if (this.#watchTimer) clearInterval(this.#watchTimer);
    this.#watchTimer = undefined;
    await this.#watching;
    const timer = new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref());
    await Promise.race([Promise.all([...this.#tails.values()]), timer]);
    this.#stopped = true;
  }

  /**
   * Submits `op`; a bundler that names a fee floor in its refusal ("maxPriorityFeePerGas must be at least N",
   * as Alto and Pimlico's API answer) gets the operation again, estimated and signed anew with that floor, as
   * long as the floor is within MAX_FEE_PER_GAS: above it the operation is refused (`fee_cap_exceeded`), so a
   * hostile bundler or a fee spike cannot make the paymaster sponsor gas at any price.
   */
  async #submit(op: PendingOperation): Promise<OperationResult> {
    const floors: FeeFloors = {};
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#attempt(op, floors);
      } catch (err) {
        const floor = attempt < 3 ? feeFloorOf(err) : undefined;
        if (!floor) throw err;
        this.logger.info(
          { sender: op.sender, ...stringified(floor) },
          'the bundler asks for higher fees; signing again',
        );
        // A later refusal never lowers a floor an earlier one named.
        for (const [field, value] of Object.entries(floor) as [keyof FeeFloors, bigint][]) {
          floors[field] = max(floors[field] ?? 0n, value);
        }
      }
    }
  }

  async #attempt(op: PendingOperation, floors: FeeFloors): Promise<OperationResult> {
    const { contracts, chainId } = this.gateway;
    const entryPoint = contracts.entry_point;
    const [nonce, deployed, nodeFees] = await Promise.all([
      this.gateway.getNonce(op.sender, op.nonceKey),
      this.gateway.isDeployed(op.sender),
      this.gateway.fees(),
    ]);
    // Both fields within MAX_FEE_PER_GAS before anything is signed (the estimate's stub sponsorship included).
    const fees = this.#o.feePolicy.forBundler(nodeFees, floors);
    if (!fees) {
      this.logger.warn(
        { sender: op.sender, ...stringified(floors), cap: String(this.#o.feePolicy.options.maxFeePerGas) },
        'the bundler asks more per gas than MAX_FEE_PER_GAS; operation refused, nothing signed',
      );
      throw feeCapExceeded();
    }
    op.nonce = nonce;
    if (deployed) op.deployed = true;
    const initCode: Hex =
      isFirstOfKey(nonce) && !op.deployed
        ? encodeInitCode(contracts.account_factory, op.firstOwner, op.salt)
        : '0x';
    const draft: UnsignedUserOperation = {
      sender: op.sender,
      nonce,
      initCode,
      callData: op.callData,
      callGasLimit: op.callGasLimit,
      verificationGasLimit:
        initCode === '0x'
          ? OPERATION_GAS.verificationGasLimit
          : OPERATION_GAS.verificationGasLimitWithInitCode,
      preVerificationGas: OPERATION_GAS.preVerificationGas,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    };

    // 1. The bundler's gas values, estimated with a sponsorship of the right form (its signature cannot match
    //    gas values that are not known yet) and a dummy owner signature: both only make validation report a
    //    signature failure, which estimation ignores.
    const stub = await this.sponsor.sponsor(draft);
    const estimate = await this.#call<{
      callGasLimit: Hex;
      verificationGasLimit: Hex;
      preVerificationGas: Hex;
    }>('eth_estimateUserOperationGas', [
      userOperationToRpc({ ...draft, paymasterAndData: stub.paymasterAndData, signature: DUMMY_SIGNATURE }),
      entryPoint,
    ]);
    const verification = BigInt(estimate.verificationGasLimit);
    const unsigned: UnsignedUserOperation = {
      ...draft,
      // Never below dauth's own estimate of the call (with its 20% margin): the state may move before inclusion.
      callGasLimit: max(BigInt(estimate.callGasLimit), op.callGasLimit),
      // The real signatures take the success path of validation: a little more gas than the dummies' failure.
      verificationGasLimit: verification + verification / 5n,
      preVerificationGas: BigInt(estimate.preVerificationGas),
    };
    // The estimate is the bundler's word: a hostile one could ask the paymaster to pay for inflated gas
    // (pre-verification gas is paid to the bundler's beneficiary). Nothing is signed above the operation cap.
    const asked = unsigned.callGasLimit + unsigned.verificationGasLimit + unsigned.preVerificationGas;
    if (this.#maxOperationGas !== undefined && asked > this.#maxOperationGas) {
      this.logger.warn(
        { sender: op.sender, asked: asked.toString(), cap: this.#maxOperationGas.toString() },
        "the bundler's gas estimate exceeds SPONSOR_MAX_OPERATION_GAS; nothing signed",
      );
      throw bundlerGasRefused(this.#maxOperationGas);
    }

    // 2. The paymaster signs the final gas values, 3. the owner signs the EntryPoint hash over everything.
    const { paymasterAndData, validUntil } = await this.sponsor.sponsor(unsigned);
    const sponsored: UserOperation = { ...unsigned, paymasterAndData, signature: '0x' };
    const userOpHash = getUserOpHash(sponsored, entryPoint, chainId);
    const signed: UserOperation = { ...sponsored, signature: await op.owner.signUserOpHash(userOpHash) };
    op.signed = { op: signed, userOpHash, nonce, validUntil };

    // 4. Journal it (nothing is sent when that fails), send it, then follow it to its receipt.
    try {
      await this.journal.record({
        userOpHash,
        chainId,
        sender: op.sender,
        nonce,
        operation: userOperationToRpc(signed),
        validUntil,
      });
    } catch (err) {
      this.logger.error({ err, userOpHash }, 'the user operation journal could not be written; nothing sent');
      throw chainUnavailable();
    }
    const sent: SentFacts = { fromBlock: await this.gateway.blockNumber(), validUntil };
    let answered: Hash;
    try {
      answered = await this.#send(signed, userOpHash, entryPoint, false);
    } catch (err) {
      // Refused (or the bundler certainly got nothing): it never runs.
      await this.journal.markDropped(userOpHash).catch(() => undefined);
      throw err;
    }
    if (answered.toLowerCase() !== userOpHash.toLowerCase()) {
      this.logger.warn({ answered, userOpHash }, 'the bundler named another userOpHash than the EntryPoint');
    }
    op.sentUserOpHashes.push(userOpHash);
    return this.#follow(op, signed, userOpHash, entryPoint, sent);
  }

  /** `eth_sendUserOperation`. An unreachable bundler before the first send is "nothing sent" (503). */
  async #send(signed: UserOperation, userOpHash: Hash, entryPoint: Address, again: boolean): Promise<Hash> {
    try {
      return await this.rpc.request<Hash>('eth_sendUserOperation', [userOperationToRpc(signed), entryPoint]);
    } catch (err) {
      if (again) throw err;
      if (err instanceof BundlerUnreachableError) {
        if (err.refused) throw chainUnavailable();
        // A timeout may have delivered it: follow it like a sent one.
        return userOpHash;
      }
      throw refusal(err, userOpHash);
    }
  }

  async #follow(
    op: Followed,
    signed: UserOperation,
    userOpHash: Hash,
    entryPoint: Address,
    sent: SentFacts,
    /** False when the operation was counted already (given back after a reorg): metrics count it once. */
    count = true,
  ): Promise<OperationResult> {
    const o = this.#o;
    const start = Date.now();
    let lastAnswerAt = start;
    let lastSendAt = start;
    let pause = o.pollIntervalMs.min;
    for (;;) {
      let found: RpcUserOperationReceipt | null | undefined;
      try {
        found = await this.rpc.request<RpcUserOperationReceipt | null>('eth_getUserOperationReceipt', [
          userOpHash,
        ]);
        lastAnswerAt = Date.now();
      } catch (err) {
        if (!(err instanceof BundlerUnreachableError || err instanceof BundlerRpcError)) throw err;
        found = undefined;
      }
      if (found) {
        const result = await this.#settled(op, found.receipt.transactionHash, userOpHash, entryPoint, count);
        if (result) return result;
      } else if (found === null && Date.now() - lastSendAt >= o.resendAfterMs) {
        lastSendAt = Date.now();
        // Not included as far as the bundler knows. The chain may know better (a bundler that forgot its
        // receipt), or know that it can never be included (its nonce went to another operation, or its
        // sponsorship expired): then nothing was changed, and it is not sent again.
        const fate = await this.#fateOnChain(op, userOpHash, sent).catch(() => undefined);
        if (fate?.kind === 'included') {
          const result = await this.#settled(op, fate.txHash, userOpHash, entryPoint, count);
          if (result) return result;
          continue;
        }
        if (fate?.kind === 'never') {
          await this.journal.markDropped(userOpHash).catch(() => undefined);
          this.logger.warn({ userOpHash, why: fate.why }, 'the bundler did not include the operation');
          throw new AppError(
            502,
            'bundle_failed',
            `The bundler did not include the operation (${fate.why}); nothing was changed`,
            { user_op_hash: userOpHash },
          );
        }
        // Still open: the same signed operation again (a bundler that restarted has forgotten it).
        await this.#send(signed, userOpHash, entryPoint, true).catch((err: unknown) => {
          this.logger.info(
            { userOpHash, err: (err as Error).message },
            'operation sent to the bundler again',
          );
        });
      }
      if (
        this.#stopped ||
        Date.now() - lastAnswerAt > o.outageTimeoutMs ||
        Date.now() - start > o.maxWaitMs
      ) {
        this.logger.error(
          { userOpHash },
          'no receipt from the bundler; the outcome of the operation is unknown',
        );
        throw new OperationOutcomeUnknownError({ userOpHash });
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, o.pollIntervalMs.max);
    }
  }

  /** What the chain says of an operation the bundler has no receipt for. */
  async #fateOnChain(
    op: Followed,
    userOpHash: Hash,
    sent: SentFacts,
  ): Promise<{ kind: 'included'; txHash: Hash } | { kind: 'never'; why: string } | undefined> {
    // The nonce first, then the events: a bundle mined between the two reads has its event seen by the
    // second. In the other order (found under load through Alto, bench:ops --bundler alto) an operation whose
    // bundle landed between them was answered 502 "nothing was changed" although it ran.
    const nonceUsed = await this.#nonceUsed(op.sender, op.nonce);
    const [receipt] = await this.gateway.receiptsOfOperations([userOpHash], sent.fromBlock);
    if (receipt) return { kind: 'included', txHash: receipt.transactionHash };
    if (nonceUsed) return { kind: 'never', why: 'its nonce was used by another operation' };
    // A little past the window, so a block of the window's last second has surely been seen.
    if (Math.floor(Date.now() / 1000) > sent.validUntil + 30) {
      return { kind: 'never', why: 'its sponsorship expired before it was included' };
    }
    return undefined;
  }

  /** The result once the bundle is `confirmations` deep on dauth's own node; undefined while it is not. */
  async #settled(
    op: Followed,
    txHash: Hash,
    userOpHash: Hash,
    entryPoint: Address,
    count: boolean,
  ): Promise<OperationResult | undefined> {
    const client = this.gateway.client;
    const [receipt, head] = await Promise.all([
      client.getTransactionReceipt({ hash: txHash }).catch(() => undefined),
      client.getBlockNumber({ cacheTime: 0 }).catch(() => undefined),
    ]);
    // Our node may lag the bundler's, or a reorg took the bundle out: ask again later.
    if (!receipt || head === undefined) return undefined;
    if (head < receipt.blockNumber + BigInt(this.#o.confirmations - 1)) return undefined;
    const outcome = decodeOperationResults(receipt, entryPoint).get(userOpHash.toLowerCase());
    if (!outcome) return undefined;
    this.gateway.markDeployed(op.sender);
    // An operation of the service was mined: fees are payable again (`/readyz` `chain_fees` back to ok).
    this.#o.feePolicy.mined();
    // The journal learns the inclusion before the caller does; a failed write only leaves it for the recovery.
    await this.journal
      .markIncluded(userOpHash, { txHash, blockNumber: receipt.blockNumber })
      .catch((err: unknown) => this.logger.warn({ err, userOpHash }, 'journal: inclusion not recorded'));
    if (count) {
      this.observer.bundleMined(1);
      if (outcome.revert) this.observer.operationReverted(outcome.revert.name ?? 'unknown');
    }
    return {
      userOpHash,
      txHash,
      success: outcome.success,
      ...(outcome.revert !== undefined ? { revert: outcome.revert } : {}),
      sender: op.sender,
      nonce: op.nonce,
      actualGasCost: outcome.actualGasCost,
      blockNumber: receipt.blockNumber,
    };
  }

  /**
   * At start: settles every journaled operation of this chain still open (sent before a crash or a restart):
   * included (the bundler's receipt, or its `UserOperationEvent` on the chain), dropped (its nonce went to
   * another operation, or its sponsorship expired: it can never run), or sent again (same signed bytes, same
   * userOpHash: it runs at most once) and followed in the background.
   */
  async recover(): Promise<UserOperationRecovery> {
    const { chainId, contracts } = this.gateway;
    const report: UserOperationRecovery = { included: 0, dropped: 0, resent: 0 };
    await this.journal.compact(Date.now() - SETTLED_RETENTION_MS);
    const open = await this.journal.open(chainId);
    if (open.length === 0) return report;
    const head = await this.gateway.blockNumber();
    const fromBlock = head > 50_000n ? head - 50_000n : 0n;
    for (const entry of open) {
      // The nonce before the inclusion, as in `#fateOnChain`: one mined between the reads is seen as included.
      const nonceUsed = await this.#nonceUsed(entry.sender, entry.nonce);
      const receipt = await this.#inclusionOf(entry.userOpHash, fromBlock);
      if (receipt) {
        await this.journal.markIncluded(entry.userOpHash, receipt);
        report.included += 1;
        continue;
      }
      if (nonceUsed || entry.validUntil <= Math.floor(Date.now() / 1000) + 5) {
        await this.journal.markDropped(entry.userOpHash);
        report.dropped += 1;
        continue;
      }
      const signed = operationFromRpc(entry.operation);
      try {
        await this.rpc.request<Hash>('eth_sendUserOperation', [entry.operation, contracts.entry_point]);
      } catch (err) {
        if (err instanceof BundlerRpcError) {
          // Refused now (e.g. its nonce is taken in the bundler's mempool by a newer one): look again later.
          this.logger.warn({ userOpHash: entry.userOpHash, err: err.message }, 'journaled operation refused');
        } else {
          throw err;
        }
      }
      report.resent += 1;
      void this.#follow(
        { sender: entry.sender, nonce: entry.nonce },
        signed,
        entry.userOpHash,
        contracts.entry_point,
        { fromBlock, validUntil: entry.validUntil },
      ).catch((err: unknown) =>
        this.logger.warn({ err, userOpHash: entry.userOpHash }, 'journaled operation not settled'),
      );
    }
    this.logger.info(report, 'user operation journal recovered');
    return report;
  }

  /**
   * Watches the operations answered as done for reorgs every `intervalMs` (external chains only; the
   * composition root starts it with the chain journal's cadence, `reorgCheckMs`).
   */
  watchReorgs(intervalMs: number): void {
    this.#watchTimer ??= setInterval(() => {
      this.#watching ??= this.checkReorg()
        .then(() => undefined)
        .catch((err: unknown) => this.logger.debug({ err }, 'user operation reorg check failed'))
        .finally(() => (this.#watching = undefined));
    }, intervalMs);
    this.#watchTimer.unref();
  }

  /**
   * One run of the reorg watch: are the operations included in the last REORG_WATCH_BLOCKS blocks still on
   * the chain (their `UserOperationEvent` by userOpHash, one batched read with the head)? One a reorg took out
   * is sent to the bundler again, the same signed operation (same userOpHash; its nonce makes a second
   * inclusion impossible), its journal entry back to `sent` and followed to its new receipt. One whose nonce
   * went to another operation meanwhile, or whose sponsorship expired, can never run: `dropped`, logged as an
   * error (an operation answered as done is lost).
   */
  async checkReorg(): Promise<UserOperationReorgReport> {
    const report: UserOperationReorgReport = { resent: 0, dropped: 0, moved: 0 };
    const { chainId, contracts } = this.gateway;
    this.#watchFloor ??= max((await this.gateway.blockNumber()) - REORG_WATCH_BLOCKS, 0n);
    const watched = (await this.journal.includedSince(chainId, this.#watchFloor)).filter(
      (e): e is IncludedUserOperation & { txHash: Hash; blockNumber: bigint } =>
        e.txHash !== undefined && e.blockNumber !== undefined,
    );
    if (watched.length === 0) return report;
    const oldest = watched.reduce(
      (low, e) => (e.blockNumber < low ? e.blockNumber : low),
      watched[0]!.blockNumber,
    );
    const { head, inclusions } = await this.gateway.operationInclusions(
      watched.map((e) => e.userOpHash),
      oldest,
    );
    this.#watchFloor = max(head - REORG_WATCH_BLOCKS, 0n);
    // Where a given-back operation may land: anywhere after the fork point, which may lie below its block.
    const fromBlock = min(this.#watchFloor, oldest);
    for (const entry of watched) {
      let now = inclusions.get(entry.userOpHash.toLowerCase());
      if (now && sameHash(now.txHash, entry.txHash) && now.blockNumber === entry.blockNumber) continue;
      const nonceUsed = !now && (await this.#nonceUsed(entry.sender, entry.nonce));
      if (nonceUsed) {
        // Its nonce is used: by another operation, or by this one mined again after the batched read above
        // (a read of the events after the nonce tells which; dropping it then would log a landed operation
        // as lost).
        now = (await this.gateway.operationInclusions([entry.userOpHash], fromBlock)).inclusions.get(
          entry.userOpHash.toLowerCase(),
        );
      }
      if (now) {
        // On the chain still, in another block (a reorg mined it elsewhere): only re-recorded.
        if (await this.journal.markReorged(entry.userOpHash, entry.txHash)) {
          await this.journal.markIncluded(entry.userOpHash, now);
          report.moved += 1;
        }
        continue;
      }
      const why = nonceUsed
        ? 'its nonce was used by another operation'
        : entry.validUntil <= Math.floor(Date.now() / 1000) + 5
          ? 'its sponsorship expired'
          : undefined;
      // Of two replicas that saw the same reorg, one alone takes it back.
      if (!(await this.journal.markReorged(entry.userOpHash, entry.txHash))) continue;
      const facts = {
        userOpHash: entry.userOpHash,
        sender: entry.sender,
        nonce: String(entry.nonce),
        txHash: entry.txHash,
        blockNumber: String(entry.blockNumber),
      };
      if (why) {
        await this.journal.markDropped(entry.userOpHash);
        report.dropped += 1;
        this.logger.error(
          { ...facts, why },
          'a reorg took out an operation answered as done, and it can no longer run: it is lost',
        );
        continue;
      }
      try {
        await this.rpc.request<Hash>('eth_sendUserOperation', [entry.operation, contracts.entry_point]);
      } catch (err) {
        // Refused or unanswered now: the follow below sends it again while it can still land.
        this.logger.warn({ ...facts, err: (err as Error).message }, 'reorged operation not accepted yet');
      }
      report.resent += 1;
      this.logger.warn(facts, 'a reorg took out an operation answered as done; sent to the bundler again');
      void this.#follow(
        { sender: entry.sender, nonce: entry.nonce },
        operationFromRpc(entry.operation),
        entry.userOpHash,
        contracts.entry_point,
        { fromBlock, validUntil: entry.validUntil },
        false,
      ).then(
        (result) =>
          this.logger.info(
            { userOpHash: entry.userOpHash, txHash: result.txHash, blockNumber: String(result.blockNumber) },
            'the reorged operation is on the chain again',
          ),
        (err: unknown) =>
          this.logger.error(
            { ...facts, err },
            'a reorg took out an operation answered as done, and it was not given back',
          ),
      );
    }
    if (report.resent + report.dropped + report.moved > 0) this.reorgsSeen += 1;
    return report;
  }

  /** Whether `nonce` of `sender` was used (by any operation): read under that nonce's own key. */
  async #nonceUsed(sender: Address, nonce: bigint): Promise<boolean> {
    return (await this.gateway.getNonce(sender, nonceKeyOf(nonce))) > nonce;
  }

  /** Where the operation ran: the bundler's receipt, or its `UserOperationEvent` on our node since `fromBlock`. */
  async #inclusionOf(
    userOpHash: Hash,
    fromBlock: bigint,
  ): Promise<{ txHash: Hash; blockNumber: bigint } | undefined> {
    const found = await this.rpc
      .request<RpcUserOperationReceipt | null>('eth_getUserOperationReceipt', [userOpHash])
      .catch(() => null);
    if (found) {
      return { txHash: found.receipt.transactionHash, blockNumber: BigInt(found.receipt.blockNumber) };
    }
    const [receipt] = await this.gateway.receiptsOfOperations([userOpHash], fromBlock);
    return receipt ? { txHash: receipt.transactionHash, blockNumber: receipt.blockNumber } : undefined;
  }

  async #call<T>(method: string, params: unknown[]): Promise<T> {
    try {
      return await this.rpc.request<T>(method, params);
    } catch (err) {
      if (err instanceof BundlerUnreachableError) throw chainUnavailable();
      throw refusal(err);
    }
  }
}

/** Lowest fees a bundler named in a refusal. */
type FeeFloors = Partial<Fees>;

/** The largest value a fee field of a user operation can hold (uint256). */
const MAX_UINT256 = 2n ** 256n - 1n;

/**
 * The fee floor a bundler's refusal names ("maxFeePerGas must be at least 123 …"), if it names one. The text
 * is the bundler's, so it is read defensively: only the first 1,000 characters, whole decimal numbers of at
 * most 78 digits that fit a uint256 (anything else names no floor), the higher of two floors of one field.
 * Whether a floor is followed is the fee policy's decision (never above MAX_FEE_PER_GAS).
 */
export function feeFloorOf(err: unknown): FeeFloors | undefined {
  const text = (
    err instanceof UserOperationRejectedError ? err.reason : err instanceof Error ? err.message : String(err)
  ).slice(0, 1_000);
  const floors: FeeFloors = {};
  for (const match of text.matchAll(
    /\b(maxFeePerGas|maxPriorityFeePerGas) must be at least (\d+)(?![\w.])/g,
  )) {
    const field = match[1] as keyof FeeFloors;
    const digits = match[2]!;
    if (digits.length > 78) return undefined;
    const value = BigInt(digits);
    if (value > MAX_UINT256) return undefined;
    floors[field] = max(floors[field] ?? 0n, value);
  }
  return Object.keys(floors).length > 0 ? floors : undefined;
}

const stringified = (floors: FeeFloors) =>
  Object.fromEntries(Object.entries(floors).map(([k, v]) => [k, String(v)]));

/** A bundler's refusal as the EntryPoint's typed error (`AA25 …` → 409 `nonce_conflict`, …). */
function refusal(err: unknown, userOpHash?: Hash): AppError {
  if (!(err instanceof BundlerRpcError)) return err instanceof AppError ? err : chainUnavailable();
  const reason = /AA\d\d[^"\n]*/.exec(err.message)?.[0]?.trim() ?? `bundler: ${err.message.slice(0, 300)}`;
  return new UserOperationRejectedError(reason, userOpHash);
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);
const sameHash = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The bundler asks more per gas than MAX_FEE_PER_GAS: refused before anything is signed at that price. */
function bundlerGasRefused(cap: bigint): AppError {
  return new AppError(
    502,
    'bundler_gas_refused',
    `The bundler's gas estimate exceeds what one operation may be sponsored for (${cap}); nothing was changed`,
  );
}

function feeCapExceeded(): AppError {
  return new AppError(
    503,
    'fee_cap_exceeded',
    "Gas costs more right now than this service's fee cap allows; nothing was changed, try again later",
  );
}

function shuttingDown(): AppError {
  return new AppError(503, 'shutting_down', 'The service is shutting down; nothing was changed');
}

/**
 * The external bundler of BUNDLER_RPC_URL, checked at start: it must serve this deployment's EntryPoint
 * (a bundler of another EntryPoint would refuse every operation). A paymaster without stake at the EntryPoint
 * is logged: ERC-7562 lets only a staked paymaster read its own storage in validation (the verifying signer).
 */
export async function connectExternalBundler(p: {
  url: string;
  gateway: ChainGateway;
  sponsor: Sponsor;
  journal: UserOperationJournal;
  logger: Logger;
  options?: ExternalBundlerOptions;
}): Promise<ExternalBundler> {
  const bundler = new ExternalBundler(
    p.gateway,
    p.sponsor,
    new BundlerRpc(p.url),
    p.journal,
    p.logger,
    p.options,
  );
  const entryPoint = p.gateway.contracts.entry_point;
  let supported: Address[];
  try {
    supported = await bundler.supportedEntryPoints();
  } catch (err) {
    throw new Error(`BUNDLER_RPC_URL does not answer eth_supportedEntryPoints (${(err as Error).message})`, {
      cause: err,
    });
  }
  if (!supported.some((a) => a.toLowerCase() === entryPoint.toLowerCase())) {
    throw new Error(
      `Refusing to start: the bundler at BUNDLER_RPC_URL serves the EntryPoints ${supported.join(', ') || 'none'}, ` +
        `not this deployment's ${entryPoint}`,
    );
  }
  const info = await p.gateway.client.readContract({
    address: entryPoint,
    abi: entryPointAbi,
    functionName: 'getDepositInfo',
    args: [p.gateway.contracts.paymaster],
  });
  if (!info.staked) {
    p.logger.warn(
      { paymaster: p.gateway.contracts.paymaster },
      'the paymaster has no stake at the EntryPoint: a bundler that enforces ERC-7562 refuses its operations ' +
        '(stake it with addStake, docs/operations.md "Which bundler")',
    );
  }
  p.logger.info({ entryPoint }, 'user operations go to the external bundler (BUNDLER_RPC_URL)');
  await bundler.recover();
  return bundler;
}
