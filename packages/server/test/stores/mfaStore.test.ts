import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MfaStore } from '../../src/stores/mfaStore.js';
import { testDatabases } from '../helpers/databases.js';
import { seedUser, useTestDatabase } from './storeFixtures.js';

const hashes = (prefix: string) => Array.from({ length: 10 }, (_, i) => `${prefix}${i}`.padEnd(64, '0'));

describe.each(testDatabases)('MFA store ($name)', (database) => {
  const db = useTestDatabase(database);

  async function confirmedUser(store: MfaStore, step = 100): Promise<number> {
    const userUuid = randomInt(1_000_000_000, 2 ** 47);
    await seedUser(db(), userUuid);
    expect(await store.savePending(userUuid, 'v1.sealed', 1)).toBe(true);
    expect(await store.confirm(userUuid, 'v1.sealed', step, hashes('a'), 2)).toBe(true);
    return userUuid;
  }

  it('replaces a pending secret, confirms only the secret it was given, and never replaces a confirmed one', async () => {
    const store = new MfaStore(db());
    const userUuid = randomInt(1_000_000_000, 2 ** 47);
    await seedUser(db(), userUuid);
    expect(await store.savePending(userUuid, 'v1.first', 1)).toBe(true);
    expect(await store.savePending(userUuid, 'v1.second', 2)).toBe(true);
    expect(await store.confirm(userUuid, 'v1.first', 10, hashes('x'), 3)).toBe(false);
    expect(await store.confirm(userUuid, 'v1.second', 10, hashes('x'), 3)).toBe(true);
    expect(await store.savePending(userUuid, 'v1.third', 4)).toBe(false);
    expect(await store.findTotp(userUuid)).toEqual({
      userUuid,
      secretSealed: 'v1.second',
      confirmed: true,
      lastStep: 10,
      createdAt: 2,
    });
    expect(await store.unusedRecoveryCodes(userUuid)).toHaveLength(10);
  });

  it('accepts each step once and never an earlier one, one winner among concurrent acceptances', async () => {
    const store = new MfaStore(db());
    const userUuid = await confirmedUser(store, 100);
    expect(await store.acceptStep(userUuid, 100)).toBe(false);
    expect(await store.acceptStep(userUuid, 99)).toBe(false);
    const won = await Promise.all(Array.from({ length: 8 }, () => store.acceptStep(userUuid, 101)));
    expect(won.filter(Boolean)).toHaveLength(1);
    expect(await store.acceptStep(userUuid, 102)).toBe(true);
  });

  it('uses a recovery code once, one winner among concurrent uses', async () => {
    const store = new MfaStore(db());
    const userUuid = await confirmedUser(store);
    const [code] = await store.unusedRecoveryCodes(userUuid);
    const won = await Promise.all(Array.from({ length: 6 }, () => store.useRecoveryCode(userUuid, code!, 5)));
    expect(won.filter(Boolean)).toHaveLength(1);
    expect(await store.unusedRecoveryCodes(userUuid)).toHaveLength(9);
  });

  it('counts attempts on an mfa_token before the check, bounded even when concurrent, and ends it once', async () => {
    const store = new MfaStore(db());
    const userUuid = await confirmedUser(store);
    const now = Date.now();
    const signIn = { userUuid, clientId: 'dauth:console', authTime: 1_700_000_000, amr: ['pwd'] };
    await store.savePendingSignIn('h'.repeat(64), signIn, now + 300_000, now);
    const attempts = await Promise.all(
      Array.from({ length: 9 }, () => store.attemptSignIn('h'.repeat(64), 5, now)),
    );
    const counted = attempts.filter((a) => a !== undefined);
    expect(counted).toHaveLength(5);
    // Each caller sees its own attempt number, 1 to 5, whatever the interleaving.
    expect(counted.map((a) => a.attempts).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(counted[0]).toEqual({ ...signIn, attempts: expect.any(Number) });
    expect(await store.finishSignIn('h'.repeat(64))).toBe(true);
    expect(await store.finishSignIn('h'.repeat(64))).toBe(false);

    await store.savePendingSignIn('e'.repeat(64), signIn, now + 10, now);
    expect(await store.attemptSignIn('e'.repeat(64), 5, now + 10)).toBeUndefined();
  });

  it('removes TOTP, the recovery codes and the waiting sign-ins together', async () => {
    const store = new MfaStore(db());
    const userUuid = await confirmedUser(store);
    const now = Date.now();
    await store.savePendingSignIn(
      'r'.repeat(64),
      { userUuid, clientId: undefined, authTime: 1, amr: ['fed'] },
      now + 300_000,
      now,
    );
    await store.removeTotp(userUuid);
    expect(await store.findTotp(userUuid)).toBeUndefined();
    expect(await store.unusedRecoveryCodes(userUuid)).toEqual([]);
    expect(await store.attemptSignIn('r'.repeat(64), 5, now)).toBeUndefined();
  });
});
