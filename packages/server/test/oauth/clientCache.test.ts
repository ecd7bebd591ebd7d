import { describe, expect, it } from 'vitest';
import {
  CLIENT_TOPIC,
  type InvalidationChannel,
  type InvalidationListener,
  LruClientCache,
} from '../../src/services/oauth/clientCache.js';
import type { OAuthClient } from '../../src/stores/clientStore.js';

/** An in-memory channel: the test plays the other replicas and the bus's connection. */
class FakeChannel implements InvalidationChannel {
  inSync = true;
  readonly published: string[] = [];
  listener: InvalidationListener | undefined;
  listen(topic: string, listener: InvalidationListener): void {
    expect(topic).toBe(CLIENT_TOPIC);
    this.listener = listener;
  }
  async publish(_topic: string, key: string): Promise<void> {
    this.published.push(key);
  }
}

const row = (clientId: string, secretHash = 'aa'): OAuthClient => ({
  clientId,
  ownerUuid: 1,
  name: 'App',
  redirectUris: ['https://app.example/cb'],
  dapp: false,
  secretHash,
  createdAt: 0,
  postLogoutRedirectUris: [],
});

/** A loader over a mutable "database" that counts its reads. */
function database(rows: Record<string, OAuthClient>) {
  const counter = { reads: 0 };
  const load = async (id: string) => {
    counter.reads++;
    return rows[id] === undefined ? undefined : { ...rows[id]! };
  };
  return { counter, load };
}

describe('LruClientCache', () => {
  it('reads a client once, then answers from memory with a frozen row', async () => {
    const cache = new LruClientCache(new FakeChannel());
    const { counter, load } = database({ a: row('a') });
    const first = await cache.get('a', load);
    const second = await cache.get('a', load);
    expect(counter.reads).toBe(1);
    expect(second).toBe(first);
    expect(Object.isFrozen(second)).toBe(true);
    expect(Object.isFrozen(second!.redirectUris)).toBe(true);
  });

  it('never holds an unknown client, so an app registered elsewhere is found at once', async () => {
    const cache = new LruClientCache(new FakeChannel());
    const rows: Record<string, OAuthClient> = {};
    const { load } = database(rows);
    expect(await cache.get('new', load)).toBeUndefined();
    rows.new = row('new');
    expect((await cache.get('new', load))?.clientId).toBe('new');
  });

  it('drops a client on a local change and publishes it, and on a message from another replica', async () => {
    const channel = new FakeChannel();
    const cache = new LruClientCache(channel);
    const rows = { a: row('a', 'old'), b: row('b') };
    const { counter, load } = database(rows);
    await cache.get('a', load);
    await cache.get('b', load);
    rows.a = row('a', 'new');
    await cache.changed('a');
    expect(channel.published).toEqual(['a']);
    expect((await cache.get('a', load))?.secretHash).toBe('new');
    rows.b = row('b', 'rotated elsewhere');
    channel.listener!.invalidate('b');
    expect((await cache.get('b', load))?.secretHash).toBe('rotated elsewhere');
    expect(counter.reads).toBe(4);
  });

  it('does not keep a row read while an invalidation arrived (the read may predate the change)', async () => {
    const channel = new FakeChannel();
    const cache = new LruClientCache(channel);
    let release: () => void = () => undefined;
    const slowStaleRead = (id: string) =>
      new Promise<OAuthClient>((resolve) => {
        release = () => resolve(row(id, 'stale'));
      });
    const pending = cache.get('a', slowStaleRead);
    channel.listener!.invalidate('a');
    release();
    expect((await pending)?.secretHash).toBe('stale');
    const { counter, load } = database({ a: row('a', 'fresh') });
    expect((await cache.get('a', load))?.secretHash).toBe('fresh');
    expect(counter.reads).toBe(1);
  });

  it('out of sync (bus down), reads the database every time and forgets everything it held', async () => {
    const channel = new FakeChannel();
    const cache = new LruClientCache(channel);
    const { counter, load } = database({ a: row('a') });
    await cache.get('a', load);
    channel.inSync = false;
    channel.listener!.invalidateAll();
    expect(cache.size).toBe(0);
    await cache.get('a', load);
    await cache.get('a', load);
    expect(counter.reads).toBe(3);
    expect(cache.size).toBe(0);
    channel.inSync = true;
    await cache.get('a', load);
    await cache.get('a', load);
    expect(counter.reads).toBe(4);
  });

  it('reads a row again after its TTL', async () => {
    let now = 1_000;
    const cache = new LruClientCache(new FakeChannel(), { ttlMs: 100, now: () => now });
    const { counter, load } = database({ a: row('a') });
    await cache.get('a', load);
    now += 99;
    await cache.get('a', load);
    expect(counter.reads).toBe(1);
    now += 1;
    await cache.get('a', load);
    expect(counter.reads).toBe(2);
  });

  it('holds at most maxEntries clients, evicting the least recently used', async () => {
    const cache = new LruClientCache(new FakeChannel(), { maxEntries: 2 });
    const { counter, load } = database({ a: row('a'), b: row('b'), c: row('c') });
    await cache.get('a', load);
    await cache.get('b', load);
    await cache.get('a', load); // a is now the most recent
    await cache.get('c', load); // evicts b
    expect(cache.size).toBe(2);
    expect(counter.reads).toBe(3);
    await cache.get('a', load);
    expect(counter.reads).toBe(3);
    await cache.get('b', load);
    expect(counter.reads).toBe(4);
  });
});
