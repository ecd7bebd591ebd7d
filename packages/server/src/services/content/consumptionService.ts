import type { Logger } from 'pino';
import { AppError, chainUnavailable, conflict, databaseUnavailable, isAppError } from '../../errors.js';
import type {
  ContentLedgerStore,
  NewUsage,
  ReserveResult,
  UsageRecord,
} from '../../stores/contentLedgerStore.js';
import type { ChainWatch } from './chainWatch.js';
import { type ConsumptionPayload, parseConsumptionPayload } from './consumptionPayload.js';
import { KeyedMutex } from './keyedMutex.js';
import type { ContentTokenChain, SlotDirectory, SlotView } from './ports.js';
import type { ProviderDirectory } from './providerDirectory.js';
import type { ProviderKeyring } from './providerKeyring.js';
import type { BatchListener, UsageBatcher } from './usageBatcher.js';

export interface ConsumptionOptions {
  /** How long an HTTP answer waits for its record's inclusion before answering 202 (queued). */
  answerTimeoutMs?: number;
  /** Authenticated payloads: how old `iat` may be … */
  maxPayloadAgeSeconds?: number;
  /** … and how far ahead of our clock. */
  maxClockSkewSeconds?: number;
}

/** The outcome of one consumption call. */
export type ConsumptionOutcome =
  | { status: 'included'; record: UsageRecord; requestId: string | undefined }
  | { status: 'queued'; record: UsageRecord; requestId: string | undefined };

const insufficient = (available?: bigint) =>
  new AppError(409, 'insufficient_balance', 'The slot does not have enough content tokens for this amount', {
    ...(available !== undefined ? { available: available.toString() } : {}),
  });
const unknownSlot = () =>
  new AppError(404, 'unknown_slot', "No slot with this user_dbkey belongs to the provider's app");
const unknownCuid = () => new AppError(404, 'unknown_cuid', 'This cuid is not registered to the provider');

/**
 * `increase_used_content_token`: authenticates a payload by its encryption, admits it against the slot's
 * DB-side available balance (never more than the chain holds minus what is already reserved), stores it
 * in the durable queue, and answers once the batcher's transaction that carried it is included.
 */
export class ConsumptionService implements BatchListener {
  readonly #options: Required<ConsumptionOptions>;
  readonly #mutex = new KeyedMutex();
  /** Confirmed slots never change app or address: positive lookups are kept (bounded). */
  readonly #slotCache = new Map<string, SlotView>();
  /** Admissions waiting for the next group commit. */
  #admissions: { usage: NewUsage; resolve(result: ReserveResult): void; reject(err: unknown): void }[] = [];
  #flushing = false;
  /** Callers waiting for their record; called with the settled record, or with nothing to answer as is. */
  readonly #waiters = new Map<string, Set<(record?: UsageRecord) => void>>();

