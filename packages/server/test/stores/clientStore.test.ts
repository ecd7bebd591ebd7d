import { describe, expect, it } from 'vitest';
import { ClientStore } from '../../src/stores/clientStore.js';
import { testDatabases } from '../helpers/databases.js';
import { seedClient, seedUser, useTestDatabase } from './storeFixtures.js';

describe.each(testDatabases)('client store ($name)', (database) => {
  const db = useTestDatabase(database);

  it('round-trips an app: redirect URIs in order, dapp flag, owner', async () => {
    await seedUser(db(), 10);
    const stored = await seedClient(db(), 'app-one', 10, {
      redirectUris: ['https://b.example/cb', 'https://a.example/cb?x=1'],
      dapp: true,
      createdAt: 5,
    });
    expect(await new ClientStore(db()).findById('app-one')).toEqual(stored);
    expect(await new ClientStore(db()).findById('missing')).toBeUndefined();
  });

  it("lists only the owner's apps, oldest first", async () => {
    await seedUser(db(), 11);
    await seedUser(db(), 12);
    await seedClient(db(), 'later', 11, { createdAt: 30 });
    await seedClient(db(), 'earlier', 11, { createdAt: 20 });
    await seedClient(db(), 'someone-else', 12, { createdAt: 10 });
    const listed = await new ClientStore(db()).listByOwner(11);
    expect(listed.map((c) => c.clientId)).toEqual(['earlier', 'later']);
  });

  it('refuses a second app with the same client id', async () => {
    await seedUser(db(), 13);
    await seedClient(db(), 'taken', 13);
    await expect(seedClient(db(), 'taken', 13, { name: 'again' })).rejects.toThrow();
    expect((await new ClientStore(db()).findById('taken'))?.name).toBe('app taken');
  });
});
