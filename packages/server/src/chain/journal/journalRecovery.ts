import type { Logger } from 'pino';
import { classifySendError, errorText } from '../chainErrors.js';
import type { ChainClient } from '../chainClient.js';
import type { Address, Hash, Hex } from '../types.js';
import { fetchReceipt } from '../waitForReceipt.js';
import { DirectRpc, type RpcOutcome } from '../directRpc.js';
import type { JournaledSender } from './journaledSender.js';
import { activeSpan, linksOf } from '../../observability/spans.js';
import type { JournalEntry } from './transactionJournal.js';

/** What `/readyz` shows while a recovery runs, and after. */
export interface RecoveryProgress {
  state: 'idle' | 'running' | 'done' | 'failed';
  /** Transactions the chain had lost. */
  missing: number;
  /** Of those, mined again (or re-sent, on a chain that cannot be given timestamps). */
  replayed: number;
  /** Could not be put back (their nonce was taken, the chain refused them). */
  failed: number;
  startedAt: number;
  finishedAt: number | undefined;
}

export interface RecoveryReport extends RecoveryProgress {
  mode: 'replay' | 'resend' | 'none';
  /** Milliseconds spent comparing the journal with the chain, and giving it back. */
  compareMs: number;
}

/** What the journal's recovery and reorg watch report (composition/observability.ts counts them). */
export interface JournalObserver {
  /** Transactions the chain had lost (a reorg, a node restarted from older state), found to be given back. */
  lost?(count: number): void;
  /** A transaction the chain had confirmed that could not be given back (its nonce was used by another). */
  unrecoverable?(): void;
  /** A reorg replaced blocks holding journaled transactions. */
  reorg?(replacedBlocks: number): void;
}

/** A block of lost transactions, mined again at its original time (or at the recovery's time when unknown). */
interface ReplayGroup {
  entries: JournalEntry[];
  /** Original block number and timestamp; undefined for transactions whose outcome was never seen. */
  blockNumber: bigint | undefined;
  timestamp: bigint | undefined;
}

/**
 * Gives the chain back what it lost: compares the journal with the chain and sends every journaled
 * transaction the chain no longer holds again, byte for byte, in the original order.
 *
 * - Which journaled blocks the chain still holds: block hashes chain each block to all before it, so the
 *   newest journaled block whose hash the chain still has vouches for every earlier one. Everything
 *   journaled after it is missing (the chain's head is lower, or its block holds other transactions).
 * - On anvil (the embedded chain, or an external anvil) each lost block is mined again with its original
 *   timestamp: automine off, the block's transactions sent, `evm_mine` at the original time. Paymaster
 *   validity windows and signatures are checked against the same time as the first time, so they hold.
 * - On other nodes the transactions are re-sent where their nonce still fits (a reorg dropped them).
 * - Transactions whose outcome was never seen (sent just before a crash) go last, at the current time, but only
 *   this process's own (`ownSenders`): beside live replicas on one journal, another replica's unanswered
 *   transaction is in flight, not lost; that replica gives it back itself when it restarts.
 */
export class JournalRecovery {
  progress: RecoveryProgress = {
    state: 'idle',
    missing: 0,
    replayed: 0,
    failed: 0,
    startedAt: 0,
    finishedAt: undefined,
  };

  /** Told of lost transactions found and of those that could not be given back (metrics). */
  observer: JournalObserver = {};
  #compareMs = 0;
  /** The journal's entries of the run (every state but dropped): a lost transaction's replacements among them. */
  #entries: JournalEntry[] = [];
  /** Set for the length of a run when the node is reached over HTTP(S). */
  #direct: DirectRpc | undefined;

  constructor(
    private readonly client: ChainClient,
    private readonly sender: JournaledSender,
    private readonly logger: Logger,
    /** The accounts this process signs for (its relayer, the deployer); undefined: every sender's. */
    private readonly ownSenders?: readonly Address[],
  ) {}

  /** The check for `/readyz`: undefined when the chain holds everything, else what is missing. */
  get detail(): string | undefined {
    const p = this.progress;
    if (p.state === 'running' && p.missing === 0) return 'recovering: comparing the chain with the journal';
    if (p.state === 'running') return `recovering: ${p.replayed}/${p.missing} lost transactions replayed`;
    if (p.state === 'failed') return 'chain recovery failed (see the log)';
    return undefined;
  }

