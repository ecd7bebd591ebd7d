import { promises as fs } from 'node:fs';
import type { Logger } from 'pino';
import type { ChainClient } from '../chainClient.js';
import type { Address } from '../types.js';
import type { JournaledSender } from './journaledSender.js';
import { activeSpan, inSpanUnder } from '../../observability/spans.js';
import type { JournalObserver, JournalRecovery } from './journalRecovery.js';
import { keepLastGoodDump, readDumpHead, readDumpSenders } from '../stateDump.js';

export interface JournalMaintenanceOptions {
  /** How often the journal is checked against the chain and compacted. */
  intervalMs: number;
  /** The embedded chain's state file: entries at or below the block it holds can go. */
  statePath: string | undefined;
  /** External chains: blocks after which a transaction is taken as final. */
  confirmations: bigint;
  /** External chains: entries are kept at least this long (a node restored from an older backup). */
  retentionMs: number;
  /**
   * External chains: how often the block of the newest journaled transaction is checked against the chain;
   * when a reorg replaced it, the journal sends what the new chain lacks at once.
   */
  reorgCheckMs: number;
}

export const DEFAULT_JOURNAL_MAINTENANCE: Omit<JournalMaintenanceOptions, 'statePath'> = {
  intervalMs: 30_000,
  confirmations: 64n,
  retentionMs: 60 * 60_000,
  reorgCheckMs: 2_000,
};

/**
 * Keeps the journal bounded and, on an external chain, watches for reorgs:
 * - Embedded chain: every transaction in a block at or below the head of anvil's last state dump is in
 *   that file; a restart resumes from it, so those entries are no longer needed.
 * - External chain: entries `confirmations` deep and older than `retentionMs` are deleted. Before that,
 *   each run checks that the chain still holds every mined entry and re-sends what a reorg dropped
 *   (same signed bytes; the nonce still fits when nothing else took it), and records receipts that came late.
 */
export class JournalMaintenance {
  #timer: NodeJS.Timeout | undefined;
  #reorgTimer: NodeJS.Timeout | undefined;
  #watching: Promise<void> | undefined;
  /** Reorgs seen (tests and the log). */
  reorgsSeen = 0;
  /** Told of each reorg seen (metrics). */
  observer: JournalObserver = {};
  #running: Promise<void> | undefined;
  #stateMtime = 0;
  /** The head of the last good copy written (anvil dumps every few seconds, new blocks or not). */
  #keptHead: bigint | undefined;
  /** Since when no dump read as whole (undefined after one did). */
  #notWholeSince: number | undefined;
  #warnedNotWhole = false;

  constructor(
    private readonly client: ChainClient,
    private readonly sender: JournaledSender,
    private readonly recovery: JournalRecovery,
    private readonly logger: Logger,
    private readonly options: JournalMaintenanceOptions,
  ) {}

