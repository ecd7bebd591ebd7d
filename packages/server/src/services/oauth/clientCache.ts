import type { OAuthClient } from '../../stores/clientStore.js';

/**
 * The registered apps' rows (OAuth clients) in memory, for calls that re-check the row where they commit
 * (`ClientService.authenticateThen`: the code exchange). `ClientService` reports every change it makes;
 * nothing else writes `oauth_clients`.
 *
 * Freshness across replicas (docs/oauth.md, "The client cache"): a change is dropped here and published to
 * the other replicas before the changing call returns; a replica whose subscription is down (or was:
 * anything may have been missed) drops everything and reads the database until it is in sync again. The
 * re-check at commit is what makes a use exact; this keeps re-checks from failing.
 */
export interface ClientCache {
  /** The live client `clientId`: from memory when held and fresh, else from `load` (kept for next time). */
  get(
    clientId: string,
    load: (clientId: string) => Promise<OAuthClient | undefined>,
  ): Promise<OAuthClient | undefined>;
  /**
   * After a committed change to the client (edit, secret rotation, deletion): drops it here at once and
   * resolves once every other replica has been told (the message handed to the broker).
   */
  changed(clientId: string): Promise<void>;
  /** Drops the row here only (it was found out of date): the change that made it so was published by its maker. */
  forget(clientId: string): Promise<void>;
  /** Whether the row is held right now (observability and tests). */
  holds(clientId: string): boolean;
}

/** What a cache hears from the other replicas. */
export interface InvalidationListener {
  /** Another replica changed `key`. */
  invalidate(key: string): void;
  /** Messages may have been missed (the subscription dropped): forget everything. */
  invalidateAll(): void;
}

/**
 * The replicas' invalidation messages, carried by the revocation bus (`RevocationRegistry`): Redis pub/sub
 * or PostgreSQL LISTEN/NOTIFY, nothing at all for a single embedded process.
 */
export interface InvalidationChannel {
  /** True while every message published by another replica is known to have been heard. */
  readonly inSync: boolean;
  listen(topic: string, listener: InvalidationListener): void;
  /** Tells the other replicas; resolves once the message is handed to the broker (at once with no bus). */
  publish(topic: string, key: string): Promise<void>;
}

export const CLIENT_TOPIC = 'client';

export interface LruClientCacheOptions {
  /** Most clients held; the least recently used goes first. */
  maxEntries?: number;
  /** A held row is read again after this long (ms) even if no message said it changed: belt and braces. */
  ttlMs?: number;
  now?: () => number;
}

interface Held {
  client: OAuthClient;
  until: number;
}

/**
 * `ClientCache` as a bounded LRU (a `Map` in recency order) with a short TTL, invalidated over an
 * `InvalidationChannel`. Unknown clients are never held, so an app registered anywhere (another replica,
 * the offline CLI) is found at once. A row read from the database is kept only if no invalidation of any
 * client arrived while it was being read (a generation counter), so a read that raced a change never
 * stores the old row.
 */
export class LruClientCache implements ClientCache {
  readonly #held = new Map<string, Held>();
  readonly #maxEntries: number;
  readonly #ttlMs: number;
  readonly #now: () => number;
  #generation = 0;

  constructor(
    private readonly channel: InvalidationChannel,
    options: LruClientCacheOptions = {},
  ) {
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#ttlMs = options.ttlMs ?? 30_000;
    this.#now = options.now ?? Date.now;
    channel.listen(CLIENT_TOPIC, {
      invalidate: (key) => this.#drop(key),
      invalidateAll: () => this.#dropAll(),
    });
  }

  get size(): number {
    return this.#held.size;
  }

  async get(
    clientId: string,
    load: (clientId: string) => Promise<OAuthClient | undefined>,
  ): Promise<OAuthClient | undefined> {
    // Out of sync, a message may have been missed: the database answers, and nothing is kept.
    if (!this.channel.inSync) {
      if (this.#held.size > 0) this.#dropAll();
      return load(clientId);
    }
    const now = this.#now();
    const held = this.#held.get(clientId);
    if (held !== undefined) {
      if (held.until > now) {
        // Most recently used last: the map's first key is the one to evict.
        this.#held.delete(clientId);
        this.#held.set(clientId, held);
        return held.client;
      }
      this.#held.delete(clientId);
    }
    const generation = this.#generation;
    const client = await load(clientId);
    if (client !== undefined && generation === this.#generation && this.channel.inSync) {
      this.#held.set(clientId, { client: freeze(client), until: now + this.#ttlMs });
      if (this.#held.size > this.#maxEntries) {
        const oldest = this.#held.keys().next().value;
        if (oldest !== undefined) this.#held.delete(oldest);
      }
    }
    return client;
  }

  async changed(clientId: string): Promise<void> {
    this.#drop(clientId);
    await this.channel.publish(CLIENT_TOPIC, clientId);
  }

  holds(clientId: string): boolean {
    return this.#held.has(clientId);
  }

  async forget(clientId: string): Promise<void> {
    this.#drop(clientId);
  }

  #drop(clientId: string): void {
    this.#generation++;
    this.#held.delete(clientId);
  }

  #dropAll(): void {
    this.#generation++;
    this.#held.clear();
  }
}

/** Held rows are shared by every caller: none may change one in place. */
function freeze(client: OAuthClient): OAuthClient {
  Object.freeze(client.redirectUris);
  Object.freeze(client.postLogoutRedirectUris);
  if (client.previousSecret) Object.freeze(client.previousSecret);
  return Object.freeze(client);
}
