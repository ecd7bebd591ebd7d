import { keccak256, type LocalAccount, type TransactionReceipt } from 'viem';
import type { Logger } from 'pino';
import { AppError, chainUnavailable } from '../../errors.js';
import type { ChainClient } from '../chainClient.js';
import { classifySendError, errorText, isTransportError, translateChainError } from '../chainErrors.js';
import type { ChainGateway, Fees } from '../chainGateway.js';
import { FeePolicy } from '../feePolicy.js';
import type { JournaledSender } from '../journal/journaledSender.js';
import type { Address, Hash, Hex } from '../types.js';
import { fetchReceipt } from '../waitForReceipt.js';

export interface RelayerSubmitterOptions {
  client: ChainClient;
  gateway: ChainGateway;
  relayer: LocalAccount;
  logger: Logger;
  /** Journals each signed transaction before it is sent, and where it was mined. */
  sender: JournaledSender;
  /** First and longest pause between receipt checks (it doubles in between). */
  pollIntervalMs?: { min: number; max: number };
  /** Send the same signed transaction again when no receipt came for this long. */
  resendAfterMs?: number;
  /**
   * Replace a transaction that is still not mined after this long with one paying more (a fallback for a
   * chain whose blocks stall; the fee policy's `replaceAfterBlocks` is the usual trigger).
   */
  feeBumpAfterMs?: number;
  /** Fee cap and replacement pricing (MAX_FEE_PER_GAS); shared by every signer of the process. */
  feePolicy?: FeePolicy;
  /** Give up (outcome unknown) when the node did not answer for this long. */
  outageTimeoutMs?: number;
  /** Give up (outcome unknown) when a transaction is not mined after this long. */
  maxWaitMs?: number;
  /**
   * Blocks a bundle must be deep before it is answered as mined (CHAIN_CONFIRMATIONS; 1 = its own block).
   * While it is not deep enough a reorg may take it out: then it is sent again like any lost transaction.
   */
  confirmations?: number;
}

export type SubmissionOutcome =
  | { kind: 'mined'; receipt: TransactionReceipt }
  /** Not included and never will be (its nonce went to another transaction): submit the operations again. */
  | { kind: 'dropped' };

/** A transaction was sent and the node then stopped answering: it may or may not be mined. */
export class SubmissionOutcomeUnknown extends Error {
  constructor(readonly txHashes: Hash[]) {
    super(`no receipt for ${txHashes.join(', ')}; the node stopped answering`);
    this.name = 'SubmissionOutcomeUnknown';
  }
}

/** `fee_too_low`: the node refused it because its fee cap is under the base fee now (anvil, geth). */
type SendResult = 'accepted' | 'nonce_used' | 'refused' | 'unreachable' | 'fee_too_low';

/**
 * The only user of the relayer key. It owns the relayer's nonce, signs each `handleOps` transaction locally,
 * sends it, and follows it to a receipt: the same signed transaction is sent again while it is pending
 * (a node that restarted from an older state, or dropped it from its pool, gets it back); a nonce gap is
 * closed by re-signing at the chain's nonce; a transaction stuck on fees is replaced with higher fees; a
 * transaction whose nonce went elsewhere is reported `dropped` so its operations are submitted again.
 * Nothing is silently forgotten: the caller gets a receipt, `dropped`, `chain_unavailable` (nothing was
 * sent) or `SubmissionOutcomeUnknown`.
 */
export class RelayerSubmitter {
  #nonce: number | undefined;
  readonly #o: Required<
    Omit<RelayerSubmitterOptions, 'client' | 'gateway' | 'relayer' | 'logger' | 'sender' | 'feePolicy'>
  >;
  readonly #fees: FeePolicy;

