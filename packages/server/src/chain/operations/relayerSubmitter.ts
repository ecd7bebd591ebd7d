import type { LocalAccount, TransactionReceipt } from 'viem';
import type { Logger } from 'pino';
import { AppError, chainUnavailable } from '../../errors.js';
import type { ChainClient } from '../chainClient.js';
import { classifySendError, errorText, isTransportError, translateChainError } from '../chainErrors.js';
import type { ChainGateway, Fees } from '../chainGateway.js';
import { FeePolicy } from '../feePolicy.js';
import type { JournaledSender } from '../journal/journaledSender.js';
import type { Address, Hash, Hex } from '../types.js';
import { fetchReceipt } from '../waitForReceipt.js';
import { HeadWatch } from './headWatch.js';
import { RelayerNonces } from './relayerNonces.js';
import { signEip1559, transactionHash } from '../transactionSigning.js';

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

/** What one submission has done so far (its catch and finally read it). */
interface Flight {
  /** Every signed version of its transaction (a fee replacement adds one), oldest first. */
  hashes: Hash[];
  /** The transaction may have reached the node: its nonce is used, or will be. */
  sent: boolean;
}

/**
 * The only user of the relayer key. It owns the relayer's nonces, signs each `handleOps` transaction locally,
 * sends it, and follows it to a receipt. Several submissions may run at once (the bundler keeps
 * BUNDLES_IN_FLIGHT bundles in flight): each takes the next nonce (`RelayerNonces`) and follows its own
 * transaction. The same signed transaction is sent again while it is pending (a node that restarted from an
 * older state, or dropped it from its pool, gets it back); a nonce gap below it is closed with what the
 * journal holds for those nonces, in nonce order, and a nonce nothing holds gets a no-op transfer; a
 * transaction stuck on fees is replaced with higher fees; a transaction whose nonce went elsewhere is reported
 * `dropped` so its operations are submitted again. Nothing is silently forgotten: the caller gets a receipt,
 * `dropped`, `chain_unavailable` (nothing was sent) or `SubmissionOutcomeUnknown`.
 */
