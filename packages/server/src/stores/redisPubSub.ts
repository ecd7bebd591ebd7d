import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/** What a subscriber hears: the raw messages on its channel, and the subscription's state. */
export interface PubSubListener {
  onMessage(text: string): void;
  /** The subscription is (re-)established; anything published while it was down may be missed. */
  onConnected(): void;
  /** The subscription is down: messages published from now on may be missed. */
  onDisconnected(): void;
}

/**
 * One Redis pub/sub channel between replicas, shared by the buses built on it (revocations, chain heads).
 * It publishes on the shared connection and listens on a duplicate in subscriber mode (a subscribed
 * connection can send nothing else). `origin` tells this process's own messages apart: each bus puts it
 * in its wire format and skips its own messages, which it applied where it sent them.
 */
export class RedisPubSub {
  readonly origin = randomUUID();
  /** Redis CLIENT name of the listening connection (tests find it with CLIENT LIST). */
  readonly connectionName: string;
  #subscriber: Redis | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly channel: string,
    connectionPrefix: string,
  ) {
    this.connectionName = `${connectionPrefix}-${this.origin.slice(0, 8)}`;
  }

  start(listener: PubSubListener): void {
    const sub = this.redis.duplicate({
      lazyConnect: true,
      maxRetriesPerRequest: null,
      connectionName: this.connectionName,
    });
    this.#subscriber = sub;
    sub.on('message', (channel: string, text: string) => {
      if (channel === this.channel) listener.onMessage(text);
    });
    sub.on('ready', () => {
      sub.subscribe(this.channel).then(
        () => listener.onConnected(),
        () => listener.onDisconnected(),
      );
    });
    sub.on('close', () => listener.onDisconnected());
    // Errors surface as 'close' (and ioredis reconnects); an unhandled 'error' event would crash the process.
    sub.on('error', () => undefined);
    sub.connect().catch(() => undefined);
  }

  /** Resolves once Redis has handed the message to every subscribed connection. */
  async publish(text: string): Promise<void> {
    await this.redis.publish(this.channel, text);
  }

  async close(): Promise<void> {
    const sub = this.#subscriber;
    this.#subscriber = undefined;
    if (sub) sub.disconnect(false);
  }
}
