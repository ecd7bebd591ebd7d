import { createHash, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { sql } from 'kysely';
import pg from 'pg';
import type { Db } from '../db/database.js';
import type { RevocationEntry, RevocationKind } from './oauthRevocationStore.js';
import { RedisPubSub } from './redisPubSub.js';

/** What a replica hears from the others. */
export interface RevocationBusListener {
  onEntry(entry: RevocationEntry): void;
  /** Another replica changed something other replicas may hold in memory (`topic`: what, `key`: which). */
  onInvalidation?(topic: string, key: string): void;
  /** The subscription is (re-)established; anything published while it was down may be missed. */
  onConnected(): void;
  /** The subscription is down: messages published from now on may be missed. */
  onDisconnected(): void;
}

/** Carries revocations between replicas. Delivery is best effort; the registry re-syncs on reconnect. */
export interface RevocationBus {
  readonly kind: 'redis' | 'postgres';
  /** Name of the listening connection (Redis CLIENT name, PostgreSQL application_name). */
  readonly connectionName: string;
  start(listener: RevocationBusListener): void;
  publish(entry: RevocationEntry): Promise<void>;
  /** Tells the other replicas to drop what they hold of `key` (e.g. topic `client`: an app's row). */
  publishInvalidation(topic: string, key: string): Promise<void>;
  close(): Promise<void>;
}

interface WireMessage {
  /** Origin bus, so a replica skips its own messages (already applied synchronously). */
  o: string;
  /** `grant` and `jti`: a revocation; `x`: an invalidation (replicas before it ignore the kind). */
  k: RevocationKind | 'x';
  v: string;
  e: number;
  /** The invalidation's topic (kind `x` only). */
  t?: string;
}

type BusMessage =
  { type: 'revocation'; entry: RevocationEntry } | { type: 'invalidation'; topic: string; key: string };

function encode(origin: string, entry: RevocationEntry): string {
  const message: WireMessage = { o: origin, k: entry.kind, v: entry.value, e: entry.expiresAt };
  return JSON.stringify(message);
}

function encodeInvalidation(origin: string, topic: string, key: string): string {
  const message: WireMessage = { o: origin, k: 'x', v: key, e: 0, t: topic };
  return JSON.stringify(message);
}

function decode(origin: string, text: string): BusMessage | undefined {
  try {
    const m = JSON.parse(text) as Partial<WireMessage>;
    if (m.o === origin || typeof m.v !== 'string') return undefined;
    if (m.k === 'x') {
      return typeof m.t === 'string' ? { type: 'invalidation', topic: m.t, key: m.v } : undefined;
    }
    if ((m.k !== 'grant' && m.k !== 'jti') || typeof m.e !== 'number') return undefined;
    return { type: 'revocation', entry: { kind: m.k, value: m.v, expiresAt: m.e } };
  } catch {
    return undefined;
  }
}

function deliver(listener: RevocationBusListener, message: BusMessage | undefined): void {
  if (message?.type === 'revocation') listener.onEntry(message.entry);
  else if (message?.type === 'invalidation') listener.onInvalidation?.(message.topic, message.key);
}

/** Channel names are per deployment (issuer and schema), so unrelated services sharing a broker never mix. */
export function revocationChannel(namespace: string): string {
  return `dauth_rev_${createHash('sha256').update(namespace).digest('hex').slice(0, 24)}`;
}

/** Redis pub/sub (one `RedisPubSub` channel). */
export class RedisRevocationBus implements RevocationBus {
  readonly kind = 'redis' as const;
  readonly #channel: RedisPubSub;

  constructor(redis: Redis, channel: string) {
    this.#channel = new RedisPubSub(redis, channel, 'dauth-revocations');
  }

  get connectionName(): string {
    return this.#channel.connectionName;
  }

  start(listener: RevocationBusListener): void {
    this.#channel.start({
      onMessage: (text) => deliver(listener, decode(this.#channel.origin, text)),
      onConnected: () => listener.onConnected(),
      onDisconnected: () => listener.onDisconnected(),
    });
  }

  async publish(entry: RevocationEntry): Promise<void> {
    await this.#channel.publish(encode(this.#channel.origin, entry));
  }

  async publishInvalidation(topic: string, key: string): Promise<void> {
    await this.#channel.publish(encodeInvalidation(this.#channel.origin, topic, key));
  }

  close(): Promise<void> {
    return this.#channel.close();
  }
}

/**
 * PostgreSQL LISTEN/NOTIFY: one dedicated connection listens (reconnecting with backoff);
 * notifications are sent through the pool with `pg_notify`.
 */
export class PgRevocationBus implements RevocationBus {
  readonly kind = 'postgres' as const;
  readonly #origin = randomUUID();
  readonly connectionName = `dauth-revocations-${this.#origin.slice(0, 8)}`;
  #client: pg.Client | undefined;
  #closed = false;
  #retryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    private readonly connectionString: string,
    private readonly channel: string,
  ) {}

  start(listener: RevocationBusListener): void {
    let attempt = 0;
    const connect = () => {
      if (this.#closed) return;
      const client = new pg.Client({
        connectionString: this.connectionString,
        application_name: this.connectionName,
      });
      this.#client = client;
      let down = false;
      const onDown = () => {
        if (down) return;
        down = true;
        listener.onDisconnected();
        client.removeAllListeners('notification');
        client.end().catch(() => undefined);
        if (this.#closed) return;
        const delay = Math.min(5000, 250 * 2 ** Math.min(attempt++, 5));
        this.#retryTimer = setTimeout(connect, delay);
        this.#retryTimer.unref();
      };
      client.on('error', onDown);
      client.on('end', onDown);
      client.on('notification', (msg) => {
        if (msg.channel !== this.channel || !msg.payload) return;
        deliver(listener, decode(this.#origin, msg.payload));
      });
      client
        .connect()
        .then(() => client.query(`LISTEN "${this.channel}"`))
        .then(() => {
          attempt = 0;
          if (!this.#closed) listener.onConnected();
        })
        .catch(onDown);
    };
    connect();
  }

  async publish(entry: RevocationEntry): Promise<void> {
    await this.#notify(encode(this.#origin, entry));
  }

  async publishInvalidation(topic: string, key: string): Promise<void> {
    await this.#notify(encodeInvalidation(this.#origin, topic, key));
  }

  async #notify(payload: string): Promise<void> {
    await sql`select pg_notify(${this.channel}, ${payload})`.execute(this.db);
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    const client = this.#client;
    this.#client = undefined;
    if (client) {
      client.removeAllListeners();
      client.on('error', () => undefined);
      await client.end().catch(() => undefined);
    }
  }
}