export class RelayerSubmitter {
  readonly #nonces: RelayerNonces;
  /** New blocks wake the submissions waiting for receipts (pauses of 100 ms and more). */
  readonly #heads: HeadWatch;
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
    this.#nonces = new RelayerNonces(() => this.#chainNonce('pending'));
    this.#heads = new HeadWatch(
      () => this.options.gateway.blockNumber(),
      Math.max(this.#o.pollIntervalMs.min, 100),
    );
  }

  get feePolicy(): FeePolicy {
    return this.#fees;
  }

  get address(): Address {
    return this.options.relayer.address;
  }

  /** Transactions being followed now (each a submission that has not returned). */
  get inFlight(): number {
    return this.#nonces.inFlight;
  }

  /**
   * Read the chain's nonce again before the next transaction (the chain restarted, or another process may
   * have used the key); with transactions in flight, once they are done.
   */
  reset(): void {
    this.#nonces.invalidate();
  }

  async submit(request: TransactionRequest): Promise<SubmissionOutcome> {
    // A failed read of the chain's nonce throws `chain_unavailable`: nothing was taken or sent.
    const nonce = await this.#nonces.take();
    const flight: Flight = { hashes: [], sent: false };
    try {
      return await this.#follow(request, nonce, flight);
    } catch (err) {
      // Once the bundle may be out, no error may read as "not sent": the caller would send its
      // operations again. Report the outcome as unknown so it is settled from the chain instead.
      if (flight.sent && !(err instanceof SubmissionOutcomeUnknown)) {
        this.#nonces.invalidate();
        throw new SubmissionOutcomeUnknown(flight.hashes);
      }
      // Journaled, never on the node: the journal must not give it back later (its operations are answered
      // as not sent), and its nonce goes to the next transaction or a filler.
      if (!flight.sent && flight.hashes.length > 0) await this.options.sender.dropped(flight.hashes);
      throw err;
    } finally {
      this.#nonces.release(nonce, flight.sent);
    }
  }

  /** Sends the transaction at `nonce` and follows it until it is mined deep enough or its nonce went elsewhere. */
  async #follow(request: TransactionRequest, nonce: number, flight: Flight): Promise<SubmissionOutcome> {
    const { gateway, logger } = this.options;
    const o = this.#o;
    const policy = this.#fees;
    let fees = policy.initial(await gateway.fees());
    let raw = await this.#sign(request, nonce, fees);
    const hashes = flight.hashes;
    hashes.push(transactionHash(raw));

    const start = Date.now();
    let lastSendAt = -Infinity;
    let lastAnswerAt = start;
    let lastBumpAt = start;
    let lastNonceCheckAt = start;
    /** The head when the transaction now out was sent (or last seen included): replacement counts from it. */
    let sentAtBlock: bigint | undefined;
    let head: { number: bigint; baseFee: bigint | undefined } | undefined;
    /** The node refused the last send for a fee cap under the base fee: reprice without waiting for blocks. */
    let feeTooLow = false;
    let pause = o.pollIntervalMs.min;

    for (;;) {
      const now = Date.now();
      if (now - lastSendAt >= o.resendAfterMs) {
        lastSendAt = now;
        const sent = await this.#send(raw, { hash: hashes.at(-1)!, nonce });
        if (sent !== 'refused') flight.sent = true;
        if (sent === 'accepted' || sent === 'nonce_used') lastAnswerAt = now;
        if (sent === 'nonce_used') lastNonceCheckAt = -Infinity; // settle it below, after a receipt check
        feeTooLow = sent === 'fee_too_low';
        if (feeTooLow) lastAnswerAt = now;
      }

      const receipt = await this.#receipt(hashes);
      if (receipt === 'unreachable') {
        if (Date.now() - lastAnswerAt > o.outageTimeoutMs) {
          this.#nonces.invalidate();
          if (!flight.sent) throw chainUnavailable();
          throw new SubmissionOutcomeUnknown(hashes);
        }
      } else if (receipt) {
        if (await this.#deepEnough(receipt)) return await this.#mined(receipt, hashes);
        // Included, not yet deep enough: no re-send, no fee bump (it would replace a mined transaction).
        lastAnswerAt = Date.now();
        lastSendAt = lastAnswerAt;
        lastBumpAt = lastAnswerAt;
        sentAtBlock = undefined;
        await this.#wait(o.pollIntervalMs.max);
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
            if (await this.#deepEnough(late)) return await this.#mined(late, hashes);
          } else if (late !== 'unreachable') {
            logger.warn({ nonce, hashes }, 'relayer nonce was used by another transaction; resubmitting');
            this.#nonces.invalidate();
            await this.options.sender.dropped(hashes);
            return { kind: 'dropped' };
          }
        } else if (mined !== undefined && mined < nonce) {
          // A failed read must not throw: the bundle may be out, so "unavailable" would claim it was not sent.
          const pending = await this.#chainNonce('pending').catch(() => nonce);
          if (pending < nonce) await this.#closeGap(mined, pending, nonce);
          // Lower transactions of ours are still to be mined first: a higher fee would not get this one in
          // sooner, so the blocks it waits do not count towards a replacement (unless the base fee priced it out).
          const pricedOut = feeTooLow || (head?.baseFee !== undefined && fees.maxFeePerGas < head.baseFee);
          if (!pricedOut) {
            sentAtBlock = head?.number;
            lastBumpAt = Date.now();
          }
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
          hashes.push(transactionHash(raw));
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
        this.#nonces.invalidate();
        throw new SubmissionOutcomeUnknown(hashes);
      }
      await this.#wait(pause);
      pause = Math.min(pause * 2, o.pollIntervalMs.max);
    }
  }

  /** Sleeps `ms`; a pause longer than the head watch's interval ends early at the next block. */
  #wait(ms: number): Promise<void> {
    if (ms <= this.#heads.intervalMs) return new Promise((resolve) => setTimeout(resolve, ms));
    return this.#heads.next(ms);
  }

  /**
   * Lower nonces of ours are missing on the node (its pending nonce `pending` is below `nonce`): a reorg or a
   * restarted node lost transactions answered as done, its pool dropped one, or a submission below ours ended
   * without sending. In nonce order, each gets its transaction back: a hole (taken, never sent) a no-op
   * transfer; the journal sends what it holds (the same signed bytes: re-signing something else at those
   * nonces would take the nonce of work answered as done); a nonce below ours that nothing holds and no
   * submission of ours is sending also gets a no-op transfer. Lower submissions still running send their own.
   */
  async #closeGap(mined: number, pending: number, nonce: number): Promise<void> {
    for (let n = pending; n < nonce; n++) if (this.#nonces.isHole(n)) await this.#fill(n);
    const unheld = await this.options.sender.refill(this.address, mined, nonce);
    // The journal cannot be read: the next check tries again (nothing unjournaled may be sent meanwhile).
    if (unheld === undefined) return;
    if (unheld.length < nonce - mined) {
      this.options.logger.warn(
        { nonce, chainNonce: mined },
        'relayer nonce gap below a journaled transaction; the journal sends it again, the relayer waits',
      );
    }
    for (const n of unheld) if (n >= pending && !this.#nonces.isFlying(n)) await this.#fill(n);
  }

  /** Takes `nonce` with a transfer of nothing to the relayer itself (journaled like any transaction). */
  async #fill(nonce: number): Promise<void> {
    const { gateway, logger } = this.options;
    try {
      const fees = this.#fees.initial(await gateway.fees());
      const raw = await this.#sign({ to: this.address, data: '0x', gas: 21_000n }, nonce, fees);
      const sent = await this.#send(raw);
      if (sent !== 'accepted' && sent !== 'nonce_used') return;
      this.#nonces.filled(nonce);
      logger.warn(
        { nonce, hash: transactionHash(raw) },
        'relayer nonce gap: a nonce nothing holds was filled with a no-op transfer; the later bundles can be mined',
      );
    } catch (err) {
      logger.warn({ err, nonce }, 'could not fill a relayer nonce gap yet; trying again at the next check');
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
    return signEip1559(this.options.relayer, {
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

  async #send(raw: Hex, known?: { hash: Hash; nonce: number }): Promise<SendResult> {
    try {
      await this.options.sender.send(raw, this.address, known);
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
