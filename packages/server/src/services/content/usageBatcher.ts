import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Address, Hash } from '../../chain/types.js';
import { AppError, isAppError } from '../../errors.js';
import type { BatchRecord, ContentLedgerStore, UsageRecord } from '../../stores/contentLedgerStore.js';
import type { ChainWatch } from './chainWatch.js';
import type { ContentTokenChain, RecordedUsage, UsageGroup } from './ports.js';

export interface UsageBatcherOptions {
  /** Most records in one transaction. */
  maxBatch?: number;
  /** After the first record arrives, wait until no new one came for this long … */
  quietMs?: number;
  /** … but never longer than this, before sending. */
  maxLingerMs?: number;
  /** Lease of the single batcher across replicas. */
  leaseMs?: number;
}

const LEASE_NAME = 'content-usage-batcher';
/** A paymaster signature is valid for 300 s; a batch not seen on chain 6 minutes later never will be. */
const SPONSORSHIP_HORIZON_MS = 360_000;

/** Listeners the consumption service registers to answer its waiting callers. */
export interface BatchListener {
  settled(records: UsageRecord[]): void;
}

/**
 * The single writer of consumption records to the chain. It drains the durable queue (`content_usage`,
 * state `queued`) into operator operations of up to `maxBatch` `recordUsage` records, one in flight at a
 * time, so every transaction carries everything that arrived while the previous one was being mined.
 *
 * Exactly one batcher runs across replicas (a lease row in the database, renewed while it runs). Before a
 * batch is sent it is written down (`content_batches`, state `sending`, with the chain head at that time),
 * so after a crash, a node outage or a database error every batch is settled from the chain's logs:
 * included (records answered from its events), or known never to land (records go back to the queue).
 * Nothing accepted is ever dropped.
 */
export class UsageBatcher {
  readonly holder = `batcher-${randomUUID()}`;
  readonly #options: Required<UsageBatcherOptions>;
  #leader = false;
  #running = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #arrivals = 0;
  #needsRecovery = true;
  #stats = { batches: 0, records: 0, lastBatchSize: 0 };
  readonly #undecidedSince = new Map<string, number>();
  #rewoundTo: bigint | undefined;
  #recoveryRetryAt = 0;

  constructor(
    private readonly ledger: ContentLedgerStore,
    private readonly chain: ContentTokenChain,
    private readonly watch: ChainWatch,
    private readonly listener: BatchListener,
    private readonly logger: Logger,
    options: UsageBatcherOptions = {},
  ) {
    this.#options = { maxBatch: 400, quietMs: 2, maxLingerMs: 20, leaseMs: 15_000, ...options };
    watch.onUp(() => {
      this.#needsRecovery = true;
      this.notify();
    });
    watch.onRewind((head) => {
      this.#rewoundTo = head;
      this.#needsRecovery = true;
      this.notify();
    });
  }

  get isLeader(): boolean {
    return this.#leader;
  }

