import { describe, expect, it } from 'vitest';
import { UserStore } from '../../src/stores/userStore.js';
import { testDatabases } from '../helpers/databases.js';
import { useTestDatabase } from './storeFixtures.js';

describe.each(testDatabases)('user store ($name)', (database) => {
  const db = useTestDatabase(database);
  const user = (userUuid: number, email: string) => ({
    userUuid,
    email,
    nickname: 'nick',
    createdAt: 1_700_000_000_000,
    passwordHash: `hash-${userUuid}`,
  });

  it('stores a user and finds it by id and by e-mail, with its fields intact', async () => {
    const store = new UserStore(db());
    expect(await store.insert(user(1001, 'ada@example.com'))).toBe(true);
    expect(await store.findById(1001)).toEqual(user(1001, 'ada@example.com'));
    expect(await store.findByEmail('ada@example.com')).toEqual(user(1001, 'ada@example.com'));
    expect(await store.emailTaken('ada@example.com')).toBe(true);
    expect(await store.emailTaken('nobody@example.com')).toBe(false);
    expect(await store.findById(9999)).toBeUndefined();
  });

  it('refuses a second user with the same e-mail or the same id, changing nothing', async () => {
    const store = new UserStore(db());
    expect(await store.insert(user(1002, 'bob@example.com'))).toBe(true);
    expect(await store.insert(user(1003, 'bob@example.com'))).toBe(false);
    expect(await store.insert(user(1002, 'other@example.com'))).toBe(false);
    expect(await store.findById(1003)).toBeUndefined();
    expect(await store.findByEmail('other@example.com')).toBeUndefined();
  });

  it('keeps the language an account signed up in, and a changed one; none is unknown', async () => {
    const store = new UserStore(db());
    expect(await store.insert({ ...user(1004, 'yuki@example.com'), locale: 'ja' })).toBe(true);
    expect(await store.findByEmail('yuki@example.com')).toEqual({
      ...user(1004, 'yuki@example.com'),
      locale: 'ja',
    });
    expect(await store.setLocale(1004, 'pt-BR')).toBe(true);
    expect((await store.findById(1004))?.locale).toBe('pt-BR');
    expect(await store.insert(user(1005, 'nolang@example.com'))).toBe(true);
    expect((await store.findById(1005))?.locale).toBeUndefined();
    expect(await store.setLocale(9999, 'ar')).toBe(false);
  });

  it('lets exactly one of many concurrent sign-ups with one e-mail through', async () => {
    const store = new UserStore(db());
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => store.insert(user(2000 + i, 'race@example.com'))),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });
});
