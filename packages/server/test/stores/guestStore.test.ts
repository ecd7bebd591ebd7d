import { describe, expect, it } from 'vitest';
import { GuestStore } from '../../src/stores/guestStore.js';
import { PasskeyStore } from '../../src/stores/passkeyStore.js';
import { UserStore } from '../../src/stores/userStore.js';
import { testDatabases } from '../helpers/databases.js';
import { seedUser, useTestDatabase } from './storeFixtures.js';

describe.each(testDatabases)('guest store ($name)', (database) => {
  const db = useTestDatabase(database);
  const guest = (userUuid: number) => ({
    userUuid,
    secretHash: 'ab'.repeat(32),
    clientId: 'app-1',
    createdAt: 5,
  });
  const passkey = (id: string, userUuid: number) => ({
    id,
    userUuid,
    publicKey: 'pk',
    signCount: 0,
    transports: ['internal'],
    backedUp: false,
    createdAt: 7,
    lastUsedAt: undefined,
  });

  it('creates a guest as a user without e-mail or password, several of them side by side', async () => {
    const store = new GuestStore(db());
    expect(await store.create(guest(3001), 'guest')).toBe(true);
    expect(await store.create(guest(3002), 'guest')).toBe(true);
    expect(await store.create(guest(3001), 'guest')).toBe(false);
    expect(await store.find(3001)).toEqual(guest(3001));
    const user = await new UserStore(db()).findById(3001);
    expect(user).toMatchObject({ email: null, passwordHash: '', nickname: 'guest' });
  });

  it('upgrades once by password: e-mail set, guest row gone; a second upgrade finds no guest', async () => {
    const store = new GuestStore(db());
    await store.create(guest(3003), 'guest');
    const change = {
      kind: 'password' as const,
      email: 'g3003@example.com',
      passwordHash: 'h',
      nickname: 'Gee',
    };
    expect(await store.upgrade(3003, change)).toBe('upgraded');
    expect(await store.find(3003)).toBeUndefined();
    expect(await new UserStore(db()).findByEmail('g3003@example.com')).toMatchObject({
      userUuid: 3003,
      nickname: 'Gee',
    });
    expect(await store.upgrade(3003, change)).toBe('not_guest');
  });

  it('answers email_taken and changes nothing when the e-mail belongs to another account', async () => {
    const store = new GuestStore(db());
    await seedUser(db(), 3100, 'owner@example.com');
    await store.create(guest(3004), 'guest');
    const outcome = await store.upgrade(3004, {
      kind: 'password',
      email: 'owner@example.com',
      passwordHash: 'h',
      nickname: 'x',
    });
    expect(outcome).toBe('email_taken');
    expect(await store.find(3004)).toEqual(guest(3004));
    expect(await new UserStore(db()).findById(3004)).toMatchObject({ email: null });
  });

  it('upgrades by passkey in one transaction: the passkey stored, the guest row gone', async () => {
    const store = new GuestStore(db());
    await store.create(guest(3005), 'guest');
    expect(await store.upgrade(3005, { kind: 'passkey', passkey: passkey('cred-3005', 3005) })).toBe(
      'upgraded',
    );
    expect(await store.find(3005)).toBeUndefined();
    expect(await new PasskeyStore(db()).find('cred-3005')).toEqual(passkey('cred-3005', 3005));
  });
});