  constructor(private readonly options: RelayerSubmitterOptions) {
    this.#o = {
      pollIntervalMs: { min: 2, max: 1_000 },
      resendAfterMs: 3_000,
      feeBumpAfterMs: 60_000,
      outageTimeoutMs: 20_000,
      maxWaitMs: 600_000,
      confirmations: 1,
      ...definedTuning(options),
    };
    this.#fees = options.feePolicy ?? new FeePolicy({ maxFeePerGas: undefined, replaceAfterBlocks: 2 });
  }

  get feePolicy(): FeePolicy {
    return this.#fees;
  }

  get address(): Address {
    return this.options.relayer.address;
  }

  /** Forget the cached nonce (the chain restarted, or another process may have used the key). */
  reset(): void {
    this.#nonce = undefined;
  }

  async submit(request: TransactionRequest): Promise<SubmissionOutcome> {
    const { gateway, logger } = this.options;
    const o = this.#o;
    const policy = this.#fees;
    let nonce = this.#nonce ?? (await this.#chainNonce('pending'));
    let fees = policy.initial(await gateway.fees());
    let raw = await this.#sign(request, nonce, fees);
    const hashes: Hash[] = [keccak256(raw)];

    const start = Date.now();
    let lastSendAt = -Infinity;
    let lastAnswerAt = start;
    let lastBumpAt = start;
    let lastNonceCheckAt = start;
    /** The head when the transaction now out was sent (or last seen included): replacement counts from it. */
    let sentAtBlock: bigint | undefined;
    let head: { number: bigint; baseFee: bigint | undefined } | undefined;
    let maybeSent = false;
    /** The node refused the last send for a fee cap under the base fee: reprice without waiting for blocks. */
    let feeTooLow = false;
    let pause = o.pollIntervalMs.min;

    try {
      for (;;) {
        const now = Date.now();
        if (now - lastSendAt >= o.resendAfterMs) {
          lastSendAt = now;
          const sent = await this.#send(raw);
          if (sent !== 'refused') maybeSent = true;
          if (sent === 'accepted' || sent === 'nonce_used') lastAnswerAt = now;
          if (sent === 'nonce_used') lastNonceCheckAt = -Infinity; // settle it below, after a receipt check
          feeTooLow = sent === 'fee_too_low';
          if (feeTooLow) lastAnswerAt = now;
        }

        const receipt = await this.#receipt(hashes);
        if (receipt === 'unreachable') {
          if (Date.now() - lastAnswerAt > o.outageTimeoutMs) {
            this.#nonce = undefined;
            if (!maybeSent) throw chainUnavailable();
            throw new SubmissionOutcomeUnknown(hashes);
          }
        } else if (receipt) {
          if (await this.#deepEnough(receipt)) {
            this.#nonce = nonce + 1;
            return await this.#mined(receipt, hashes);
          }
          // Included, not yet deep enough: no re-send, no fee bump (it would replace a mined transaction).
          lastAnswerAt = Date.now();
          lastSendAt = lastAnswerAt;
          lastBumpAt = lastAnswerAt;
          sentAtBlock = undefined;
          await new Promise((resolve) => setTimeout(resolve, o.pollIntervalMs.max));
          continue;
        } else {
          lastAnswerAt = Date.now();
        }

        if (receipt !== 'unreachable' && Date.now() - lastNonceCheckAt >= o.resendAfterMs) {
          lastNonceCheckAt = Date.now();
          const [mined, latest] = await Promise.all([
            this.#chainNonce('latest').catch(() => undefined),
            this.options.client.getBlock({ blockTag: 'latest' }).catch(() => undefined),
          ]);
          if (latest) {
            head = { number: latest.number, baseFee: latest.baseFeePerGas ?? undefined };
            sentAtBlock ??= latest.number;
          }
          if (mined !== undefined && mined > nonce) {
            // Our nonce was used. If not by one of our transactions (checked once more), they are gone.
            const late = await this.#receipt(hashes);
            if (late && late !== 'unreachable') {
              if (await this.#deepEnough(late)) {
                this.#nonce = nonce + 1;
                return await this.#mined(late, hashes);
              }
            } else if (late !== 'unreachable') {
              logger.warn({ nonce, hashes }, 'relayer nonce was used by another transaction; resubmitting');
              this.#nonce = undefined;
              await this.options.sender.dropped(hashes);
              return { kind: 'dropped' };
            }
          } else if (
            mined !== undefined &&
            mined < nonce &&
            // A failed read must not throw: the bundle may be out, so "unavailable" would claim it was not sent.
            (await this.#chainNonce('pending').catch(() => nonce)) < nonce
          ) {
            // A gap below us. A reorg dropped a transaction of ours that was answered as done, or a node
            // restarted from an older state: the journal gives back what it holds for those nonces (the same
            // signed bytes); re-signing at the chain's nonce would take a nonce that carries answered work.
            if (await this.options.sender.refill(this.address, mined, nonce)) {
              logger.warn(
                { nonce, chainNonce: mined },
                'relayer nonce gap below a journaled transaction; the journal sends it again, the relayer waits',
              );
              continue;
            }
            logger.warn({ nonce, chainNonce: mined }, 'relayer nonce gap; re-signing at the chain nonce');
            nonce = mined;
            raw = await this.#sign(request, nonce, fees);
            hashes.push(keccak256(raw));
            lastSendAt = -Infinity;
            continue;
          }
        }

        const blocksWaited = head && sentAtBlock !== undefined ? Number(head.number - sentAtBlock) : 0;
        if (
          blocksWaited >= policy.options.replaceAfterBlocks ||
          (feeTooLow && Date.now() - lastBumpAt >= o.resendAfterMs) ||
          Date.now() - lastBumpAt >= o.feeBumpAfterMs
        ) {
          lastBumpAt = Date.now();
          feeTooLow = false;
          sentAtBlock = head?.number;
          const current = await gateway.fees().catch(() => fees);
          const next = policy.replacement(fees, current);
          if (next) {
            fees = next;
            logger.warn(
              { nonce, blocksWaited, fees: feesForLog(fees), capped: policy.state.capped },
              'transaction not mined yet; replacing it with higher fees (same nonce)',
            );
            raw = await this.#sign(request, nonce, fees);
            hashes.push(keccak256(raw));
            lastSendAt = -Infinity;
            continue;
          }
          if (policy.stuckAtCap(fees, head?.baseFee, current)) {
            logger.warn(
              { nonce, fees: feesForLog(fees), baseFee: head?.baseFee?.toString() },
              'transaction offers MAX_FEE_PER_GAS and the chain asks more; waiting for the base fee to fall',
            );
          }
        }

        if (Date.now() - start > o.maxWaitMs) {
          this.#nonce = undefined;
          throw new SubmissionOutcomeUnknown(hashes);
        }
        await new Promise((resolve) => setTimeout(resolve, pause));
        pause = Math.min(pause * 2, o.pollIntervalMs.max);
      }
    } catch (err) {
      // Once the bundle may be out, no error may read as "not sent": the caller would send its
      // operations again. Report the outcome as unknown so it is settled from the chain instead.
      if (maybeSent && !(err instanceof SubmissionOutcomeUnknown)) {
        this.#nonce = undefined;
        throw new SubmissionOutcomeUnknown(hashes);
      }
      throw err;
    }
  }

  /** Whether `receipt`'s block is CHAIN_CONFIRMATIONS deep (counting its own); a failed read is "not yet". */
  async #deepEnough(receipt: TransactionReceipt): Promise<boolean> {
    const { confirmations } = this.#o;
    if (confirmations <= 1) return true;
    const head = await this.options.client.getBlockNumber({ cacheTime: 0 }).catch(() => undefined);
    return head !== undefined && head >= receipt.blockNumber + BigInt(confirmations - 1);
  }

  /** The journal learns the block (and its time) before the caller hears of the inclusion. */
  async #mined(receipt: TransactionReceipt, hashes: Hash[]): Promise<SubmissionOutcome> {
    await this.options.sender.confirm(receipt);
    this.#fees.mined();
    const others = hashes.filter((h) => h !== receipt.transactionHash);
    if (others.length > 0) await this.options.sender.dropped(others);
    return { kind: 'mined', receipt };
  }

  #sign(request: TransactionRequest, nonce: number, fees: Fees): Promise<Hex> {
    return this.options.relayer.signTransaction({
      chainId: this.options.gateway.chainId,
      type: 'eip1559',
      to: request.to,
      data: request.data,
      value: request.value ?? 0n,
      gas: request.gas,
      nonce,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
  }

  async #chainNonce(blockTag: 'pending' | 'latest'): Promise<number> {
    try {
      return await this.options.client.getTransactionCount({ address: this.address, blockTag });
    } catch (err) {
      throw translateChainError(err);
    }
  }

  async #send(raw: Hex): Promise<SendResult> {
    try {
      await this.options.sender.send(raw, this.address);
      return 'accepted';
    } catch (err) {
      if (err instanceof AppError) throw err; // the journal refused: nothing was sent
      if (isTransportError(err)) return connectionRefused(err) ? 'refused' : 'unreachable';
      // `underpriced`: a transaction of ours with this nonce is in the pool, which is as good as accepted.
      const kind = classifySendError(errorText(err));
      if (kind === 'known' || kind === 'underpriced') return 'accepted';
      if (kind === 'fee_too_low') return 'fee_too_low';
      if (kind === 'nonce_used') return 'nonce_used';
      if (kind === 'unfunded') {
        throw new AppError(503, 'relayer_unfunded', "The platform's relayer cannot pay for gas right now");
      }
      throw translateChainError(err);
    }
  }

  /** The receipt of any of `hashes`, null when none is mined, or `unreachable`. */
  async #receipt(hashes: Hash[]): Promise<TransactionReceipt | null | 'unreachable'> {
    try {
      const found = await Promise.all(hashes.map((hash) => fetchReceipt(this.options.client, hash)));
      // Two of our transactions can both be mined (a replacement after a chain rewind): the one that
      // succeeded is the one that carried the operations.
      return found.find((r) => r?.status === 'success') ?? found.find((r) => r !== null) ?? null;
    } catch (err) {
      if (isTransportError(err)) return 'unreachable';
      throw translateChainError(err);
    }
  }
}

function connectionRefused(err: unknown): boolean {
  let refused = false;
  const visit = (e: unknown, depth: number): void => {
    if (!e || depth > 8 || refused) return;
    if ((e as { code?: unknown }).code === 'ECONNREFUSED') refused = true;
    visit((e as { cause?: unknown }).cause, depth + 1);
  };
  visit(err, 0);
  return refused;
}

/** One transaction of the account: `gas` is its limit. */
export interface TransactionRequest {
  to: Address;
  data: Hex;
  gas: bigint;
  value?: bigint;
}

const feesForLog = (fees: Fees) => ({
  maxFeePerGas: fees.maxFeePerGas.toString(),
  maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
});

/** The tuning fields of `options` that are set. */
function definedTuning(options: RelayerSubmitterOptions): Partial<RelayerSubmitterOptions> {
  const { pollIntervalMs, resendAfterMs, feeBumpAfterMs, outageTimeoutMs, maxWaitMs, confirmations } =
    options;
  const tuning = { pollIntervalMs, resendAfterMs, feeBumpAfterMs, outageTimeoutMs, maxWaitMs, confirmations };
  return Object.fromEntries(Object.entries(tuning).filter(([, v]) => v !== undefined));
}
