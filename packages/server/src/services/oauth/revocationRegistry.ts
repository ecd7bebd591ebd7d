import type { Logger } from 'pino';
import { databaseUnavailable } from '../../errors.js';
import type { RevocationBus } from '../../stores/oauthRevocationBus.js';
import type { OAuthRevocationStore, RevocationEntry } from '../../stores/oauthRevocationStore.js';
import type { RevocationList } from '../tokens/authenticator.js';
import type { TokenClaims } from '../tokens/tokenService.js';
import type { InvalidationChannel, InvalidationListener } from './clientCache.js';

export type { RevocationEntry } from '../../stores/oauthRevocationStore.js';

export interface RevocationRegistryOptions {
  /** Carries revocations to the other replicas; absent for a single process (embedded SQLite). */
  bus?: RevocationBus | undefined;
  logger?: Pick<Logger, 'warn' | 'info'> | undefined;
  now?: () => number;
  /** Safety-net full reload from the database while connected (ms). */
  resyncIntervalMs?: number;
  /** How long `start()` waits for the first subscription before serving in fallback mode (ms). */
  startWaitMs?: number;
}

/**
 * The process's authoritative answer to "is this token revoked?", in memory.
 *
 * - Loaded from the database at start; every local revocation updates memory synchronously
 *   (before any I/O), then the database, then the bus.
 * - Other replicas' revocations arrive over the bus (Redis pub/sub or PostgreSQL NOTIFY).
 * - Whenever the bus subscription is down, the registry is "out of sync": each check falls back
 *   to the database, so a missed message can never let a revoked token through. On reconnect it
 *   subscribes first, then reloads everything, and only then trusts memory again.
 *
 * Entries are kept only until every token they could match has expired, so the set stays small.
 */
export class RevocationRegistry implements RevocationList, InvalidationChannel {
  readonly #grants = new Map<string, number>();
  readonly #jtis = new Map<string, number>();
  readonly #bus: RevocationBus | undefined;
  readonly #now: () => number;
  #inSync = false;
  #epoch = 0;
  #timers: NodeJS.Timeout[] = [];
  /** Entries whose publication failed; sent again when the bus reconnects. */
  #unpublished: RevocationEntry[] = [];
  #onSync: (() => void)[] = [];
  /** Caches that follow the other replicas' changes over the same bus (`InvalidationChannel`). */
  readonly #listeners = new Map<string, InvalidationListener[]>();
  /** Invalidations whose publication failed; sent again when the bus reconnects. */
  #unpublishedInvalidations: { topic: string; key: string }[] = [];

  constructor(
    private readonly store: OAuthRevocationStore,
    private readonly options: RevocationRegistryOptions = {},
  ) {
    this.#bus = options.bus;
    this.#now = options.now ?? Date.now;
  }

  /** The bus to the other replicas, if any. */
  get bus(): RevocationBus | undefined {
    return this.#bus;
  }

  /** True while memory is known to hold every revocation (the fast path). */
  get inSync(): boolean {
    return this.#inSync;
  }

  get size(): number {
    return this.#grants.size + this.#jtis.size;
  }

