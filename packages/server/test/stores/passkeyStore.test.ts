import { describe, expect, it } from 'vitest';
import { PasskeyStore } from '../../src/stores/passkeyStore.js';
import { testDatabases } from '../helpers/databases.js';
import { seedUser, useTestDatabase } from './storeFixtures.js';

describe.each(testDatabases)('passkey store ($name)', (database) => {
  const db = useTestDatabase(database);
  const passkey = (id: string, userUuid: number, createdAt = 7) => ({
    id,
    userUuid,
    publicKey: 'pk',
    signCount: 3,
    transports: ['internal', 'hybrid'],
    backedUp: true,
    createdAt,
    lastUsedAt: undefined,
  });

  it("stores passkeys, lists them per user in creation order, removes only the owner's", async () => {
    await seedUser(db(), 4001);
    await seedUser(db(), 4002);
    const store = new PasskeyStore(db());
    await store.insert(passkey('b', 4001, 9));
    await store.insert(passkey('a', 4001, 8));
    await store.insert(passkey('c', 4002));
    expect((await store.listForUser(4001)).map((p) => p.id)).toEqual(['a', 'b']);
    expect(await store.find('b')).toEqual(passkey('b', 4001, 9));
    expect(await store.remove(4002, 'a')).toBe(false);
    expect(await store.remove(4001, 'a')).toBe(true);
    expect(await store.find('a')).toBeUndefined();
  });

  it('records a use only over the expected counter: of two concurrent sign-ins one wins', async () => {
    await seedUser(db(), 4003);
    const store = new PasskeyStore(db());
    await store.insert(passkey('d', 4003));
    const results = await Promise.all([store.recordUse('d', 3, 4, 100), store.recordUse('d', 3, 4, 101)]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await store.find('d')).toMatchObject({ signCount: 4 });
    expect(await store.recordUse('d', 3, 5, 102)).toBe(false);
  });

  it('hands a challenge out once, to its purpose and user only; expired ones are swept', async () => {
    await seedUser(db(), 4004);
    const store = new PasskeyStore(db());
    await store.saveChallenge('ch-1', 'register', 4004, 1_000);
    expect(await store.takeChallenge('ch-1', 'login', undefined)).toBeUndefined();
    expect(await store.takeChallenge('ch-1', 'register', 4005)).toBeUndefined();
    const taken = await Promise.all([
      store.takeChallenge('ch-1', 'register', 4004),
      store.takeChallenge('ch-1', 'register', 4004),
    ]);
    expect(taken.filter(Boolean)).toEqual([{ expiresAt: 1_000 }]);
    await store.saveChallenge('ch-2', 'login', undefined, 500);
    await store.deleteExpiredChallenges(600);
    expect(await store.takeChallenge('ch-2', 'login', undefined)).toBeUndefined();
  });
});
