import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { sameAddress } from '../../chain/address.js';
import type { Address } from '../../chain/types.js';
import { isAppError, isRevertNamed } from '../../errors.js';
import type { BatchRecord, ContentLedgerStore, UsageRecord } from '../../stores/contentLedgerStore.js';
import type { LeaseStore } from '../../stores/leaseStore.js';
import type { ChainWatch } from './chainWatch.js';
import { currentLink, inSpanUnder, type Link, linksOf } from '../../observability/spans.js';
import type { ContentTokenChain, RecordedBatch, UsageBatch, UsageGroup } from './ports.js';

export interface UsageBatcherOptions {
  /** Most records in one transaction. */
  maxBatch?: number;
  /**
   * Batches sent and not yet settled at a time (CONTENT_BATCHES_IN_FLIGHT). Each goes out as an operator
   * operation under a nonce key of its own (EntryPoint v0.6 2-D nonces), so several can share a block; 1
   * sends the next batch only once the one before it is settled.
   */
  batchesInFlight?: number;
  /**
   * While a batch is in flight, the next one goes out once it holds this many records (or is full) …
   * (every transaction costs the server about as much CPU as a hundred records, docs/performance-content.md)
   */
  flightMinRecords?: number;
  /** … or once it waited this long, or once no batch is in flight any more. */
  flightLingerMs?: number;
  /** After the first record arrives, wait until no new one came for this long … */
  quietMs?: number;
  /** … but never longer than this, before sending. */
  maxLingerMs?: number;
  /** Lease of the single batcher across replicas. */
  leaseMs?: number;
  /**
   * This process is the only one on its database (SQLite with the embedded chain, whose DATA_DIR lock
   * refuses a second process): a lease found at start was left by an earlier process that was killed, so
   * it is taken over at once instead of waiting up to `leaseMs` for it to expire.
   */
  soleProcess?: boolean;
  /**
   * Whether this process may send to the chain now (its replica lease, services/replicas/replicaLease.ts).
   * A replica that may not gives the batcher lease up at once, so another replica batches meanwhile.
   */
  maySend?: () => boolean;
}

const LEASE_NAME = 'content-usage-batcher';
/** How long recovery lets a batch's transaction wait in the node's pool before it sends the batch again. */
const PENDING_RESEND_MS = 30_000;
/** A batch recovery cannot settle is tried again after 1 s, then twice as long each time, at most 5 minutes. */
const STUCK_RETRY_FIRST_MS = 1_000;
const STUCK_RETRY_MAX_MS = 5 * 60_000;

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
 * and its records stay with it until the chain has it. The batch's id names it on chain (`recordUsage`'s
 * batch key), so it can be sent again whenever its outcome is unknown, after a crash, a node outage, a
 * lost receipt or a chain that went back: the contract records a batch once, and its figures are read
 * from the transaction that did. Nothing accepted is ever dropped or counted twice.
 */
export class UsageBatcher {
  readonly holder = `batcher-${randomUUID()}`;
  readonly #options: Required<UsageBatcherOptions>;
  #leader = false;
  #running = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #arrivals = 0;
  /** Spans of the requests whose records wait for the next batch (docs/operations.md, "Traces"). */
  #origins: Link[] = [];
  #needsRecovery = true;
  #stats = { batches: 0, records: 0, lastBatchSize: 0 };
  #rewoundTo: bigint | undefined;
  #recoveryRetryAt = 0;
  /** When only batches waiting out their back-off were left unsettled: the first of their retries (0: none). */
  #stuckOnlyUntil = 0;
  /**
   * When recovery first found each batch's last transaction waiting in the node's pool. One still waiting after
   * `PENDING_RESEND_MS` is sent again under its key (harmless: the contract records a batch key once): a
   * transaction can wait forever, behind a relayer nonce that an outage left unfilled.
   */
  readonly #pendingSince = new Map<string, number>();
  /**
   * Batches recovery could not settle (events not found, resend refused while the node is up), with their
   * failures so far and when to try again: 1 s, doubling to 5 minutes. Such a batch (docs/content-tokens.md)
   * waits for an operator; tried every round it logged an error each time and, worse, made every round wait
   * for the batches in flight to land first.
   */
  readonly #stuck = new Map<string, { failures: number; retryAt: number }>();
  /** Batches sent by the loop and not yet settled (or left to recovery), by id. */
  readonly #inFlight = new Map<string, Promise<void>>();
  /** Operator nonce keys not used by a batch in flight (key 0 is the operator's other operations'). */
  #freeKeys: bigint[] = [];

