import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RedisPubSub } from './redisPubSub.js';

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
  readonly #channel: RedisPubSub;

  constructor(redis: Redis, channel: string) {
    this.#channel = new RedisPubSub(redis, channel, 'dauth-chain-head');
  }

  get connectionName(): string {
    return this.#channel.connectionName;
  }

  start(listener: ChainHeadListener): void {
    this.#channel.start({
      onMessage: (text) => {
        const block = decode(this.#channel.origin, text);
        if (block !== undefined) listener.onBlock(block);
      },
      onConnected: () => listener.onConnected(),
      onDisconnected: () => listener.onDisconnected(),
    });
  }

  /** Resolves once Redis has handed the message to every subscribed replica's connection. */
  async publish(block: bigint): Promise<void> {
    await this.#channel.publish(JSON.stringify({ o: this.#channel.origin, b: block.toString() }));
  }

  close(): Promise<void> {
    return this.#channel.close();
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
