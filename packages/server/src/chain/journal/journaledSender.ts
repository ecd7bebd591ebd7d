import { custom, parseTransaction, type Transport } from 'viem';
import { transactionHash } from '../transactionSigning.js';
import type { Logger } from 'pino';
import { chainUnavailable } from '../../errors.js';
import { classifySendError, errorText } from '../chainErrors.js';
import type { ChainClient } from '../chainClient.js';
import type { Address, Hash, Hex } from '../types.js';
import { fetchReceipt } from '../waitForReceipt.js';
import { currentLink, type Link } from '../../observability/spans.js';
import { NoJournal, type TransactionJournal } from './transactionJournal.js';

/** The part of a receipt the journal needs. */
export interface MinedAt {
  transactionHash: Hash;
  blockNumber: bigint;
  blockHash: Hash;
  transactionIndex: number;
  /** The block's timestamp, when the node puts it in its receipts (anvil, reth); else read from the header. */
  blockTimestamp?: bigint | undefined;
}

/**
 * The one way the service puts a signed transaction on the chain (relayer bundles, deployment, faucet,
 * operator top-ups): the transaction is written to the journal, durably, before it is sent; once its
 * receipt is seen, the block and the block's timestamp are added. A recovery can then give a chain that
 * lost blocks every transaction back, in its block, at its time (journalRecovery.ts).
 */
export class JournaledSender {
  #lastSeq = 0;
  #gate: Promise<void> | undefined;
  #openGate: (() => void) | undefined;
  /**
   * Hashes already journaled by this process (a resend of the same bytes is not written again), each with
   * the span that sent it (a bundle's): a round that gives it back links to it (docs/operations.md, "Traces").
   */
  readonly #recorded = new Map<Hash, Link | undefined>();
  #lastBlock: { hash: Hash; timestamp: bigint } | undefined;
  /**
   * The blocks (number → hash) this process recorded transactions in lately, for the reorg watch: when the
   * chain's block at one of these numbers is another, a reorg took it (JournalMaintenance.checkReorg). All
   * of the recent ones, not only the newest: a transaction confirmed on the new branch must not hide one
   * below it that the reorg took.
   */
  readonly recentInclusions = new Map<bigint, Hash>();

  constructor(
    private readonly client: ChainClient,
    readonly journal: TransactionJournal,
    readonly chainId: number,
    private readonly logger: Logger,
  ) {}

  /** Holds every send until `resume()` (a recovery replays into the chain meanwhile). */
  pause(): void {
    this.#gate ??= new Promise((resolve) => (this.#openGate = resolve));
  }

  resume(): void {
    this.#openGate?.();
    this.#gate = undefined;
    this.#openGate = undefined;
  }

