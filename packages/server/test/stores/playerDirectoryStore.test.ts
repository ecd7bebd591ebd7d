import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { PlayerDirectoryStore } from '../../src/stores/playerDirectoryStore.js';
import { testDatabases } from '../helpers/databases.js';
import { seedClient, seedUser, useTestDatabase } from './storeFixtures.js';

async function grant(
  db: Db,
  clientId: string,
  userUuid: number,
  at: { createdAt: number; lastUsedAt?: number; scope?: string; revoked?: boolean },
) {
  await db
    .insertInto('oauth_grants')
    .values({
      grant_id: randomUUID(),
      client_id: clientId,
      user_uuid: userUuid,
      created_at: at.createdAt,
      revoked_at: at.revoked ? at.createdAt + 1 : null,
      revoked_reason: at.revoked ? 'test' : null,
      scope: at.scope ?? null,
      auth_time: null,
      amr: null,
      user_agent: null,
      network: null,
      last_used_at: at.lastUsedAt ?? null,
    })
    .execute();
}

describe.each(testDatabases)('players directory store ($name)', (database) => {
  const db = useTestDatabase(database);

  it('lists an app’s players with a live grant in uuid order, pages by uuid, and folds their grants', async () => {
    const store = new PlayerDirectoryStore(db());
    const owner = randomInt(1_000_000_000, 2 ** 47);
    await seedUser(db(), owner);
    const clientId = randomBytes(16).toString('hex');
    const otherApp = randomBytes(16).toString('hex');
    await seedClient(db(), clientId, owner);
    await seedClient(db(), otherApp, owner);
    const base = randomInt(1_000_000_000, 2 ** 46);
    const [a, b, c, d] = [base + 3, base + 1, base + 2, base + 4];
    for (const u of [a, b, c, d]) await seedUser(db(), u);
    await grant(db(), clientId, a, { createdAt: 100, lastUsedAt: 500 });
    await grant(db(), clientId, a, { createdAt: 50, scope: 'openid email' });
    await grant(db(), clientId, b, { createdAt: 200, scope: 'openid profile' });
    await grant(db(), clientId, c, { createdAt: 300, revoked: true });
    await grant(db(), otherApp, d, { createdAt: 400 });

    const all = await store.players(clientId, { limit: 10, afterUuid: base });
    expect(all).toEqual([
      { userUuid: b, createdAt: 200, lastSeenAt: 200, emailScope: false },
      { userUuid: a, createdAt: 50, lastSeenAt: 500, emailScope: true },
    ]);
    expect((await store.players(clientId, { limit: 1, afterUuid: base })).map((r) => r.userUuid)).toEqual([
      b,
    ]);
    expect((await store.players(clientId, { limit: 5, afterUuid: b })).map((r) => r.userUuid)).toEqual([a]);
    expect(await store.players(clientId, { limit: 1, userUuid: c })).toEqual([]);
    expect((await store.players(clientId, { limit: 1, userUuid: a }))[0]?.userUuid).toBe(a);
  });

  it('reads profiles (e-mail, guest, main wallet) and finds a player by e-mail and by wallet', async () => {
    const store = new PlayerDirectoryStore(db());
    const u = randomInt(1_000_000_000, 2 ** 47);
    const email = `p${u}@example.com`;
    await seedUser(db(), u, email);
    const address = `0x${randomBytes(20).toString('hex')}`;
    await db()
      .insertInto('wallets')
      .values({
        address,
        user_uuid: u,
        kind: 'main',
        salt: '0',
        initial_owner: address,
        owner: address,
        deployed: 0,
        created_at: 1,
      })
      .execute();
    const profiles = await store.profiles([u, 1]);
    expect([...profiles.values()]).toEqual([{ userUuid: u, email, guest: false, walletAddress: address }]);
    expect(await store.userByEmail(email)).toBe(u);
    expect(await store.userByWallet(address)).toBe(u);
    expect(await store.userByWallet(`0x${'0'.repeat(40)}`)).toBeUndefined();
    expect(await store.purchases('none', u, 10)).toEqual([]);
    expect(await store.consumption('none', u)).toEqual([]);
  });
});
