import { createHash, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/** What a replica hears from the others: the blocks their chain writes landed in. */
export interface ChainHeadListener {
  onBlock(block: bigint): void;
  /** The subscription is (re-)established; blocks published while it was down may have been missed. */
  onConnected(): void;
  /** The subscription is down: blocks published from now on may be missed. */
  onDisconnected(): void;
}

/**
 * Redis pub/sub of "a write of mine landed in block N" between replicas, so a read that follows a write's
 * answer on another replica is served from that block or later (read-your-writes across replicas; issue 16).
 * Publishes on the shared connection, listens on a duplicate in subscriber mode.
 */
export class RedisChainHeadBus {
  readonly #origin = randomUUID();
  readonly connectionName = `dauth-chain-head-${this.#origin.slice(0, 8)}`;
  #subscriber: Redis | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly channel: string,
  ) {}

  start(listener: ChainHeadListener): void {
    const sub = this.redis.duplicate({
      lazyConnect: true,
      maxRetriesPerRequest: null,
      connectionName: this.connectionName,
    });
    this.#subscriber = sub;
    sub.on('message', (channel: string, text: string) => {
      if (channel !== this.channel) return;
      const block = decode(this.#origin, text);
      if (block !== undefined) listener.onBlock(block);
    });
    sub.on('ready', () => {
      sub.subscribe(this.channel).then(
        () => listener.onConnected(),
        () => listener.onDisconnected(),
      );
    });
    sub.on('close', () => listener.onDisconnected());
    sub.on('error', () => undefined);
    sub.connect().catch(() => undefined);
  }

  /** Resolves once Redis has handed the message to every subscribed replica's connection. */
  async publish(block: bigint): Promise<void> {
    await this.redis.publish(this.channel, JSON.stringify({ o: this.#origin, b: block.toString() }));
  }

  async close(): Promise<void> {
    const sub = this.#subscriber;
    this.#subscriber = undefined;
    if (sub) sub.disconnect(false);
  }
}

function decode(origin: string, text: string): bigint | undefined {
  try {
    const m = JSON.parse(text) as { o?: unknown; b?: unknown };
    if (m.o === origin || typeof m.b !== 'string' || !/^\d{1,20}$/.test(m.b)) return undefined;
    return BigInt(m.b);
  } catch {
    return undefined;
  }
}

/** Per deployment (issuer and schema), like the revocation channel: unrelated services on one Redis never mix. */
export function chainHeadChannel(namespace: string): string {
  return `dauth_head_${createHash('sha256').update(namespace).digest('hex').slice(0, 24)}`;
}