  /**
   * `replay: true` mines lost blocks again at their times (anvil only; nothing else may send meanwhile:
   * pause the sender). `replay: false` only re-sends what is missing (safe beside live traffic).
   */
  async run({
    replay = true,
    unknown = true,
  }: {
    replay?: boolean;
    /** Also send transactions whose outcome was never seen (at start: they were in flight at the crash). */
    unknown?: boolean;
  } = {}): Promise<RecoveryReport> {
    const journal = this.sender.journal;
    const chainId = this.sender.chainId;
    this.progress = {
      state: 'running',
      missing: 0,
      replayed: 0,
      failed: 0,
      startedAt: Date.now(),
      finishedAt: undefined,
    };
    const url = (this.client.transport as { url?: unknown }).url;
    this.#direct = typeof url === 'string' && /^https?:/.test(url) ? new DirectRpc(url) : undefined;
    try {
      const entries = await journal.entries(chainId);
      this.#entries = entries;
      const missing = await this.#missing(
        unknown ? entries : entries.filter((e) => e.state === 'mined' || e.state === 'lost'),
      );
      this.#compareMs = Date.now() - this.progress.startedAt;
      // Forget the blocks the chain no longer has: the journal's inclusions stay a chain of canonical blocks
      // (the hash comparison above relies on it), and a round that cannot give one back now (its fee cap is
      // under the base fee, the node refuses it) leaves it `lost`, so the next round sends it again.
      await journal.markLost(missing.lost.filter((e) => e.state === 'mined').map((e) => e.hash));
      this.progress.missing = missing.lost.length + missing.relost.length + missing.unknown.length;
      if (missing.lost.length + missing.relost.length > 0)
        this.observer.lost?.(missing.lost.length + missing.relost.length);
      // The round's trace links to the bundles (and through them the requests) whose transactions it gives back.
      const all = [...missing.lost, ...missing.relost, ...missing.unknown];
      activeSpan()?.addLinks(linksOf(all.map((e) => this.sender.originOf(e.hash))));
      if (this.progress.missing === 0) return this.#finish('none');
      const anvil = replay && (await this.#isAnvil());
      this.logger.warn(
        {
          lost: missing.lost.length + missing.relost.length,
          unknown: missing.unknown.length,
          heldUpTo: String(missing.heldUpTo),
          mode: anvil ? 'replay' : 'resend',
        },
        'the chain lost journaled transactions; giving them back',
      );
      // Entries already `lost` have no block of their own any more: they go at the current time, before the
      // never-seen ones.
      // Several bundles may have been in flight (BUNDLES_IN_FLIGHT), journaled in the order their sends
      // started, not always their nonces': each sender's go back in nonce order, or a higher one would wait.
      const unmined = inNonceOrder([...missing.relost, ...missing.unknown]);
      if (anvil) await this.#replay(missing.lost, unmined);
      else await this.#resend(inNonceOrder([...missing.lost, ...unmined]));
      const report = this.#finish(anvil ? 'replay' : 'resend');
      this.logger.info(
        {
          replayed: report.replayed,
          failed: report.failed,
          ms: (report.finishedAt ?? 0) - report.startedAt,
        },
        'chain recovery from the journal finished',
      );
      return report;
    } catch (err) {
      this.progress.state = 'failed';
      this.progress.finishedAt = Date.now();
      throw err;
    } finally {
      this.#direct?.close();
      this.#direct = undefined;
      this.#entries = [];
    }
  }

  #finish(mode: RecoveryReport['mode']): RecoveryReport {
    this.progress.state = 'done';
    this.progress.finishedAt = Date.now();
    return { ...this.progress, mode, compareMs: this.#compareMs };
  }