  async start(): Promise<void> {
    const sweep = setInterval(() => this.#sweep(), 60_000);
    sweep.unref();
    this.#timers.push(sweep);
    if (!this.#bus) {
      await this.#reload();
      this.#inSync = true;
      return;
    }
    const firstSync = new Promise<void>((resolve) => this.#onSync.push(resolve));
    this.#bus.start({
      onEntry: (entry) => this.#apply(entry),
      onInvalidation: (topic, key) => {
        for (const listener of this.#listeners.get(topic) ?? []) listener.invalidate(key);
      },
      onConnected: () => void this.#resync(),
      onDisconnected: () => {
        if (this.#inSync) this.options.logger?.warn('revocation bus down: checking the database per request');
        this.#inSync = false;
        this.#epoch++;
        this.#invalidateAll();
      },
    });
    const resync = setInterval(() => {
      if (this.#inSync) void this.#reload().catch(() => undefined);
    }, this.options.resyncIntervalMs ?? 30_000);
    resync.unref();
    this.#timers.push(resync);
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([
      firstSync,
      new Promise<void>((resolve) => {
        timeout = setTimeout(resolve, this.options.startWaitMs ?? 3000);
      }),
    ]);
    clearTimeout(timeout);
  }

  isRevoked(claims: TokenClaims): boolean | Promise<boolean> {
    const now = this.#now();
    if (live(this.#jtis, claims.jti, now)) return true;
    if (claims.grantId !== undefined && live(this.#grants, claims.grantId, now)) return true;
    if (this.#inSync) return false;
    return this.#checkStore(claims, now);
  }

  /**
   * Revokes locally at once (this process refuses the token before this returns its promise),
   * then records it durably and tells the other replicas.
   */
  async revoke(entry: RevocationEntry): Promise<void> {
    this.#apply(entry);
    await this.store.insert(entry, this.#now());
    if (this.#bus) {
      try {
        await this.#bus.publish(entry);
      } catch (err) {
        this.#unpublished.push(entry);
        this.options.logger?.warn({ err: (err as Error).message }, 'revocation not published; will retry');
      }
    }
  }

  /** `InvalidationChannel`: `listener` hears the other replicas' invalidations of `topic`. */
  listen(topic: string, listener: InvalidationListener): void {
    const listeners = this.#listeners.get(topic) ?? [];
    listeners.push(listener);
    this.#listeners.set(topic, listeners);
  }

  /**
   * `InvalidationChannel`: tells the other replicas (nothing to do without a bus). A failed publication is
   * logged and sent again on reconnect; it does not fail the change that was already committed.
   */
  async publish(topic: string, key: string): Promise<void> {
    if (!this.#bus) return;
    try {
      await this.#bus.publishInvalidation(topic, key);
    } catch (err) {
      this.#unpublishedInvalidations.push({ topic, key });
      this.options.logger?.warn(
        { err: (err as Error).message, topic },
        'invalidation not published; will retry',
      );
    }
  }

  async close(): Promise<void> {
    for (const t of this.#timers) clearInterval(t);
    this.#timers = [];
    await this.#bus?.close();
  }

  /** Deletes expired rows from the database (any replica may do it; it is idempotent). */
  async purgeExpired(): Promise<void> {
    await this.store.purgeExpired(this.#now());
  }

  #apply(entry: RevocationEntry): void {
    const map = entry.kind === 'grant' ? this.#grants : this.#jtis;
    const known = map.get(entry.value);
    if (known === undefined || known < entry.expiresAt) map.set(entry.value, entry.expiresAt);
  }

  async #reload(): Promise<void> {
    for (const entry of await this.store.listActive(this.#now())) this.#apply(entry);
  }

  async #resync(): Promise<void> {
    const epoch = ++this.#epoch;
    try {
      const pending = this.#unpublished.splice(0);
      for (const entry of pending) await this.#bus?.publish(entry).catch(() => this.#unpublished.push(entry));
      const invalidations = this.#unpublishedInvalidations.splice(0);
      for (const { topic, key } of invalidations) {
        await this.#bus
          ?.publishInvalidation(topic, key)
          .catch(() => this.#unpublishedInvalidations.push({ topic, key }));
      }
      await this.#reload();
    } catch (err) {
      this.options.logger?.warn({ err: (err as Error).message }, 'revocation reload failed');
      return;
    }
    if (epoch !== this.#epoch) return; // the bus dropped again while we were loading
    // Anything cached before now may have missed a message while the subscription was down.
    this.#invalidateAll();
    this.#inSync = true;
    for (const resolve of this.#onSync.splice(0)) resolve();
  }

  async #checkStore(claims: TokenClaims, now: number): Promise<boolean> {
    const keys: { kind: 'grant' | 'jti'; value: string }[] = [{ kind: 'jti', value: claims.jti }];
    if (claims.grantId !== undefined) keys.push({ kind: 'grant', value: claims.grantId });
    try {
      return await this.store.anyActive(keys, now);
    } catch {
      // Fail closed: without the database we cannot tell, so we do not accept the token.
      throw databaseUnavailable('Token revocation cannot be checked right now');
    }
  }

  #invalidateAll(): void {
    for (const listeners of this.#listeners.values())
      for (const listener of listeners) listener.invalidateAll();
  }

  #sweep(): void {
    const now = this.#now();
    for (const map of [this.#grants, this.#jtis]) {
      for (const [key, expiresAt] of map) if (expiresAt <= now) map.delete(key);
    }
  }
}

function live(map: Map<string, number>, key: string, now: number): boolean {
  const expiresAt = map.get(key);
  return expiresAt !== undefined && expiresAt > now;
}
