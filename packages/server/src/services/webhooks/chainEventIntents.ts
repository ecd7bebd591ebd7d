import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { FoundPurchase, FoundRelease } from '../../chain/contentTokenTypes.js';
import type { Address } from '../../chain/types.js';
import { AppError, OperationReverted } from '../../errors.js';
import type { OutboxEvent, WebhookIntentStore } from '../../stores/webhookStore.js';

/** The events of changes made on chain only: nothing in the database changes with them. */
export type ChainEventType = 'content.purchased' | 'content.released';

/** What finds the change on chain when its answer was cut off. */
export type ChainEventMatch =
  | { kind: 'purchase'; cuid: string; slot: Address; buyer: Address; value: string }
  | { kind: 'release'; cuid: string; slot: Address };

/** The chain's logs as the recovery reads them (the content-token gateway fits it). */
export interface ChainEventFinder {
  blockNumber(): Promise<bigint>;
  findPurchases(query: {
    cuid: string;
    slot: Address;
    buyer: Address;
    fromBlock: bigint;
  }): Promise<FoundPurchase[]>;
  findReleases(query: { cuid: string; slot: Address; fromBlock: bigint }): Promise<FoundRelease[]>;
}

/** What the writer holds between the chain write and its answer. */
export interface ChainEventTicket {
  type: ChainEventType;
  clientId: string;
  /** Undefined when no endpoint of the app wanted the type at the start (no intent was written). */
  msgId: string | undefined;
}

export interface ChainEventIntentsOptions {
  /** No other process uses this database: every intent of an earlier process is orphaned at once. */
  soleProcess: boolean;
  /** CHAIN_CONFIRMATIONS: how deep a found change must be before its event is written. */
  confirmations: number;
  /** With replicas: an intent older than this is taken to have lost its writer (default 10 min). */
  orphanAfterMs: number;
  /** An orphan whose change is not on chain this long after it was written is dropped (default 30 min). */
  giveUpAfterMs: number;
  /** How often orphans are looked for (default 10 s; also once at start). */
  sweepMs: number;
}

export const DEFAULT_CHAIN_EVENT_INTENTS: Omit<ChainEventIntentsOptions, 'soleProcess' | 'confirmations'> = {
  orphanAfterMs: 10 * 60_000,
  giveUpAfterMs: 30 * 60_000,
  sweepMs: 10_000,
};

/** A sweep's outcome (tests, logs). */
export interface SweepReport {
  completed: number;
  dropped: number;
  waiting: number;
}

interface Facts {
  data: Record<string, string>;
  match: ChainEventMatch;
}

/**
 * Events of changes made on chain only — a content purchase, a release — written exactly once even when
 * the process dies between the chain and its answer (docs/webhooks.md, "Changes made on chain only").
 *
 * Before the chain write the writer opens an intent (its `webhook-id`, the data known beforehand, what
 * identifies the change on chain, the head block); after the write the answer's path completes it — one
 * transaction that deletes the intent and writes the deliveries. An intent left behind (its process was
 * killed, or the write's outcome was unknown) is an orphan: the sweep looks for its change in the chain's
 * logs and completes it with the same `webhook-id`, or drops it once the change cannot land any more.
 * Whichever of the two gets there first writes the event; the other finds the intent gone.
 */
