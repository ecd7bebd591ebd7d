import { keccak256, type LocalAccount, type TransactionReceipt } from 'viem';
import type { Logger } from 'pino';
import { AppError, chainUnavailable } from '../../errors.js';
import type { ChainClient } from '../chainClient.js';
import { classifySendError, errorText, isTransportError, translateChainError } from '../chainErrors.js';
import type { ChainGateway, Fees } from '../chainGateway.js';
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
  /** Replace a transaction that is still not mined after this long with one paying 25% more. */
  feeBumpAfterMs?: number;
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

type SendResult = 'accepted' | 'nonce_used' | 'refused' | 'unreachable';

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
    Omit<RelayerSubmitterOptions, 'client' | 'gateway' | 'relayer' | 'logger' | 'sender'>
  >;

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
  }

  get address(): Address {
    return this.options.relayer.address;
  }

  /** Forget the cached nonce (the chain restarted, or another process may have used the key). */
  reset(): void {
    this.#nonce = undefined;
  }

  async submit(request: { to: Address; data: Hex; gas: bigint }): Promise<SubmissionOutcome> {
    const { gateway, logger } = this.options;
    const o = this.#o;
    let nonce = this.#nonce ?? (await this.#chainNonce('pending'));
    let fees = await gateway.fees();
    let raw = await this.#sign(request, nonce, fees);
    const hashes: Hash[] = [keccak256(raw)];

    const start = Date.now();
    let lastSendAt = -Infinity;
    let lastAnswerAt = start;
    let lastBumpAt = start;
    let lastNonceCheckAt = start;
    let maybeSent = false;
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
          await new Promise((resolve) => setTimeout(resolve, o.pollIntervalMs.max));
          continue;
        } else {
          lastAnswerAt = Date.now();
        }

        if (receipt !== 'unreachable' && Date.now() - lastNonceCheckAt >= o.resendAfterMs) {
          lastNonceCheckAt = Date.now();
          const mined = await this.#chainNonce('latest').catch(() => undefined);
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
            // A gap below us (the node restarted from an older state): take the chain's nonce.
            logger.warn({ nonce, chainNonce: mined }, 'relayer nonce gap; re-signing at the chain nonce');
            nonce = mined;
            raw = await this.#sign(request, nonce, fees);
            hashes.push(keccak256(raw));
            lastSendAt = -Infinity;
            continue;
          }
        }

        if (Date.now() - lastBumpAt >= o.feeBumpAfterMs) {
          lastBumpAt = Date.now();
          const current = await gateway.fees().catch(() => fees);
          fees = {
            maxFeePerGas: max((fees.maxFeePerGas * 125n) / 100n, current.maxFeePerGas),
            maxPriorityFeePerGas: max(
              (fees.maxPriorityFeePerGas * 125n) / 100n,
              current.maxPriorityFeePerGas,
            ),
          };
          logger.warn({ nonce, fees }, 'bundle not mined yet; replacing it with higher fees');
          raw = await this.#sign(request, nonce, fees);
          hashes.push(keccak256(raw));
          lastSendAt = -Infinity;
          continue;
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
    const others = hashes.filter((h) => h !== receipt.transactionHash);
    if (others.length > 0) await this.options.sender.dropped(others);
    return { kind: 'mined', receipt };
  }

  #sign(request: { to: Address; data: Hex; gas: bigint }, nonce: number, fees: Fees): Promise<Hex> {
    return this.options.relayer.signTransaction({
      chainId: this.options.gateway.chainId,
      type: 'eip1559',
      to: request.to,
      data: request.data,
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

const max = (a: bigint, b: bigint) => (a > b ? a : b);

/** The tuning fields of `options` that are set. */
function definedTuning(options: RelayerSubmitterOptions): Partial<RelayerSubmitterOptions> {
  const { pollIntervalMs, resendAfterMs, feeBumpAfterMs, outageTimeoutMs, maxWaitMs, confirmations } =
    options;
  const tuning = { pollIntervalMs, resendAfterMs, feeBumpAfterMs, outageTimeoutMs, maxWaitMs, confirmations };
  return Object.fromEntries(Object.entries(tuning).filter(([, v]) => v !== undefined));
}