  constructor(
    private readonly keyring: ProviderKeyring,
    private readonly providers: ProviderDirectory,
    private readonly slots: SlotDirectory,
    private readonly ledger: ContentLedgerStore,
    private readonly chain: ContentTokenChain,
    private readonly watch: ChainWatch,
    private batcher: UsageBatcher | undefined,
    private readonly logger: Logger,
    options: ConsumptionOptions = {},
  ) {
    this.#options = {
      answerTimeoutMs: 30_000,
      maxPayloadAgeSeconds: 300,
      maxClockSkewSeconds: 60,
      ...options,
    };
  }

  attachBatcher(batcher: UsageBatcher): void {
    this.batcher = batcher;
  }

  /** Records one consumption; see the class comment. Throws `AppError`s (4xx: nothing changed). */
  async consume(input: {
    encryptedMessage: string;
    clientId?: string | undefined;
    /** The app whose client_id and client_secret the caller proved (HTTP Basic), if any. */
    authenticatedClientId?: string | undefined;
    /**
     * Called with the payload's cuid once the payload is authenticated, before anything is recorded: the
     * per-cuid rate limit (it throws 429). Only a payload that opened under the cuid's key counts against it.
     */
    throttle?: ((cuid: string) => Promise<void>) | undefined;
  }): Promise<ConsumptionOutcome> {
    if (
      input.authenticatedClientId !== undefined &&
      input.clientId !== undefined &&
      input.clientId !== input.authenticatedClientId
    ) {
      throw new AppError(400, 'invalid_request', 'client_id differs from the HTTP Basic credentials', {
        field: 'client_id',
      });
    }
    const hint = input.authenticatedClientId ?? input.clientId;
    let payload: ConsumptionPayload | undefined;
    const opened = await this.keyring.open(input.encryptedMessage, hint, (plaintext, clientId) => {
      const parsed = parseConsumptionPayload(plaintext);
      if (parsed?.clientId !== clientId) return false;
      payload = parsed;
      return true;
    });
    if (!payload) throw new Error('keyring accepted a payload the verifier did not parse');
    const p: ConsumptionPayload = payload;
    if (opened.consumeAuth === 'client_secret') {
      // The payload alone proves nothing for such a provider (a CTR payload can be forged from one known
      // pair): only its own app's backend, proven by its secret, may spend its players' tokens.
      if (input.authenticatedClientId !== opened.clientId) {
        throw new AppError(
          401,
          'client_authentication_required',
          "This provider requires its app's client_id and client_secret (HTTP Basic) on consumption",
        );
      }
      // With authenticated senders, a unique request_id is what makes a resent message count once.
      if (p.requestId === undefined && opened.nonce === undefined) {
        throw new AppError(
          400,
          'invalid_request',
          'request_id is required in the payload of a provider with consume_auth client_secret',
          { field: 'request_id' },
        );
      }
    }
    if (opened.form === 'gcm') this.#checkFreshness(p);
    await input.throttle?.(p.cuid);
    const requestKey =
      p.requestId !== undefined
        ? `r:${p.requestId}`
        : opened.nonce
          ? `n:${opened.nonce.toString('hex')}`
          : undefined;

    if (requestKey !== undefined) {
      const existing = await this.#db(() => this.ledger.findByRequestKey(opened.clientId, requestKey));
      if (existing) return this.#replay(existing, p);
    }

    const provider = await this.#db(() => this.providers.registered(p.cuid));
    if (!provider || provider.clientId !== opened.clientId) throw unknownCuid();
    const slot = await this.#slot(p.slotId);
    if (!slot || slot.clientId !== opened.clientId) throw unknownSlot();
    if (this.watch.down) throw chainUnavailable();

    const usage: NewUsage = {
      clientId: opened.clientId,
      cuid: p.cuid,
      slot: slot.contentAddress,
      slotId: p.slotId,
      amount: p.amount,
      requestKey,
    };
    // Fast path: the group commit admits everything that arrived together in one transaction.
    const first = await this.#db(() => this.#groupAdmit(usage));
    let admitted: { accepted: UsageRecord } | { replay: UsageRecord };
    if (first.kind === 'accepted') admitted = { accepted: first.record };
    else if (first.kind === 'duplicate') admitted = { replay: first.existing };
    else {
      // Slow path (first use of a slot, or tokens bought since its row was read): one at a time per slot.
      admitted = await this.#mutex.run(`${p.cuid}\u0000${slot.contentAddress}`, () =>
        this.#admit(usage, first),
      );
    }
    if ('replay' in admitted) return this.#replay(admitted.replay, p);
    this.batcher?.notify();
    return this.#await(admitted.accepted, p.requestId);
  }

  /** Queues `usage` for the next group commit (one transaction for everything that arrived meanwhile). */
  #groupAdmit(usage: NewUsage): Promise<ReserveResult> {
    return new Promise<ReserveResult>((resolve, reject) => {
      this.#admissions.push({ usage, resolve, reject });
      if (this.#admissions.length === 1 && !this.#flushing) setImmediate(() => this.#flush());
    });
  }

  /**
   * Runs group commits until no admission is waiting; one at a time. The emptiness check and clearing
   * the flag happen in one synchronous step, so an admission arriving in between always schedules a flush.
   */
  #flush(): void {
    if (this.#flushing) return;
    this.#flushing = true;
    void (async () => {
      try {
        while (this.#admissions.length > 0) {
          const group = this.#admissions;
          this.#admissions = [];
          try {
            const results = await this.ledger.reserveMany(group.map((a) => a.usage));
            group.forEach((a, i) => a.resolve(results[i]!));
          } catch (err) {
            for (const a of group) a.reject(err);
          }
        }
      } finally {
        this.#flushing = false;
      }
    })();
  }

  async #slot(slotId: string): Promise<SlotView | undefined> {
    const cached = this.#slotCache.get(slotId);
    if (cached) return cached;
    const slot = await this.#db(() => this.slots.findById(slotId));
    if (slot) {
      if (this.#slotCache.size >= 100_000) this.#slotCache.clear();
      this.#slotCache.set(slotId, slot);
    }
    return slot;
  }

  /** Admission of one record under its slot's in-process lock, reading the chain when needed. */
  async #admit(
    usage: NewUsage,
    previous: ReserveResult,
  ): Promise<{ accepted: UsageRecord } | { replay: UsageRecord }> {
    const { cuid, slot } = usage;
    let result = previous;
    for (let attempt = 0; attempt < 3; attempt++) {
      switch (result.kind) {
        case 'accepted':
          return { accepted: result.record };
        case 'duplicate':
          return { replay: result.existing };
        case 'no_balance_row': {
          const figures = await this.#chainRead(() => this.chain.readSlot(cuid, slot));
          this.watch.observe(figures.blockNumber);
          const chain = { balance: figures.balance, used: figures.used, block: figures.blockNumber };
          // A new row, or (after a chain rewind) a stale one brought up to date.
          await this.#db(() => this.ledger.insertBalance(cuid, slot, chain));
          await this.#db(() => this.ledger.refreshBalance(cuid, slot, chain));
          break;
        }
        case 'insufficient': {
          // Tokens bought since the row was read are only visible on chain: refresh once a newer block is
          // known (the watcher polls every 100 ms; dauth's own purchases advance it at once).
          const head = this.watch.latest;
          if (head <= result.row.chainBlock || attempt > 0) throw insufficient(result.available);
          const figures = await this.#chainRead(() => this.chain.readSlot(cuid, slot, head));
          await this.#db(() =>
            this.ledger.refreshBalance(cuid, slot, {
              balance: figures.balance,
              used: figures.used,
              block: figures.blockNumber,
            }),
          );
          break;
        }
      }
      result = await this.#db(() => this.ledger.reserve(usage));
    }
    if (result.kind === 'accepted') return { accepted: result.record };
    if (result.kind === 'duplicate') return { replay: result.existing };
    throw insufficient(result.kind === 'insufficient' ? result.available : undefined);
  }

  /** A request key seen before: the same payload gets the original outcome; a different one is a 409. */
  async #replay(existing: UsageRecord, p: ConsumptionPayload): Promise<ConsumptionOutcome> {
    if (existing.cuid !== p.cuid || existing.slotId !== p.slotId || existing.amount !== p.amount) {
      throw conflict('request_id_reused', 'This request_id was already used for a different consumption');
    }
    return this.#await(existing, p.requestId);
  }

  async #await(record: UsageRecord, requestId: string | undefined): Promise<ConsumptionOutcome> {
    const settled =
      record.state === 'included' || record.state === 'failed' ? record : await this.#waitFor(record);
    if (settled.state === 'failed') throw insufficient();
    if (settled.state === 'included') return { status: 'included', record: settled, requestId };
    return { status: 'queued', record: settled, requestId };
  }

  /** Waits for the batcher to settle `record` (in-process), polling the database as a fallback. */
  async #waitFor(record: UsageRecord): Promise<UsageRecord> {
    return new Promise<UsageRecord>((resolve) => {
      let done = false;
      const finish = (r: UsageRecord = record) => {
        if (done) return;
        done = true;
        clearTimeout(timeout);
        clearInterval(poll);
        const set = this.#waiters.get(record.id);
        set?.delete(finish);
        if (set?.size === 0) this.#waiters.delete(record.id);
        resolve(r);
      };
      let set = this.#waiters.get(record.id);
      if (!set) this.#waiters.set(record.id, (set = new Set()));
      set.add(finish);
      const timeout = setTimeout(() => finish(record), this.#options.answerTimeoutMs);
      // The batcher may run in another replica: then only the database tells.
      const poll = setInterval(
        () => {
          void this.ledger.findUsage(record.id).then(
            (r) => {
              if (r && (r.state === 'included' || r.state === 'failed')) finish(r);
            },
            () => undefined,
          );
        },
        this.batcher?.isLeader ? 2_000 : 200,
      );
    });
  }

  /**
   * Answers every waiting caller now with what is known (a record still queued is answered 202): on
   * shutdown the HTTP server waits for open requests, and a queued record is safe in the database.
   */
  answerPending(): void {
    for (const set of [...this.#waiters.values()]) {
      for (const finish of [...set]) finish();
    }
  }

  /** Called by the batcher when records are included (or refused). */
  settled(records: UsageRecord[]): void {
    for (const record of records) {
      const set = this.#waiters.get(record.id);
      if (!set) continue;
      for (const finish of [...set]) finish(record);
    }
  }

  #checkFreshness(p: ConsumptionPayload): void {
    const now = Date.now() / 1000;
    if (
      p.iat === undefined ||
      p.iat < now - this.#options.maxPayloadAgeSeconds ||
      p.iat > now + this.#options.maxClockSkewSeconds
    ) {
      throw new AppError(
        401,
        'stale_payload',
        `The payload's iat must be within ${this.#options.maxPayloadAgeSeconds} s of the current time`,
      );
    }
  }

  /** Database work at admission time: an outage is a 503 and nothing was accepted. */
  async #db<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (isAppError(err)) throw err;
      this.logger.error({ err }, 'content tokens: database error while admitting a consumption');
      throw databaseUnavailable();
    }
  }

  async #chainRead<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (isAppError(err) && err.code === 'chain_unavailable') this.watch.markDown();
      throw isAppError(err) ? err : chainUnavailable();
    }
  }
}
