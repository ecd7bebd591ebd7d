import { describe, expect, it } from 'vitest';
import { BackendCodeStore } from '../../src/stores/backendCodeStore.js';
import { testDatabases } from '../helpers/databases.js';
import { seedClient, seedSlot, seedUser, useTestDatabase } from './storeFixtures.js';

describe.each(testDatabases)('backend code store ($name)', (database) => {
  const db = useTestDatabase(database);
  const now = 1_700_000_000_000;

  async function code(codeHash: string, userUuid: number, expiresAt = now + 60_000) {
    await seedUser(db(), userUuid);
    const slot = await seedSlot(db(), userUuid, 'app-b');
    const store = new BackendCodeStore(db());
    await store.insert({
      codeHash,
      clientId: 'app-b',
      userUuid,
      slotId: slot.id,
      redirectUri: 'http://127.0.0.1/cb',
      createdAt: now,
      expiresAt,
    });
    return { store, slot };
  }

  it('lets exactly one of many concurrent exchanges consume a code', async () => {
    const { store } = await code('c'.repeat(64), 40);
    const consumed = await Promise.all(
      Array.from({ length: 8 }, () => store.consume('c'.repeat(64), now + 1)),
    );
    expect(consumed.filter(Boolean)).toHaveLength(1);
    expect((await store.find('c'.repeat(64)))?.usedAt).toBe(now + 1);
  });

  it('invalidates an unused code for good, and deletes only expired codes', async () => {
    const { store } = await code('i'.repeat(64), 42);
    expect(await store.invalidate('i'.repeat(64), now + 1)).toBe(true);
    expect(await store.invalidate('i'.repeat(64), now + 2)).toBe(false);
    expect(await store.consume('i'.repeat(64), now + 3)).toBe(false);
    await code('e'.repeat(64), 43, now - 1);
    expect(await store.deleteExpired(now)).toBe(1);
    expect(await store.find('e'.repeat(64))).toBeUndefined();
    expect(await store.find('i'.repeat(64))).toBeDefined();
  });

  it('writes a code against a cached app row only while the stored app is live with the same redirect URIs', async () => {
    await seedUser(db(), 44);
    await seedClient(db(), 'app-held', 44, {
      redirectUris: ['https://app.example/cb', 'https://app.example/b'],
    });
    const slot = await seedSlot(db(), 44, 'app-held');
    const store = new BackendCodeStore(db());
    const insert = (codeHash: string, held: string[]) =>
      store.insert(
        {
          codeHash,
          clientId: 'app-held',
          userUuid: 44,
          slotId: slot.id,
          redirectUri: 'https://app.example/cb',
          createdAt: now,
          expiresAt: now + 60_000,
        },
        held,
      );
    expect(await insert('1'.repeat(64), ['https://app.example/cb', 'https://app.example/b'])).toBe(true);
    expect(await store.find('1'.repeat(64))).toMatchObject({
      userUuid: 44,
      slotId: slot.id,
      expiresAt: now + 60_000,
    });
    // A cached row older than the stored one (a URI removed elsewhere), or a deleted app: nothing written.
    expect(await insert('2'.repeat(64), ['https://app.example/cb'])).toBe(false);
    await db()
      .updateTable('oauth_clients')
      .set({ deleted_at: now })
      .where('client_id', '=', 'app-held')
      .execute();
    expect(await insert('3'.repeat(64), ['https://app.example/cb', 'https://app.example/b'])).toBe(false);
    expect(await store.find('2'.repeat(64))).toBeUndefined();
    expect(await store.find('3'.repeat(64))).toBeUndefined();
  });

  it('commits the inserts of one turn together; a failing one holds back no other, and none lands in an open transaction', async () => {
    await seedUser(db(), 45);
    await seedClient(db(), 'app-turn', 45, { redirectUris: ['https://turn.example/cb'] });
    const slot = await seedSlot(db(), 45, 'app-turn');
    const store = new BackendCodeStore(db());
    const insert = (codeHash: string, held?: string[]) =>
      store.insert(
        {
          codeHash,
          clientId: 'app-turn',
          userUuid: 45,
          slotId: slot.id,
          redirectUri: 'https://turn.example/cb',
          createdAt: now,
          expiresAt: now + 60_000,
        },
        held,
      );
    const before = store.insertBatches();
    // Three in one turn, one of them refused by its stale held row: one commit.
    expect(
      await Promise.all([
        insert('a1'.repeat(32)),
        insert('a2'.repeat(32), ['https://turn.example/old']),
        insert('a3'.repeat(32), ['https://turn.example/cb']),
      ]),
    ).toEqual([true, false, true]);
    expect(store.insertBatches()).toEqual({ batches: before.batches + 1, inserts: before.inserts + 3 });
    // A code hash that exists fails its batch: each is retried alone, and only that one fails.
    const [dup, fresh] = await Promise.allSettled([insert('a1'.repeat(32)), insert('a4'.repeat(32))]);
    expect(dup.status).toBe('rejected');
    expect(fresh).toEqual({ status: 'fulfilled', value: true });
    expect(await store.find('a2'.repeat(32))).toBeUndefined();
    for (const hash of ['a1', 'a3', 'a4']) expect(await store.find(hash.repeat(32))).toBeDefined();

    // An insert submitted while a Kysely transaction holds SQLite's connection waits for it, and a
    // rollback of that transaction does not take the code with it.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const inTransaction = new Promise<void>((resolve) => (started = resolve));
    const transaction = db()
      .transaction()
      .execute(async (trx) => {
        await trx.selectFrom('backend_codes').select('code_hash').limit(1).execute();
        started();
        await held;
        throw new Error('roll back');
      });
    await inTransaction;
    const waiting = insert('a5'.repeat(32));
    // The turn flushes (setImmediate) while the transaction still holds the connection.
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await expect(transaction).rejects.toThrow('roll back');
    expect(await waiting).toBe(true);
    expect(await store.find('a5'.repeat(32))).toMatchObject({ slotId: slot.id });
  });
});