  start(): void {
    this.#timer ??= setInterval(() => void this.run(), this.options.intervalMs);
    this.#timer.unref();
    if (this.options.statePath === undefined) {
      this.#reorgTimer ??= setInterval(() => {
        this.#watching ??= this.checkReorg()
          .then(() => undefined)
          .catch((err: unknown) => this.logger.debug({ err }, 'reorg check failed'))
          .finally(() => (this.#watching = undefined));
      }, this.options.reorgCheckMs);
      this.#reorgTimer.unref();
    }
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    if (this.#reorgTimer) clearInterval(this.#reorgTimer);
    this.#timer = undefined;
    this.#reorgTimer = undefined;
    await this.#watching;
    await this.#running;
  }

  /**
   * Are the blocks this process recently recorded transactions in still the chain's blocks at their heights
   * (one batched request)? When a reorg replaced one, or a node restarted from an older state lost it, a
   * round runs now: the journal re-sends every journaled transaction the chain lacks, the same signed
   * bytes. Returns whether a reorg was seen.
   */
  async checkReorg(): Promise<boolean> {
    const recent = [...this.sender.recentInclusions];
    if (recent.length === 0) return false;
    // The check itself (every 2 s) is not traced; a reorg it finds is a trace of its own, the round that
    // gives back what the chain lost under it (docs/operations.md, "Traces").
    const blocks = await Promise.all(
      recent.map(([blockNumber]) =>
        this.client.getBlock({ blockNumber, includeTransactions: false }).catch((err: unknown) => {
          // A head below the block (the node restarted from an older state) reads as "not found".
          if (/not found|could not be found/i.test(String((err as Error).message))) return null;
          throw err;
        }),
      ),
    );
    const replaced = recent.filter(([, hash], i) => blocks[i]?.hash !== hash);
    if (replaced.length === 0) return false;
    const attributes = {
      'dauth.reorg.replaced_blocks': replaced.map(([n]) => Number(n)),
      'dauth.reorg.checked_blocks': recent.length,
    };
    return inSpanUnder(undefined, 'reorg', { attributes }, async () => {
      this.reorgsSeen++;
      this.observer.reorg?.(replaced.length);
      this.logger.warn(
        { blocks: replaced.map(([n]) => String(n)) },
        'a reorg replaced blocks holding journaled transactions; sending what the chain lost again',
      );
      for (const [n, hash] of replaced) {
        if (this.sender.recentInclusions.get(n) === hash) this.sender.recentInclusions.delete(n);
      }
      await this.run();
      return true;
    });
  }

  /** One round (also called by tests); concurrent calls share it. */
  run(): Promise<void> {
    // Its own trace, or under the reorg that asked for it.
    this.#running ??= inSpanUnder(activeSpan()?.spanContext(), 'chain journal round', {}, () => this.#round())
      .catch((err: unknown) => this.logger.warn({ err }, 'chain journal maintenance failed'))
      .finally(() => (this.#running = undefined));
    return this.#running;
  }

  async #round(): Promise<void> {
    if (this.options.statePath === undefined) {
      await this.recovery.run({ replay: false, unknown: false });
      await this.sender.settleOutstanding();
    }
    await this.compact();
  }

  /** Deletes the entries the chain provably keeps without the journal; returns how many. */
  async compact(): Promise<number> {
    const { journal, chainId } = this.sender;
    let removed: number;
    if (this.options.statePath !== undefined) {
      const saved = await this.#savedHead(this.options.statePath);
      if (saved === undefined) return 0;
      removed = await journal.compact(chainId, saved, Date.now());
    } else {
      const head = await this.client.getBlockNumber();
      const final = head - this.options.confirmations;
      if (final < 0n) return 0;
      removed = await journal.compact(chainId, final, Date.now() - this.options.retentionMs);
    }
    if (removed > 0) this.logger.debug({ removed }, 'chain journal compacted');
    return removed;
  }

  /**
   * The head block of anvil's last complete state dump, when it changed since the last look. The dump is
   * first kept as the last good copy (anvil rewrites its own file in place, so a kill during a dump cuts
   * it short): entries are compacted only up to a head a restart can always resume from. The dump is never
   * read into memory (`stateDump.ts`): its head from its front, the copy by the kernel.
   */
  async #savedHead(statePath: string): Promise<bigint | undefined> {
    let mtimeMs: number;
    try {
      ({ mtimeMs } = await fs.stat(statePath));
    } catch {
      return undefined; // no dump yet
    }
    if (mtimeMs === this.#stateMtime) return undefined;
    // An idle chain's dumps repeat the kept copy's head: nothing to copy again, nothing more to compact.
    // (Undefined: being written right now, not that far yet; try again next round.)
    const head = await readDumpHead(statePath);
    if (head === undefined) return undefined;
    if (head === this.#keptHead) {
      this.#stateMtime = mtimeMs;
      return undefined;
    }
    let kept: bigint | undefined;
    try {
      kept = await keepLastGoodDump(statePath, (copy, head) => this.#sendersMatchChain(copy, head));
    } catch (err) {
      // Disk full, say: the journal keeps everything until a copy can be written.
      this.logger.warn(
        { err },
        'could not keep a copy of the chain state dump; the journal is not compacted',
      );
      return undefined;
    }
    // Not whole, or rewritten while it was copied: anvil's next dump is looked at next round.
    if (kept === undefined) {
      this.#warnIfNeverWhole();
      return undefined;
    }
    this.#stateMtime = mtimeMs;
    this.#keptHead = kept;
    this.#notWholeSince = undefined;
    return kept;
  }

  /** The dump's senders against the chain at its head (`senderAheadOfHead`); a dump written mid-block is not kept. */
  async #sendersMatchChain(copy: string, head: bigint): Promise<boolean> {
    const ahead = await senderAheadOfHead(this.client, copy, head);
    if (ahead === undefined) return true;
    this.logger.info(
      { head: String(head), ...ahead },
      "the chain's state dump holds transactions beyond its head block (written mid-block); the next dump is kept",
    );
    return false;
  }

  /**
   * Dumps that have not read as whole for a minute of rounds (a moment's rewrite during a copy passes at the
   * next): a format this build does not know (an anvil upgrade) or an anvil that stopped mid-dump. Said
   * once, since the journal stops being compacted.
   */
  #warnIfNeverWhole(): void {
    const now = Date.now();
    this.#notWholeSince ??= now;
    if (this.#warnedNotWhole || now - this.#notWholeSince < 60_000) return;
    this.#warnedNotWhole = true;
    this.logger.warn(
      { statePath: this.options.statePath },
      "the chain's state dump has not been whole for a minute; the journal is not compacted until it is",
    );
  }
}

/**
 * The first sender of the dump at `copy` whose nonce is not the chain's at the dump's head `head`, or undefined
 * when every one matches. Every transaction raises its sender's nonce, so a dump anvil wrote while a block was
 * half-applied (its effects in, the block not) has one sender ahead. A node that cannot answer (down, or that
 * head's state no longer kept) throws, and so does a dump without a head field.
 */
export async function senderAheadOfHead(
  client: ChainClient,
  copy: string,
  head: bigint,
): Promise<{ sender: string; nonce: string; atHead: string } | undefined> {
  const senders = await readDumpSenders(copy);
  // keepLastGoodDump read the head first: a dump without it here was changed under us.
  if (senders === undefined) throw new Error(`the state dump ${copy} has no head field`);
  const compared = await Promise.all(
    [...senders].map(async ([sender, nonce]) => ({
      sender,
      nonce,
      atHead: BigInt(await client.getTransactionCount({ address: sender as Address, blockNumber: head })),
    })),
  );
  const ahead = compared.find((s) => s.nonce !== s.atHead);
  return ahead && { sender: ahead.sender, nonce: String(ahead.nonce), atHead: String(ahead.atHead) };
}