  constructor(
    private readonly ledger: ContentLedgerStore,
    /** The leader lease: one batcher across replicas sends at a time. */
    private readonly leases: LeaseStore,
    private readonly chain: ContentTokenChain,
    private readonly watch: ChainWatch,
    private readonly listener: BatchListener,
    private readonly logger: Logger,
    options: UsageBatcherOptions = {},
  ) {
    this.#options = {
      maxBatch: 400,
      batchesInFlight: 16,
      flightMinRecords: 100,
      flightLingerMs: 250,
      quietMs: 2,
      maxLingerMs: 20,
      leaseMs: 15_000,
      soleProcess: false,
      maySend: () => true,
      ...options,
    };
    for (let k = 1; k <= Math.max(1, this.#options.batchesInFlight); k++) this.#freeKeys.push(BigInt(k));
    // A node back or a chain gone back is news for every batch: recovery runs at once, stuck ones included.
    watch.onUp(() => {
      this.#recoverNow();
      this.notify();
    });
    watch.onRewind((head) => {
      this.#rewoundTo = head;
      this.#recoverNow();
      this.notify();
    });
  }

  /** Called with the record count of every batch recorded on chain (metrics). */
  onBatch: ((records: number) => void) | undefined;

  get isLeader(): boolean {
    return this.#leader;
  }

  /** Transactions and records sent by this process (for the benchmark and the docs). */
  get stats(): { batches: number; records: number; lastBatchSize: number } {
    return { ...this.#stats };
  }

  /** What the loop is waiting on, for a test that ran out of patience (chainOutage.test.ts) and the logs. */
  diagnostics(): {
    leader: boolean;
    inFlight: string[];
    needsRecovery: boolean;
    freeKeys: number;
    stuck: { id: string; failures: number; retryAt: number }[];
  } {
    return {
      leader: this.#leader,
      inFlight: [...this.#inFlight.keys()],
      needsRecovery: this.#needsRecovery,
      freeKeys: this.#freeKeys.length,
      stuck: [...this.#stuck].map(([id, wait]) => ({ id, ...wait })),
    };
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
    await Promise.all(this.#inFlight.values());
    if (this.#leader) await this.leases.release(LEASE_NAME, this.holder).catch(() => undefined);
    this.#leader = false;
  }

  /** Recovery is needed for something new (a batch left `sending`): it does not wait for stuck batches' retries. */
  #requestRecovery(): void {
    this.#needsRecovery = true;
    this.#stuckOnlyUntil = 0;
  }

  /** Recovery at the loop's next turn, every batch tried again (none is left waiting out its back-off). */
  #recoverNow(): void {
    this.#requestRecovery();
    this.#recoveryRetryAt = 0;
    this.#stuck.clear();
  }

  /** Wakes the loop without counting an arrival (a batch in flight was settled). */
  #poke(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** A record was accepted: wake the loop. */
  notify(): void {
    this.#arrivals++;
    // The request that queued records: the batch that carries them links back to it.
    const origin = currentLink();
    if (origin && this.#origins.length < 128) this.#origins.push(origin);
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
    if (!this.#options.maySend()) {
      // Fenced (another process holds this replica's id): leading would hold every replica's records back.
      if (wasLeader) {
        this.#leader = false;
        this.logger.warn('content usage batcher: this replica may not send to the chain; giving the lead up');
        await this.leases.release(LEASE_NAME, this.holder).catch(() => undefined);
      }
      return false;
    }
    try {
      this.#leader = await this.leases.acquire(LEASE_NAME, this.holder, this.#options.leaseMs);
    } catch (err) {
      this.logger.warn({ err: describe(err) }, 'content usage batcher: cannot renew its lease');
      this.#leader = false;
    }
    if (this.#leader && !wasLeader) {
      this.#recoverNow();
      this.notify();
    }
    return this.#leader;
  }

  /** The sole process takes the lease from a killed predecessor (`soleProcess`); on failure, the usual rule. */
  async #takeOverLease(): Promise<void> {
    try {
      await this.leases.takeOver(LEASE_NAME, this.holder, this.#options.leaseMs);
      this.#leader = true;
      this.#requestRecovery();
    } catch (err) {
      this.logger.warn({ err: describe(err) }, 'content usage batcher: cannot take its lease over');
      await this.#renewLease();
    }
  }

  async #run(): Promise<void> {
    // The lease is renewed on its own clock, so a long send never lets it lapse.
    const renewal = setInterval(() => void this.#renewLease(), this.#options.leaseMs / 3);
    renewal.unref();
    try {
      if (this.#options.soleProcess) await this.#takeOverLease();
      else await this.#renewLease();
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
          if (this.#needsRecovery && Date.now() >= Math.max(this.#recoveryRetryAt, this.#stuckOnlyUntil)) {
            if (this.#inFlight.size > 0) {
              // Recovery settles every batch left `sending`: it waits until this loop's own are back.
              await this.#nextLanding();
              continue;
            }
            this.#needsRecovery = false;
            if (!(await this.recover())) {
              // Unsettled batches wait (their records stay `sent`); new records are not held up by them,
              // and the next transaction is also what gets a transaction waiting in the node's pool mined.
              this.#needsRecovery = true;
              this.#recoveryRetryAt = Math.max(this.#recoveryRetryAt, Date.now() + 500);
              if (this.watch.down) continue;
            }
          }
          if (this.#freeKeys.length === 0) {
            // Every place is taken: the next batch fills until one of them is settled.
            await this.#nextLanding();
            continue;
          }
          const arrivals = this.#arrivals;
          let queued = await this.ledger.listQueued(this.#options.maxBatch);
          if (queued.length === 0) {
            if (this.#arrivals === arrivals) await this.#sleep(this.#needsRecovery ? 500 : 1_000);
            continue;
          }
          if (queued.length < this.#options.maxBatch && this.#inFlight.size > 0) {
            // Another batch is out: this one fills until it is worth a transaction of its own, or the ones
            // out are settled (their answers bring the next arrivals), or the wait is up.
            const started = Date.now();
            const want = Math.min(this.#options.flightMinRecords, this.#options.maxBatch);
            while (
              queued.length + (this.#arrivals - arrivals) < want &&
              this.#inFlight.size > 0 &&
              this.#running
            ) {
              const left = started + this.#options.flightLingerMs - Date.now();
              if (left <= 0) break;
              await this.#sleep(left);
            }
            queued = await this.ledger.listQueued(this.#options.maxBatch);
            if (queued.length === 0) continue;
          }
          if (queued.length < this.#options.maxBatch && this.#inFlight.size === 0) {
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
          await this.#launch(queued);
        } catch (err) {
          this.logger.error({ err }, 'content usage batcher: unexpected error; retrying');
          await this.#sleep(500);
        }
      }
    } finally {
      clearInterval(renewal);
    }
  }

  /** Waits until a batch in flight is settled (or anything else wakes the loop). */
  async #nextLanding(): Promise<void> {
    if (this.#inFlight.size === 0) return;
    await this.#sleep(1_000);
  }

  /**
   * Opens a batch for `queued` (written down as `sending` before anything is sent) and sends it under a free
   * nonce key; the loop goes on to fill the next one while this one is in flight.
   */
  async #launch(queued: UsageRecord[]): Promise<void> {
    const fromBlock = await this.watch.head();
    const { batch, records } = await this.ledger.openBatch(
      queued.map((r) => r.id),
      fromBlock,
    );
    if (records.length === 0) {
      await this.ledger.dropBatch(batch.id);
      return;
    }
    const nonceKey = this.#freeKeys.shift()!;
    // A batch is a trace of its own, linked to the consumption requests that fed it.
    const links = linksOf(this.#origins.splice(0));
    const flight = inSpanUnder(
      undefined,
      'consumption batch',
      { links, attributes: { 'dauth.batch.records': records.length } },
      () => this.#attempt(batch, records, planBatch(batch, records, nonceKey)),
    )
      .then(
        () => undefined,
        (err: unknown) => {
          // Left `sending`: recovery settles it from the chain or sends it again.
          this.logger.error({ batch: batch.id, err: describe(err) }, 'content usage batch: unexpected error');
          this.#requestRecovery();
        },
      )
      .finally(() => {
        this.#inFlight.delete(batch.id);
        this.#freeKeys.push(nonceKey);
        this.#freeKeys.sort((a, b) => (a < b ? -1 : 1));
        this.#poke();
      });
    this.#inFlight.set(batch.id, flight);
  }

  /** Sends a batch (again, if it was sent before) and settles it; true once it is settled either way. */
  async #attempt(
    batch: BatchRecord,
    records: UsageRecord[],
    { sent, order } = planBatch(batch, records),
  ): Promise<boolean> {
    let recorded: RecordedBatch;
    try {
      recorded = await this.chain.recordUsage(sent);
    } catch (err) {
      return this.#handleFailure(batch, records, err);
    }
    try {
      await this.#complete(batch.id, order, recorded);
    } catch (err) {
      // Included on chain but not recorded here (database trouble): settle it from the chain later.
      this.logger.error({ batch: batch.id, err: describe(err) }, 'could not record an included usage batch');
      this.#requestRecovery();
      return false;
    }
    return true;
  }

  async #complete(batchId: string, order: UsageRecord[], { write, events }: RecordedBatch): Promise<void> {
    if (events.length !== order.length) {
      throw new Error(`batch ${batchId}: ${events.length} UsageRecorded events for ${order.length} records`);
    }
    const included = order.map((record, i) => {
      const event = events[i]!;
      if (!sameAddress(event.slot, record.slot) || event.amount !== record.amount) {
        throw new Error(`batch ${batchId}: event ${i} does not match record ${record.id}`);
      }
      return { id: record.id, balanceAfter: event.balance, usedAfter: event.used };
    });
    await this.watch.landed(write.blockNumber);
    await this.ledger.completeBatch(batchId, {
      txHash: write.txHash,
      blockNumber: write.blockNumber,
      records: included,
    });
    this.#stats.batches++;
    this.#stats.records += order.length;
    this.#stats.lastBatchSize = order.length;
    this.onBatch?.(order.length);
    this.listener.settled(
      order.map((record, i) => ({
        ...record,
        state: 'included',
        batchId,
        txHash: write.txHash,
        blockNumber: write.blockNumber,
        balanceAfter: included[i]!.balanceAfter,
        usedAfter: included[i]!.usedAfter,
      })),
    );
  }

  /**
   * A send failed. Only a refusal naming a record the on-chain balance no longer covers splits the batch;
   * every other failure keeps it whole and `sending` (it may be on chain, or may land yet) for recovery to
   * find or send again under the same batch key. False: the batch is not settled.
   */
  async #handleFailure(batch: BatchRecord, records: UsageRecord[], err: unknown): Promise<boolean> {
    const appError = isAppError(err) ? err : undefined;
    const refused = await this.#refusedRecords(err, records).catch(() => []);
    if (refused.length > 0) {
      // The whole operation reverted (nothing of it is on chain, the key is unused): the records the
      // balance covers go back to the queue, the others fail.
      await this.ledger.dropBatch(batch.id);
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
      return true;
    }
    const txHint = (appError?.details?.tx_hash as `0x${string}` | undefined) ?? undefined;
    await this.ledger.setBatchHint(batch.id, txHint).catch(() => undefined);
    if (appError?.code === 'chain_unavailable') {
      this.logger.warn(
        { batch: batch.id, err: describe(err) },
        'content usage batch not confirmed; will settle it',
      );
      this.watch.markDown();
    } else {
      // Refused for another reason (which admission should have prevented), or something unexpected.
      this.logger.error(
        { batch: batch.id, err: describe(err) },
        'content usage batch failed; will settle it',
      );
      this.#recoveryRetryAt = Date.now() + 1_000;
    }
    this.#requestRecovery();
    return false;
  }

  /**
   * After an `InsufficientBalance(cuid, slot, balance, amount)` revert: the records of that slot in this
   * batch that no longer fit its on-chain balance (in queue order). The others stay queued.
   */
  async #refusedRecords(err: unknown, records: UsageRecord[]): Promise<UsageRecord[]> {
    if (!isRevertNamed(err, 'InsufficientBalance')) return [];
    const [cuid, slot] = err.revert.args as [string, string];
    const mine = records.filter((r) => r.cuid === cuid && sameAddress(r.slot, String(slot)));
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
   * Settles every batch left `sending` (by a crash, an outage, a lost receipt or a database error): a batch
   * found on chain by its key is completed from that transaction's events; one not found is sent again
   * under the same key, unless its last transaction still waits in the node's pool (then it is passed over
   * for up to `PENDING_RESEND_MS`, the others settled meanwhile, and sent again after). False while one is
   * unsettled. A batch that cannot be settled now (its resend was refused, its events cannot be read) is left
   * `sending` for the next round without holding the others back; only a node that went away stops the round.
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
    // Batches settled elsewhere (the send loop, another replica) are no longer waited for.
    for (const waits of [this.#pendingSince, this.#stuck]) {
      for (const id of waits.keys()) if (!pending.some((b) => b.id === id)) waits.delete(id);
    }
    let settled = true;
    // When the next round is worth running if only stuck batches are left unsettled (their soonest retry).
    let onlyStuckUntil: number | undefined = Infinity;
    const waitsForStuck = (id: string) => {
      settled = false;
      if (onlyStuckUntil !== undefined)
        onlyStuckUntil = Math.min(onlyStuckUntil, this.#stuck.get(id)!.retryAt);
    };
    for (const batch of pending) {
      if ((this.#stuck.get(batch.id)?.retryAt ?? 0) > Date.now()) {
        waitsForStuck(batch.id);
        continue;
      }
      const records = await this.ledger.listBatchRecords(batch.id);
      if (records.length === 0) {
        await this.ledger.dropBatch(batch.id);
        continue;
      }
      const plan = planBatch(batch, records);
      let outcome;
      try {
        outcome = await this.chain.findUsageBatch(plan.sent, batch.txHint);
      } catch (err) {
        this.logger.warn({ batch: batch.id, err: describe(err) }, 'cannot settle a content usage batch yet');
        if (isAppError(err) && err.code === 'chain_unavailable') {
          this.watch.markDown();
          return false;
        }
        this.#backOff(batch.id);
        waitsForStuck(batch.id);
        continue;
      }
      if (outcome.found) {
        this.#pendingSince.delete(batch.id);
        this.#stuck.delete(batch.id);
        await this.#complete(batch.id, plan.order, outcome);
        this.logger.info(
          { batch: batch.id, records: records.length },
          'content usage batch settled from the chain',
        );
        continue;
      }
      if (outcome.pending) {
        const since = this.#pendingSince.get(batch.id) ?? Date.now();
        this.#pendingSince.set(batch.id, since);
        // Waiting batches do not hold the others back (they were sent later, or never).
        if (Date.now() - since < PENDING_RESEND_MS) {
          settled = false;
          onlyStuckUntil = undefined;
          continue;
        }
        this.logger.warn(
          { batch: batch.id, tx_hash: batch.txHint, waited_ms: Date.now() - since },
          "content usage batch's transaction still waits in the node's pool; sending the batch again",
        );
      }
      this.#pendingSince.delete(batch.id);
      this.logger.info(
        { batch: batch.id, records: records.length },
        'content usage batch not on chain; resending it',
      );
      if (!(await this.#attempt(batch, records, plan))) {
        // Without the node, the rest waits for it too. Otherwise this batch waits for the next round and
        // the ones after it are not held back: a batch that cannot be settled (the chain holds its effects
        // and not its events, docs/content-tokens.md) once kept every later one `sending` for good.
        if (this.watch.down) return false;
        this.#backOff(batch.id);
        waitsForStuck(batch.id);
        continue;
      }
      this.#stuck.delete(batch.id);
    }
    // Only batches waiting out their back-off are left: the next round waits for the first of them, unless
    // something new needs recovery first (`#requestRecovery`).
    this.#stuckOnlyUntil =
      !settled && onlyStuckUntil !== undefined && onlyStuckUntil !== Infinity ? onlyStuckUntil : 0;
    return settled;
  }

  /** One more failure of a batch recovery cannot settle: its next try waits twice as long (1 s to 5 min). */
  #backOff(id: string): void {
    const failures = (this.#stuck.get(id)?.failures ?? 0) + 1;
    const delay = Math.min(STUCK_RETRY_FIRST_MS * 2 ** (failures - 1), STUCK_RETRY_MAX_MS);
    this.#stuck.set(id, { failures, retryAt: Date.now() + delay });
    this.logger.error(
      { batch: id, failures, retry_in_ms: delay },
      'content usage batch cannot be settled; trying again later (docs/content-tokens.md)',
    );
  }
}

/**
 * The batch as the chain sees it (one group per cuid) and its records in the order of its events;
 * `nonceKey` is the operator nonce key it goes out under (recovery's resends use the usual one).
 */
function planBatch(
  batch: BatchRecord,
  records: UsageRecord[],
  nonceKey?: bigint,
): { sent: UsageBatch; order: UsageRecord[] } {
  const { groups, order } = groupRecords(records);
  return {
    sent: {
      id: batch.id,
      fromBlock: batch.fromBlock,
      groups,
      ...(nonceKey !== undefined ? { nonceKey } : {}),
    },
    order,
  };
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