export class ChainEventIntents {
  readonly holder = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`.slice(0, 64);
  readonly #options: ChainEventIntentsOptions;
  readonly #startedAt: number;
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<SweepReport> | undefined;

  constructor(
    private readonly store: Pick<
      WebhookIntentStore,
      'subscribed' | 'open' | 'complete' | 'claimed' | 'drop' | 'prune' | 'list' | 'record'
    >,
    private readonly finder: ChainEventFinder,
    private readonly logger: {
      info(obj: object, msg: string): void;
      warn(obj: object, msg: string): void;
    },
    options: Pick<ChainEventIntentsOptions, 'soleProcess' | 'confirmations'> &
      Partial<ChainEventIntentsOptions>,
    private readonly now: () => number = Date.now,
  ) {
    this.#options = { ...DEFAULT_CHAIN_EVENT_INTENTS, ...options };
    this.#startedAt = now();
  }

  /**
   * Before the chain write. `fromBlock` is read only when an intent is written (an app with an endpoint
   * subscribed to `type`): the chain's head, or any block before it.
   */
  async open(
    type: ChainEventType,
    clientId: string,
    data: Record<string, string>,
    match: ChainEventMatch,
    fromBlock: () => bigint | Promise<bigint>,
  ): Promise<ChainEventTicket> {
    if (!(await this.store.subscribed(clientId, type))) return { type, clientId, msgId: undefined };
    const facts: Facts = { data, match };
    const msgId = await this.store.open({
      clientId,
      type,
      facts: JSON.stringify(facts),
      fromBlock: await fromBlock(),
      holder: this.holder,
      createdAt: this.now(),
    });
    return { type, clientId, msgId };
  }

  /**
   * The change is on chain (as deep as an answer needs): the event, before the caller is answered.
   * `change`: the event log that reports it on chain (its transaction and index in the block).
   */
  async complete(
    ticket: ChainEventTicket,
    data: Record<string, string>,
    change: { txHash: string; logIndex: number },
  ): Promise<void> {
    const event: Omit<OutboxEvent, 'msgId'> = {
      type: ticket.type,
      clientId: ticket.clientId,
      data,
      at: this.now(),
    };
    if (ticket.msgId === undefined) {
      // No endpoint wanted it when the write began; one added since gets it (none: nothing is written).
      await this.store.record(event);
      return;
    }
    // False: the sweep completed it already, with the same id.
    await this.store.complete(ticket.msgId, event, changeKey(change), this.now());
  }

  /**
   * The write failed. A refusal (nothing changed) drops the intent; any other error may have followed
   * the change onto the chain (an unknown outcome, a lost read after the write), so the intent stays
   * for the sweep to settle from the chain.
   */
  async abandon(ticket: ChainEventTicket, err: unknown): Promise<void> {
    if (ticket.msgId === undefined) return;
    const refused = err instanceof OperationReverted || (err instanceof AppError && err.status < 500);
    if (refused) await this.store.drop(ticket.msgId);
  }

  start(): void {
    const run = () =>
      void this.sweep().catch((err: unknown) =>
        this.logger.warn(
          { err: err instanceof Error ? err.message : String(err) },
          'webhook intent sweep failed',
        ),
      );
    run();
    this.#timer = setInterval(run, this.#options.sweepMs);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#sweeping?.catch(() => undefined);
  }

  /** Completes (or drops) orphaned intents from the chain's logs; one sweep at a time. */
  sweep(): Promise<SweepReport> {
    this.#sweeping ??= this.#sweep().finally(() => (this.#sweeping = undefined));
    return this.#sweeping;
  }

  async #sweep(): Promise<SweepReport> {
    const report: SweepReport = { completed: 0, dropped: 0, waiting: 0 };
    const now = this.now();
    const o = this.#options;
    // Tombstones outlive every orphan that could still look for their change.
    await this.store.prune(now - 2 * o.giveUpAfterMs);
    const orphans = (await this.store.list(200)).filter(
      (i) => (o.soleProcess && i.holder !== this.holder) || now - i.createdAt >= o.orphanAfterMs,
    );
    if (orphans.length === 0) return report;
    const head = await this.finder.blockNumber();
    // A change already reported (by the answer's path or an earlier sweep) or found for an older intent
    // in this sweep is not given to another intent.
    const taken = new Set<string>();
    for (const intent of orphans) {
      const facts = JSON.parse(intent.facts) as Facts;
      const candidates = (await this.#find(facts.match, intent.fromBlock)).filter((c) => !taken.has(c.key));
      const claimed = await this.store.claimed(candidates.map((c) => c.key));
      const found = candidates.find((c) => !claimed.has(c.key));
      if (found && head >= found.blockNumber + BigInt(o.confirmations - 1)) {
        taken.add(found.key);
        const wrote = await this.store.complete(
          intent.msgId,
          {
            type: intent.type,
            clientId: intent.clientId,
            data: { ...facts.data, ...found.data },
            at: now,
          },
          found.key,
          now,
        );
        if (wrote) {
          report.completed++;
          this.logger.info(
            { msg_id: intent.msgId, type: intent.type, tx_hash: found.data.tx_hash },
            'webhook event of a chain change whose answer was cut off: found on chain and queued',
          );
        } else {
          report.waiting++;
        }
      } else if (!found && now - intent.createdAt >= o.giveUpAfterMs && now - this.#startedAt >= 120_000) {
        // Long past the operation's validity, and this process has been up long enough for the chain
        // journal's recovery to give back what the chain lost: the change never happened.
        if (await this.store.drop(intent.msgId)) report.dropped++;
        this.logger.warn(
          { msg_id: intent.msgId, type: intent.type, client_id: intent.clientId },
          'webhook intent dropped: its chain change never landed',
        );
      } else {
        report.waiting++;
      }
    }
    return report;
  }

  /** The changes on chain that fit `match`, oldest first. */
  async #find(
    match: ChainEventMatch,
    fromBlock: bigint,
  ): Promise<{ key: string; blockNumber: bigint; data: Record<string, string> }[]> {
    if (match.kind === 'purchase') {
      const found = await this.finder.findPurchases({
        cuid: match.cuid,
        slot: match.slot,
        buyer: match.buyer,
        fromBlock,
      });
      return found
        .filter((p) => p.amount.toString() === match.value)
        .map((p) => ({
          key: changeKey(p),
          blockNumber: p.blockNumber,
          data: {
            amount: p.amount.toString(),
            platform_fee: p.platformFee.toString(),
            provider_received: p.providerAmount.toString(),
            tx_hash: p.txHash,
          },
        }));
    }
    const found = await this.finder.findReleases({ cuid: match.cuid, slot: match.slot, fromBlock });
    return found.map((r) => ({
      key: changeKey(r),
      blockNumber: r.blockNumber,
      data: { usage: r.usage.toString(), amount: r.paid.toString(), tx_hash: r.txHash },
    }));
  }
}

/** A change on chain by its event log: `<tx hash>:<log index>` (lower case). */
const changeKey = (change: { txHash: string; logIndex: number }) =>
  `${change.txHash.toLowerCase()}:${change.logIndex}`;