  /** Journaled transactions the chain does not hold: mined ones in block order, then never-seen ones. */
  async #missing(
    entries: JournalEntry[],
  ): Promise<{ lost: JournalEntry[]; relost: JournalEntry[]; unknown: JournalEntry[]; heldUpTo: bigint }> {
    const head = await this.client.getBlockNumber();
    const mined = entries
      .filter((e) => e.state === 'mined' && e.inclusion)
      .sort(
        (a, b) =>
          compareBig(a.inclusion!.blockNumber, b.inclusion!.blockNumber) ||
          a.inclusion!.txIndex - b.inclusion!.txIndex,
      );
    const hashAt = new Map<bigint, Hash>();
    for (const e of mined) hashAt.set(e.inclusion!.blockNumber, e.inclusion!.blockHash);
    let heldUpTo = -1n;
    const numbers = [...hashAt.keys()].filter((n) => n <= head).sort((a, b) => compareBig(b, a));
    const canonical = new Map<bigint, Hash>();
    for (const n of numbers) {
      const block = await this.client.getBlock({ blockNumber: n, includeTransactions: false });
      canonical.set(n, block.hash);
      if (block.hash === hashAt.get(n)) {
        heldUpTo = n;
        break;
      }
    }
    // The hash chain vouches for older blocks only when the journal's newest block was recorded after the
    // reorg, not before: a transaction confirmed on the new branch (the relayer's next bundle) can be the
    // newest while a reorged one below still carries its old block. Within the last RECENT_BLOCKS every
    // journaled block is compared with the chain's (one batched request).
    const recent = numbers.filter((n) => n > head - RECENT_BLOCKS && !canonical.has(n));
    const recentBlocks = await Promise.all(
      recent.map((n) => this.client.getBlock({ blockNumber: n, includeTransactions: false })),
    );
    for (const [i, n] of recent.entries()) canonical.set(n, recentBlocks[i]!.hash);
    const candidates = mined.filter((e) => {
      const n = e.inclusion!.blockNumber;
      if (n > heldUpTo) return true;
      const hash = canonical.get(n);
      return hash !== undefined && hash !== e.inclusion!.blockHash;
    });
    // A lost block's transaction may still be on the chain elsewhere (a reorg mined it in another block).
    const lost = await this.#notOnChain(candidates);
    const own = this.ownSenders?.map((a) => a.toLowerCase());
    const unknown = await this.#notOnChain(
      entries.filter((x) => x.state === 'sent' && (!own || own.includes(x.sender.toLowerCase()))),
    );
    // Lost in an earlier round and not given back yet (or given back and mined since: re-recorded).
    const relost = await this.#notOnChain(entries.filter((x) => x.state === 'lost'));
    return { lost, relost, unknown, heldUpTo };
  }

  /** The entries without a receipt; the others are recorded where they are. */
  async #notOnChain(entries: JournalEntry[]): Promise<JournalEntry[]> {
    const absent: JournalEntry[] = [];
    for (let i = 0; i < entries.length; i += 100) {
      const chunk = entries.slice(i, i + 100);
      // One batched JSON-RPC request per chunk.
      const receipts = await Promise.all(chunk.map((e) => fetchReceipt(this.client, e.hash)));
      for (const [j, receipt] of receipts.entries()) {
        if (receipt) await this.sender.confirm(receipt);
        else absent.push(chunk[j]!);
      }
    }
    return absent;
  }

  async #isAnvil(): Promise<boolean> {
    try {
      const version = await this.client.request({ method: 'web3_clientVersion' });
      return typeof version === 'string' && version.toLowerCase().startsWith('anvil');
    } catch {
      return false;
    }
  }

  /** One JSON-RPC request, straight to the node when it is reached over HTTP (see DirectRpc). */
  async #rpc(method: string, params: unknown[]): Promise<unknown> {
    if (this.#direct) return this.#direct.call(method, params);
    return this.client.request({ method, params } as never);
  }

  async #replay(lost: JournalEntry[], unknown: JournalEntry[]): Promise<void> {
    const groups: ReplayGroup[] = [];
    for (const e of lost) {
      const last = groups.at(-1);
      if (last && last.blockNumber === e.inclusion!.blockNumber) last.entries.push(e);
      else
        groups.push({
          entries: [e],
          blockNumber: e.inclusion!.blockNumber,
          timestamp: e.inclusion!.blockTimestamp,
        });
    }
    for (const e of unknown) groups.push({ entries: [e], blockNumber: undefined, timestamp: undefined });

    const head = await this.client.getBlock({ blockTag: 'latest' });
    let number = head.number;
    let time = head.timestamp;
    // anvil refuses a block time below its clock, which a loaded state file may have set past the head.
    await this.#rpc('anvil_setTime', [Number(time)]);
    // Automine off: a block's transactions wait in the pool until `evm_mine` builds the block at its time,
    // synchronously (a miner left to itself builds it a moment later, at another time).
    await this.#rpc('evm_setAutomine', [false]);
    const mined: { entry: JournalEntry; timestamp: bigint }[] = [];
    try {
      for (const group of groups) {
        time = maxBig(group.timestamp ?? BigInt(Math.floor(Date.now() / 1000)), time);
        // Keep block numbers as they were when only a few empty blocks are missing below.
        const gap = group.blockNumber === undefined ? 0n : group.blockNumber - number - 1n;
        if (gap > 0n && gap <= 64n) {
          for (let i = 0n; i < gap; i++) {
            await this.#rpc('evm_mine', [{ timestamp: Number(time), blocks: 1 }]);
          }
          number += gap;
        }
        const sent: JournalEntry[] = [];
        const outcomes = await this.#sendBlock(group.entries);
        for (const [i, entry] of group.entries.entries()) {
          const outcome = outcomes[i]!;
          if (outcome === 'sent') sent.push(entry);
          else await this.#lose(entry, outcome);
        }
        if (sent.length === 0) continue;
        await this.#rpc('evm_mine', [{ timestamp: Number(time), blocks: 1 }]);
        number++;
        for (const entry of sent) mined.push({ entry, timestamp: time });
        // `/readyz` shows this while the replay runs; #record takes back any that did not land.
        this.progress.replayed += sent.length;
      }
    } finally {
      // Back to a block per transaction, and to the wall clock (never behind the last block).
      const now = maxBig(BigInt(Math.floor(Date.now() / 1000)), time);
      await this.#rpc('anvil_setTime', [Number(now)]).catch((err: unknown) =>
        this.logger.error({ err }, 'could not set the chain clock back after a replay'),
      );
      await this.#rpc('evm_setAutomine', [true]).catch((err: unknown) =>
        this.logger.error({ err }, 'could not switch automine back on after a replay'),
      );
    }
    await this.#record(mined);
  }

  /** Checks every replayed transaction's receipt and block time, and journals where it is now. */
  async #record(mined: { entry: JournalEntry; timestamp: bigint }[]): Promise<void> {
    for (let i = 0; i < mined.length; i += 100) {
      const chunk = mined.slice(i, i + 100);
      const receipts = await Promise.all(chunk.map(({ entry }) => fetchReceipt(this.client, entry.hash)));
      // anvil answers a send before a busy miner has built the block now and then: look again a few times.
      for (let attempt = 0; attempt < 20 && receipts.some((r) => r === null); attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        for (const [j, receipt] of receipts.entries()) {
          if (receipt === null) receipts[j] = await fetchReceipt(this.client, chunk[j]!.entry.hash);
        }
      }
      const blocks = await Promise.all(
        receipts.map((r) => (r ? this.client.getBlock({ blockHash: r.blockHash }) : undefined)),
      );
      for (const [j, { entry, timestamp }] of chunk.entries()) {
        const receipt = receipts[j];
        const block = blocks[j];
        if (!receipt || !block) {
          this.progress.replayed--;
          await this.#lose(entry, 'not mined');
          continue;
        }
        if (block.timestamp !== timestamp) {
          this.logger.warn(
            { hash: entry.hash, wanted: String(timestamp), got: String(block.timestamp) },
            'a replayed block did not get its original time',
          );
        }
        await this.sender.journal.markMined(entry.hash, {
          blockNumber: receipt.blockNumber,
          blockHash: receipt.blockHash,
          blockTimestamp: block.timestamp,
          txIndex: receipt.transactionIndex,
        });
      }
    }
  }

  async #resend(entries: JournalEntry[]): Promise<void> {
    for (const e of entries) {
      const outcome = await this.#sendRaw(e.raw);
      if (outcome === 'sent') this.progress.replayed++;
      else await this.#lose(e, outcome);
    }
    // Their receipts are recorded by the journal watch (`settleOutstanding`) once they are mined.
  }

  async #lose(e: JournalEntry, reason: string): Promise<void> {
    // "Nonce too low" proves nothing lost by itself: the transaction may have come back between the comparison
    // and the send (the relayer's gap refill sent the same bytes, or the node put the reorged block's
    // transactions back in its pool), or its journaled replacement (same work, higher fees) holds the nonce.
    if (reason === 'nonce used' && (await this.#heldAnyway(e))) return;
    this.progress.failed++;
    const confirmed = e.state === 'mined' || e.state === 'lost';
    const fields = { hash: e.hash, sender: e.sender, nonce: e.nonce, reason };
    if (!confirmed) {
      this.logger.warn(fields, 'a transaction sent just before the crash was not replayed');
    } else if (reason === 'nonce used') {
      // Its nonce went to other work: it can never be mined again, and what it did was answered as done.
      this.observer.unrecoverable?.();
      this.logger.error(fields, 'a transaction the chain had confirmed could not be given back');
    } else {
      // Refused for now (its fee cap under a spiked base fee, another transaction pending at its nonce): it
      // stays `lost`, and the next round sends it again (DauthJournalLostTransactions counts it meanwhile).
      this.logger.warn(
        fields,
        'the node does not take a lost transaction back yet; the next round sends it again',
      );
    }
    if (reason === 'nonce used') await this.sender.dropped([e.hash]);
  }

  /**
   * Whether the chain holds `e`'s work after all: `e` itself (recorded where it is, counted as given back), or
   * a journaled transaction of the same sender and nonce (a fee replacement: `e` is dropped, nothing is lost).
   * Nothing else is signed at a nonce the journal holds (`JournaledSender.refill`), so a journaled transaction at
   * `e`'s nonce that is not dropped carries the same work. Receipts are read as the comparison reads them
   * (`#notOnChain`, which records what it finds); a node that does not answer fails the round, which the next
   * one repeats, rather than proving anything lost.
   */
  async #heldAnyway(e: JournalEntry): Promise<boolean> {
    if ((await this.#notOnChain([e])).length === 0) {
      this.progress.replayed++;
      this.logger.info({ hash: e.hash, nonce: e.nonce }, 'a lost transaction was already back on the chain');
      return true;
    }
    const sender = e.sender.toLowerCase();
    const siblings = this.#entries.filter(
      (x) => x.hash !== e.hash && x.nonce === e.nonce && x.sender.toLowerCase() === sender,
    );
    const absent = await this.#notOnChain(siblings);
    const replacement = siblings.find((x) => !absent.includes(x));
    if (!replacement) return false;
    await this.sender.dropped([e.hash]);
    this.progress.replayed++;
    this.logger.info(
      { hash: e.hash, replacement: replacement.hash, nonce: e.nonce },
      'a lost transaction is on the chain as its journaled replacement',
    );
    return true;
  }

  async #sendRaw(raw: Hex): Promise<'sent' | 'nonce used' | string> {
    try {
      await this.#rpc('eth_sendRawTransaction', [raw]);
      return 'sent';
    } catch (err) {
      return sendOutcome(errorText(err));
    }
  }

  /**
   * The transactions of one block into the pool. From one sender they go in one batched request (one
   * round trip: the pool orders them by nonce whatever order the node handles the batch in); from several,
   * one by one, so the block keeps their original order.
   */
  async #sendBlock(entries: JournalEntry[]): Promise<string[]> {
    const senders = new Set(entries.map((e) => e.sender.toLowerCase()));
    if (entries.length === 1 || senders.size > 1 || !this.#direct) {
      const outcomes: string[] = [];
      for (const e of entries) outcomes.push(await this.#sendRaw(e.raw));
      return outcomes;
    }
    const answers = await this.#direct.batch(
      entries.map((e) => ({ method: 'eth_sendRawTransaction', params: [e.raw] })),
    );
    return answers.map((a: RpcOutcome) => ('error' in a ? sendOutcome(a.error.toLowerCase()) : 'sent'));
  }
}