  /**
   * Journals `raw` (signed by `sender`), then sends it. Node errors are thrown as `sendRawTransaction` throws
   * them. `known`: the transaction's hash and nonce when the caller has them already (the relayer signed it):
   * a bundle's raw transaction carries all its operations' calldata, and hashing and decoding it again here
   * cost a measurable share of the server's CPU per bundle (docs/performance-content.md).
   */
  async send(raw: Hex, sender: Address, known?: { hash: Hash; nonce: number }): Promise<Hash> {
    while (this.#gate) await this.#gate;
    const hash = known?.hash ?? transactionHash(raw);
    if (!this.#recorded.has(hash)) {
      const nonce = known ? known.nonce : parseTransaction(raw).nonce;
      try {
        await this.journal.record({
          hash,
          chainId: this.chainId,
          seq: this.#nextSeq(),
          sender,
          nonce: nonce ?? 0,
          raw,
        });
      } catch (err) {
        // Nothing unjournaled goes out: a transaction the journal cannot give back could be lost in a crash.
        this.logger.error({ err, hash }, 'could not journal a transaction; not sending it');
        throw chainUnavailable('The chain journal cannot be written');
      }
      this.#remember(hash, currentLink());
    }
    return this.client.sendRawTransaction({ serializedTransaction: raw });
  }

  /**
   * Records where a journaled transaction was mined. Callers wait for it before they answer, so every
   * transaction answered as included has its block time in the journal.
   */
  async confirm(receipt: MinedAt): Promise<void> {
    // Switched off (a benchmark's baseline): the block header is fetched only for the journal.
    if (this.journal instanceof NoJournal) return;
    try {
      let block = this.#lastBlock;
      if (receipt.blockTimestamp !== undefined) {
        block = { hash: receipt.blockHash, timestamp: receipt.blockTimestamp };
      } else if (block?.hash !== receipt.blockHash) {
        const header = await this.client.getBlock({ blockHash: receipt.blockHash });
        block = { hash: receipt.blockHash, timestamp: header.timestamp };
        this.#lastBlock = block;
      }
      await this.journal.markMined(receipt.transactionHash, {
        blockNumber: receipt.blockNumber,
        blockHash: receipt.blockHash,
        blockTimestamp: block.timestamp,
        txIndex: receipt.transactionIndex,
      });
      this.recentInclusions.delete(receipt.blockNumber);
      this.recentInclusions.set(receipt.blockNumber, receipt.blockHash);
      if (this.recentInclusions.size > 64) {
        const oldest = this.recentInclusions.keys().next().value;
        if (oldest !== undefined) this.recentInclusions.delete(oldest);
      }
    } catch (err) {
      // The entry stays `sent`: a recovery still sends it again (at the time of the recovery).
      this.logger.warn(
        { err, hash: receipt.transactionHash },
        'could not record where a transaction was mined',
      );
    }
  }

  /** Marks transactions that can never be mined (their nonce went to another one). */
  async dropped(hashes: readonly Hash[]): Promise<void> {
    await this.journal
      .markDropped(hashes)
      .catch((err: unknown) => this.logger.warn({ err }, 'could not mark journal entries dropped'));
  }

  /**
   * Sends again, byte for byte and in nonce order, the journaled transactions of `from` for every nonce in
   * [`fromNonce`, `toNonce`) (a reorg or a node restarted from an older state left a gap below a sender's next
   * nonce, or the pool dropped one of several transactions in flight). Per nonce the one the journal saw mined
   * goes first, else the newest sent. Returns the nonces of the range the journal holds no transaction for
   * (empty: the gap is the journal's to close), or undefined when the journal cannot be read. The caller must
   * not sign anything else at a nonce the journal holds (it would take the nonce of work answered as done),
   * even when the node does not take it back right now (its fee cap is under a spiked base fee: the journal's
   * rounds send it again).
   */
  async refill(from: Address, fromNonce: number, toNonce: number): Promise<number[] | undefined> {
    if (toNonce <= fromNonce) return [];
    let entries: Awaited<ReturnType<TransactionJournal['entries']>>;
    try {
      entries = (await this.journal.entries(this.chainId)).filter(
        (e) => e.sender.toLowerCase() === from.toLowerCase() && e.nonce >= fromNonce && e.nonce < toNonce,
      );
    } catch (err) {
      this.logger.warn({ err }, 'could not read the chain journal to close a nonce gap');
      return undefined;
    }
    const unheld: number[] = [];
    for (let nonce = fromNonce; nonce < toNonce; nonce++) {
      const candidates = entries
        .filter((e) => e.nonce === nonce)
        .sort((a, b) => Number(answered(b)) - Number(answered(a)) || b.seq - a.seq);
      const entry = candidates[0];
      if (!entry) {
        unheld.push(nonce);
        continue;
      }
      try {
        await this.client.sendRawTransaction({ serializedTransaction: entry.raw });
      } catch (err) {
        const kind = classifySendError(errorText(err));
        // Already in the pool (or a replacement of ours is): the gap closes by itself. Mined already (the
        // node's nonce moved past it meanwhile): nothing to close. Anything else: the journal's rounds keep
        // sending it; nothing else may take its nonce meanwhile.
        if (kind === 'known' || kind === 'underpriced' || kind === 'nonce_used') continue;
        this.logger.warn(
          { hash: entry.hash, nonce, err: errorText(err) },
          'the node does not take a journaled transaction again yet; its nonce stays reserved for it',
        );
        continue;
      }
      this.logger.warn(
        { hash: entry.hash, sender: from, nonce, state: entry.state },
        'a journaled transaction the chain lost was sent again',
      );
    }
    return unheld;
  }

  /** Asks the chain for the receipt of every entry whose outcome was not seen yet (deployment, a crash). */
  async settleOutstanding(): Promise<number> {
    let settled = 0;
    for (const entry of await this.journal.unsettled(this.chainId)) {
      const receipt = await fetchReceipt(this.client, entry.hash);
      if (!receipt) continue;
      await this.confirm(receipt);
      settled++;
    }
    return settled;
  }

  /**
   * A viem transport for a wallet client of `from` (the deployer): every `eth_sendRawTransaction` goes
   * through the journal, everything else to the node.
   */
  transportFor(from: Address): Transport {
    return custom({
      request: async ({ method, params }: { method: string; params?: unknown }) => {
        if (method === 'eth_sendRawTransaction') return this.send((params as [Hex])[0], from);
        return this.client.request({ method, params } as never);
      },
    });
  }

  #nextSeq(): number {
    // Microseconds of the wall clock, strictly increasing: the send order, also across restarts.
    this.#lastSeq = Math.max(this.#lastSeq + 1, Date.now() * 1000);
    return this.#lastSeq;
  }

  /** The span that sent `hash` from this process, if it still remembers it. */
  originOf(hash: Hash): Link | undefined {
    return this.#recorded.get(hash);
  }

  #remember(hash: Hash, origin: Link | undefined): void {
    this.#recorded.set(hash, origin);
    if (this.#recorded.size > 10_000) {
      const oldest = this.#recorded.keys().next().value;
      if (oldest !== undefined) this.#recorded.delete(oldest);
    }
  }
}

/** Mined once (and so answered as done), whether the chain still has its block or not. */
const answered = (e: { state: string }) => e.state === 'mined' || e.state === 'lost';
