import { describe, expect, it } from 'vitest';
import { LoginStatusStore } from '../../src/stores/loginStatusStore.js';
import { testDatabases } from '../helpers/databases.js';
import { seedClient, seedUser, useTestDatabase } from './storeFixtures.js';

describe.each(testDatabases)('login status store ($name)', (database) => {
  const db = useTestDatabase(database);

  it('stores login status per user and app, overwriting on update', async () => {
    await seedUser(db(), 80);
    await seedClient(db(), 'status-app', 80);
    const store = new LoginStatusStore(db());
    expect(await store.find(80, 'status-app')).toBeUndefined();
    await store.upsert({ userUuid: 80, clientId: 'status-app', status: 'logged_in', updatedAt: 1 });
    await store.upsert({ userUuid: 80, clientId: 'status-app', status: 'logged_out', updatedAt: 2 });
    expect(await store.find(80, 'status-app')).toEqual({
      userUuid: 80,
      clientId: 'status-app',
      status: 'logged_out',
      updatedAt: 2,
    });
    expect(await store.find(80, 'other')).toBeUndefined();
  });

  it('keeps one row per user and app when updates race', async () => {
    await seedUser(db(), 81);
    await seedClient(db(), 'race-app', 81);
    const store = new LoginStatusStore(db());
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        store.upsert({
          userUuid: 81,
          clientId: 'race-app',
          status: i % 2 ? 'logged_in' : 'logged_out',
          updatedAt: i,
        }),
      ),
    );
    const rows = await db()
      .selectFrom('oauth_login_status')
      .selectAll()
      .where('user_uuid', '=', 81)
      .execute();
    expect(rows).toHaveLength(1);
  });
});