/** A send's error text as the replay classifies it. */
function sendOutcome(text: string): 'sent' | 'nonce used' | string {
  const kind = classifySendError(text);
  if (kind === 'known') return 'sent';
  if (kind === 'nonce_used') return 'nonce used';
  return text.slice(0, 200);
}

/**
 * `entries` with each sender's entries in ascending nonce order, in the places that sender's entries had:
 * the order between senders is kept, a sender's own is made the order its nonces can be mined in.
 */
export function inNonceOrder(entries: readonly JournalEntry[]): JournalEntry[] {
  const bySender = new Map<string, JournalEntry[]>();
  for (const e of entries) {
    const key = e.sender.toLowerCase();
    const list = bySender.get(key);
    if (list) list.push(e);
    else bySender.set(key, [e]);
  }
  for (const list of bySender.values()) list.sort((a, b) => a.nonce - b.nonce || a.seq - b.seq);
  const next = new Map<string, number>();
  return entries.map((e) => {
    const key = e.sender.toLowerCase();
    const i = next.get(key) ?? 0;
    next.set(key, i + 1);
    return bySender.get(key)![i]!;
  });
}

/** Journaled blocks this close to the head are each compared with the chain's (reorgs are shallower). */
const RECENT_BLOCKS = 128n;

const compareBig = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);
const maxBig = (a: bigint, b: bigint) => (a > b ? a : b);
