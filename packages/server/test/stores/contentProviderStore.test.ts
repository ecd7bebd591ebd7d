import { describe, expect, it } from 'vitest';
import { ContentProviderStore, type ProviderRecord } from '../../src/stores/contentProviderStore.js';
import { testDatabases } from '../helpers/databases.js';
import { useTestDatabase } from './storeFixtures.js';

const owner = '0x00000000000000000000000000000000000000aA' as const;

describe.each(testDatabases)('content provider store ($name)', (database) => {
  const db = useTestDatabase(database);
  const provider = (cuid: string, clientId: string, at = 1): ProviderRecord => ({
    cuid,
    clientId,
    releasePer: 10,
    ownerAddr: owner,
    state: 'registering',
    termsFrozen: false,
    txHash: undefined,
    createdAt: at,
    updatedAt: at,
  });

  it('lets one client claim a cuid; a concurrent claim by another loses', async () => {
    const store = new ContentProviderStore(db());
    const results = await Promise.all(['c1', 'c2', 'c3'].map((c) => store.claim(provider('race-cuid', c))));
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = (await store.findProvider('race-cuid'))!.clientId;
    const terms = { releasePer: 1, ownerAddr: owner, txHash: '0x1' };
    expect(await store.markRegistered('race-cuid', 'not-the-winner', terms, 2)).toBe(false);
    expect(await store.markRegistered('race-cuid', winner, terms, 2)).toBe(true);
    expect(await store.findProvider('race-cuid')).toMatchObject({
      state: 'registered',
      releasePer: 1,
      txHash: '0x1',
    });
    expect((await store.listProvidersByClient(winner)).map((p) => p.cuid)).toEqual(['race-cuid']);
  });

  it('hands a stale claim to exactly one taker, and releases only a claim that never reached the chain', async () => {
    const store = new ContentProviderStore(db());
    expect(await store.claim(provider('stale-cuid', 'crashed', 100))).toBe(true);
    const takers = await Promise.all([
      store.takeOverStaleClaim('stale-cuid', 100, 'taker-a', 200),
      store.takeOverStaleClaim('stale-cuid', 100, 'taker-b', 200),
    ]);
    expect(takers.filter(Boolean)).toHaveLength(1);
    const holder = (await store.findProvider('stale-cuid'))!;
    await store.releaseClaim('stale-cuid', holder.clientId, 100); // the old claim time: nothing happens
    expect(await store.findProvider('stale-cuid')).toBeDefined();
    await store.releaseClaim('stale-cuid', holder.clientId, holder.createdAt);
    expect(await store.findProvider('stale-cuid')).toBeUndefined();
  });

  it("stores a client's first key pair once, a GCM key once, and its payload mode", async () => {
    const store = new ContentProviderStore(db());
    const keys = (sealed: string) => ({
      clientId: 'keyed',
      ctrSecretSealed: sealed,
      gcmKeySealed: undefined,
      payloadMode: 'ctr' as const,
      consumeAuth: 'none' as const,
      createdAt: 10,
      updatedAt: 10,
    });
    const firsts = await Promise.all([store.insertClientKeys(keys('a')), store.insertClientKeys(keys('b'))]);
    expect(firsts.filter(Boolean)).toHaveLength(1);
    const gcm = await Promise.all([
      store.setGcmKeyIfAbsent('keyed', 'gcm-1', 20),
      store.setGcmKeyIfAbsent('keyed', 'gcm-2', 20),
    ]);
    expect(gcm.filter(Boolean)).toHaveLength(1);
    expect(await store.setPayloadMode('keyed', 'gcm', 30)).toBe(true);
    expect(await store.setPayloadMode('nobody', 'gcm', 30)).toBe(false);
    const stored = await store.findClientKeys('keyed');
    expect(stored).toMatchObject({ payloadMode: 'gcm', updatedAt: 30 });
    expect(['gcm-1', 'gcm-2']).toContain(stored?.gcmKeySealed);
    expect((await store.listClientKeys(25)).map((k) => k.clientId)).toEqual(['keyed']);
    expect(await store.listClientKeys(31)).toEqual([]);
  });
});