  /** Transactions and records sent by this process (for the benchmark and the docs). */
  get stats(): { batches: number; records: number; lastBatchSize: number } {
    return { ...this.#stats };
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.notify();
    await this.#loop;
    if (this.#leader) await this.ledger.releaseLease(LEASE_NAME, this.holder).catch(() => undefined);
    this.#leader = false;
  }

  /** A record was accepted: wake the loop. */
  notify(): void {
    this.#arrivals++;
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  async #sleep(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.#wake = undefined;
        resolve();
      }, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  async #renewLease(): Promise<boolean> {
    const wasLeader = this.#leader;
    try {
      this.#leader = await this.ledger.acquireLease(LEASE_NAME, this.holder, this.#options.leaseMs);
    } catch (err) {
      this.logger.warn({ err: describe(err) }, 'content usage batcher: cannot renew its lease');
      this.#leader = false;
    }
    if (this.#leader && !wasLeader) {
      this.#needsRecovery = true;
      this.notify();
    }
    return this.#leader;
  }

  async #run(): Promise<void> {
    // The lease is renewed on its own clock, so a long send never lets it lapse.
    const renewal = setInterval(() => void this.#renewLease(), this.#options.leaseMs / 3);
    renewal.unref();
    try {
      await this.#renewLease();
      while (this.#running) {
        try {
          if (!this.#leader) {
            await this.#sleep(1_000);
            if (!this.#leader) await this.#renewLease();
            continue;
          }
          if (this.watch.down) {
            // The watcher probes the node; `onUp` wakes us.
            await this.#sleep(500);
            continue;
          }
          if (this.#needsRecovery && Date.now() >= this.#recoveryRetryAt) {
            this.#needsRecovery = false;
            if (!(await this.recover())) {
              // Undecided batches wait (their records stay `sent`); new records are not held up by them,
              // and the next transaction is also what gets a transaction waiting in the node's pool mined.
              this.#needsRecovery = true;
              this.#recoveryRetryAt = Date.now() + 500;
              if (this.watch.down) continue;
            }
          }
          const arrivals = this.#arrivals;
          let queued = await this.ledger.listQueued(this.#options.maxBatch);
          if (queued.length === 0) {
            if (this.#arrivals === arrivals) await this.#sleep(this.#needsRecovery ? 500 : 1_000);
            continue;
          }
          if (queued.length < this.#options.maxBatch) {
            // Let a burst of concurrent arrivals finish so the transaction carries all of them.
            const started = Date.now();
            let seen = this.#arrivals;
            for (;;) {
              await new Promise((r) => setTimeout(r, this.#options.quietMs));
              if (this.#arrivals === seen || Date.now() - started >= this.#options.maxLingerMs) break;
              seen = this.#arrivals;
            }
            queued = await this.ledger.listQueued(this.#options.maxBatch);
          }
          await this.#send(queued);
        } catch (err) {
          this.logger.error({ err }, 'content usage batcher: unexpected error; retrying');
          await this.#sleep(500);
        }
      }
    } finally {
      clearInterval(renewal);
    }
  }

  /** Opens a batch for `queued`, sends it and settles it. */
  async #send(queued: UsageRecord[]): Promise<void> {
    const fromBlock = await this.watch.head();
    const { batch, records } = await this.ledger.openBatch(
      queued.map((r) => r.id),
      fromBlock,
    );
    if (records.length === 0) {
      await this.ledger.dropBatch(batch.id);
      return;
    }
    const { groups, order } = groupRecords(records);
    let result;
    try {
      result = await this.chain.recordUsage(groups);
    } catch (err) {
      await this.#handleFailure(batch, records, err);
      return;
    }
    try {
      await this.#complete(batch.id, order, result.write.txHash, result.write.blockNumber, result.events);
    } catch (err) {
      // Included on chain but not recorded here (database trouble): settle it from the chain later.
      this.logger.error({ batch: batch.id, err: describe(err) }, 'could not record an included usage batch');
      this.#needsRecovery = true;
    }
  }

  async #complete(
    batchId: string,
    order: UsageRecord[],
    txHash: Hash,
    blockNumber: bigint,
    events: RecordedUsage[],
  ): Promise<void> {
    if (events.length !== order.length) {
      throw new Error(`batch ${batchId}: ${events.length} UsageRecorded events for ${order.length} records`);
    }
    const included = order.map((record, i) => {
      const event = events[i]!;
      if (event.slot.toLowerCase() !== record.slot.toLowerCase() || event.amount !== record.amount) {
        throw new Error(`batch ${batchId}: event ${i} does not match record ${record.id}`);
      }
      return { id: record.id, balanceAfter: event.balance, usedAfter: event.used };
    });
    this.watch.observe(blockNumber);
    await this.ledger.completeBatch(batchId, { txHash, blockNumber, records: included });
    this.#stats.batches++;
    this.#stats.records += order.length;
    this.#stats.lastBatchSize = order.length;
    this.listener.settled(
      order.map((record, i) => ({
        ...record,
        state: 'included',
        batchId,
        txHash,
        blockNumber,
        balanceAfter: included[i]!.balanceAfter,
        usedAfter: included[i]!.usedAfter,
      })),
    );
  }

  async #handleFailure(batch: BatchRecord, records: UsageRecord[], err: unknown): Promise<void> {
    const appError = isAppError(err) ? err : undefined;
    const notSent =
      appError?.code === 'chain_unavailable' &&
      err instanceof Error &&
      err.name !== 'OperationOutcomeUnknownError';
    const refusedBeforeEffect = appError !== undefined && appError.status < 500;
    if (!notSent && !refusedBeforeEffect) {
      // It may be on chain (the node vanished after sending, or something unexpected): keep the batch
      // `sending` and settle it from the chain's logs once the node answers.
      const txHint = (appError?.details?.tx_hash as `0x${string}` | undefined) ?? undefined;
      await this.ledger.setBatchHint(batch.id, txHint).catch(() => undefined);
      this.logger.warn(
        { batch: batch.id, err: describe(err) },
        'content usage batch outcome unknown; will settle it',
      );
      if (appError?.code === 'chain_unavailable') this.watch.markDown();
      this.#needsRecovery = true;
      return;
    }
    // Nothing was sent, or the chain refused it without effect: the records go back to the queue.
    await this.ledger.dropBatch(batch.id);
    if (notSent) {
      this.watch.markDown();
      return;
    }
    const refused = await this.#refusedRecords(err, records);
    if (refused.length > 0) {
      this.logger.error(
        { records: refused.map((r) => r.id), err: describe(err) },
        'the chain refused consumption records the reservation had admitted (balance changed outside dauth)',
      );
      await this.ledger.failRecords(
        refused.map((r) => r.id),
        'insufficient_balance_on_chain',
      );
      this.listener.settled(
        refused.map((r) => ({ ...r, state: 'failed', error: 'insufficient_balance_on_chain' })),
      );
      return;
    }
    this.logger.error(
      { batch: batch.id, err: describe(err) },
      'content usage batch refused; records requeued',
    );
    await this.#sleep(1_000);
  }

  /**
   * After an `InsufficientBalance(cuid, slot, balance, amount)` revert: the records of that slot in this
   * batch that no longer fit its on-chain balance (in queue order). The others stay queued.
   */
  async #refusedRecords(err: unknown, records: UsageRecord[]): Promise<UsageRecord[]> {
    if (!(err instanceof AppError)) return [];
    const revert = (err as AppError & { revert?: { name?: string; args?: readonly unknown[] } }).revert;
    if (revert?.name !== 'InsufficientBalance' || !revert.args) return [];
    const [cuid, slot] = revert.args as [string, string];
    const mine = records.filter(
      (r) => r.cuid === cuid && r.slot.toLowerCase() === String(slot).toLowerCase(),
    );
    if (mine.length === 0) return [];
    const figures = await this.chain.readSlot(cuid, mine[0]!.slot);
    await this.ledger.refreshBalance(cuid, mine[0]!.slot, {
      balance: figures.balance,
      used: figures.used,
      block: figures.blockNumber,
    });
    let left = figures.balance;
    const refused: UsageRecord[] = [];
    for (const record of mine) {
      if (record.amount <= left) left -= record.amount;
      else refused.push(record);
    }
    return refused;
  }

  /**
   * Settles every batch left `sending` (by a crash, an outage or a database error): a batch found on chain
   * (its exact records in one transaction not attributed to another batch) is completed from its events; a
   * batch not found is requeued once it can no longer land (at once on the embedded node; otherwise when
   * its sponsorship, valid for 300 s after signing, has certainly expired). False while one is undecided.
   */
  async recover(): Promise<boolean> {
    // Batches recorded in blocks the chain no longer has (it restarted from an older state) are resent.
    let head: bigint;
    try {
      head = this.#rewoundTo ?? (await this.watch.poll());
    } catch {
      return false;
    }
    this.#rewoundTo = undefined;
    const reopened = await this.ledger.reopenAfterRewind(head);
    if (reopened > 0) {
      this.logger.warn(
        { head: String(head), batches: reopened },
        'the chain went back past included usage batches; settling them again',
      );
    }
    const pending = await this.ledger.listSendingBatches();
    for (const batch of pending) {
      const records = await this.ledger.listBatchRecords(batch.id);
      if (records.length === 0) {
        await this.ledger.dropBatch(batch.id);
        continue;
      }
      const { groups, order } = groupRecords(records);
      let outcome;
      try {
        outcome = await this.chain.findUsageTransaction({
          fromBlock: batch.fromBlock,
          groups,
          txHint: batch.txHint,
          exclude: await this.ledger.includedTxHashesSince(batch.fromBlock),
        });
      } catch (err) {
        this.logger.warn({ batch: batch.id, err: describe(err) }, 'cannot settle a content usage batch yet');
        if (isAppError(err) && err.code === 'chain_unavailable') this.watch.markDown();
        return false;
      }
      if (outcome.found) {
        await this.#complete(
          batch.id,
          order,
          outcome.write.txHash,
          outcome.write.blockNumber,
          outcome.events,
        );
        this.logger.info(
          { batch: batch.id, records: order.length },
          'content usage batch settled from the chain',
        );
        continue;
      }
      const firstSeen = this.#undecidedSince.get(batch.id) ?? Date.now();
      this.#undecidedSince.set(batch.id, firstSeen);
      const horizon = Math.max(batch.updatedAt, firstSeen) + SPONSORSHIP_HORIZON_MS;
      if (!outcome.final && Date.now() < horizon) return false;
      this.logger.info(
        { batch: batch.id, records: order.length },
        'content usage batch did not land; requeued',
      );
      await this.ledger.dropBatch(batch.id);
      this.#undecidedSince.delete(batch.id);
    }
    return true;
  }
}

/** Groups records by cuid (in order of first appearance); `order` is the record order of the events. */
export function groupRecords(records: UsageRecord[]): { groups: UsageGroup[]; order: UsageRecord[] } {
  const byCuid = new Map<string, UsageRecord[]>();
  for (const record of records) {
    const list = byCuid.get(record.cuid);
    if (list) list.push(record);
    else byCuid.set(record.cuid, [record]);
  }
  const groups: UsageGroup[] = [];
  const order: UsageRecord[] = [];
  for (const [cuid, list] of byCuid) {
    groups.push({ cuid, slots: list.map((r) => r.slot as Address), amounts: list.map((r) => r.amount) });
    order.push(...list);
  }
  return { groups, order };
}

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
