import type { Logger } from 'pino';
import type { ContentTokenChain } from './ports.js';

/** The longest a write's answer waits for the bus to take its block. */
const PUBLISH_WAIT_MS = 1_000;

/**
 * Carries "a write landed in block N" between replicas (RedisChainHeadBus). Without it (one process) the
 * watch knows of its own writes at once and of everything else within a poll.
 */
export interface HeadBroadcast {
  start(listener: { onBlock(block: bigint): void; onConnected(): void; onDisconnected(): void }): void;
  /** Resolves once the other replicas' subscriptions have been handed the block. */
  publish(block: bigint): Promise<void>;
  close(): Promise<void>;
}

/**
 * The content domain's view of the chain's progress and health: the latest included block it knows of
 * (polled every `pollMs`, bumped at once by this process's own inclusions and, across replicas, by the
 * other replicas' inclusions over a `HeadBroadcast`), and whether the node answered its last request.
 * Consumption admission refuses work while the node is known to be down, and the balance cache is keyed
 * by `latest`.
 */
export class ChainWatch {
  #broadcast: HeadBroadcast | undefined;
  /** False while a broadcast is configured but not subscribed: then every `head()` asks the node. */
  #heard = true;
  #latest = 0n;
  #down = false;
  #downSince = 0;
  #polling: Promise<bigint> | undefined;
  #timer: NodeJS.Timeout | undefined;
  readonly #upListeners = new Set<() => void>();
  readonly #rewindListeners = new Set<(head: bigint) => void>();

  constructor(
    private readonly chain: ContentTokenChain,
    private readonly logger: Logger,
    /** How often the head is polled (also the recovery probe while the node is down). */
    private readonly pollMs = 100,
  ) {}

  get latest(): bigint {
    return this.#latest;
  }

  get down(): boolean {
    return this.#down;
  }

  start(): void {
    this.#timer = setInterval(() => void this.poll().catch(() => undefined), this.pollMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    void this.#broadcast?.close();
  }

  /**
   * Hears the other replicas' writes. Until the subscription is up (and whenever it is down) `head()` asks
   * the node on every call instead of trusting the poller, so a read never misses a write it could not hear.
   */
  listen(broadcast: HeadBroadcast): void {
    this.#broadcast = broadcast;
    this.#heard = false;
    broadcast.start({
      onBlock: (block) => this.observe(block),
      onConnected: () => {
        this.#heard = true;
      },
      onDisconnected: () => {
        this.#heard = false;
      },
    });
  }

  /** Records a block this process saw included (its own write) or the watcher reported. */
  observe(blockNumber: bigint): void {
    if (blockNumber > this.#latest) this.#latest = blockNumber;
    this.markUp();
  }

  /**
   * A write of this process landed in `blockNumber`: known here at once and, before the caller answers, to
   * every other replica, so a read that follows the answer through any replica sees the write.
   */
  async landed(blockNumber: bigint): Promise<void> {
    this.observe(blockNumber);
    if (!this.#broadcast) return;
    // A lost message costs staleness only until the next poll; the write itself succeeded: never fail it,
    // nor hold its answer longer than PUBLISH_WAIT_MS for a bus that does not answer.
    let timer: NodeJS.Timeout | undefined;
    const published = this.#broadcast.publish(blockNumber).then(
      () => true,
      (err: unknown) => {
        this.logger.warn({ err }, 'could not tell the other replicas of a written block');
        return true;
      },
    );
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), PUBLISH_WAIT_MS);
    });
    if (!(await Promise.race([published, late]))) {
      this.logger.warn({ block: String(blockNumber) }, 'the bus did not take a written block in time');
    }
    clearTimeout(timer);
  }

  /** Asks the node for its head now (one request shared by concurrent callers). */
  async poll(): Promise<bigint> {
    this.#polling ??= (async () => {
      try {
        const head = await this.chain.blockNumber();
        if (head < this.#latest) {
          // The chain went back (the embedded chain restarted from an earlier saved state).
          this.logger.warn({ head: String(head), known: String(this.#latest) }, 'the chain head moved back');
          this.#latest = head;
          for (const listener of this.#rewindListeners) listener(head);
        }
        this.observe(head);
        return head;
      } catch (err) {
        this.markDown();
        throw err;
      } finally {
        this.#polling = undefined;
      }
    })();
    return this.#polling;
  }

  /** The latest block, asking the node when none is known yet or when other replicas' writes go unheard. */
  async head(): Promise<bigint> {
    return this.headNow() ?? this.poll();
  }

  /** What `head()` answers without asking the node; undefined when it would have to ask. */
  headNow(): bigint | undefined {
    return this.#latest > 0n && this.#heard ? this.#latest : undefined;
  }

  markDown(): void {
    if (!this.#down) {
      this.#down = true;
      this.#downSince = Date.now();
      this.logger.warn(
        'content tokens: the chain node is unavailable; consumption answers 503 until it is back',
      );
    }
  }

  markUp(): void {
    if (!this.#down) return;
    this.#down = false;
    this.logger.info({ downForMs: Date.now() - this.#downSince }, 'content tokens: the chain node is back');
    for (const listener of this.#upListeners) listener();
  }

  onUp(listener: () => void): () => void {
    this.#upListeners.add(listener);
    return () => this.#upListeners.delete(listener);
  }

  onRewind(listener: (head: bigint) => void): () => void {
    this.#rewindListeners.add(listener);
    return () => this.#rewindListeners.delete(listener);
  }
}
