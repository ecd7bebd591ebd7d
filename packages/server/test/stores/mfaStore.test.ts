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

  /** A waiting sign-in of `userUuid` under token hash `hash`. */
  async function waiting(store: MfaStore, userUuid: number, hash: string): Promise<string> {
    const now = Date.now();
    await store.savePendingSignIn(
      hash,
      { userUuid, clientId: undefined, authTime: 1, amr: ['pwd'] },
      now + 300_000,
      now,
    );
    return hash;
  }

  it('accepts each step once and never an earlier one, one winner among concurrent acceptances', async () => {
    const store = new MfaStore(db());
    const userUuid = await confirmedUser(store, 100);
    const token = await waiting(store, userUuid, 's'.repeat(64));
    expect(await store.acceptStep(userUuid, 100, token)).toBe('refused');
    expect(await store.acceptStep(userUuid, 99, token)).toBe('refused');
    // Refused codes write nothing: the sign-in still waits.
    expect(await store.attemptSignIn(token, 5, Date.now())).toMatchObject({ userUuid, attempts: 1 });
    const tokens = await Promise.all(
      Array.from({ length: 8 }, (_, i) => waiting(store, userUuid, `s${i}`.padEnd(64, 's'))),
    );
    const uses = await Promise.all(tokens.map((t) => store.acceptStep(userUuid, 101, t)));
    expect(uses.filter((u) => u === 'accepted')).toHaveLength(1);
    expect(uses.filter((u) => u === 'refused')).toHaveLength(7);
    // The winner's sign-in ended with the step, in the same commit; the others still wait.
    const winner = tokens[uses.indexOf('accepted')]!;
    expect(await store.attemptSignIn(winner, 5, Date.now())).toBeUndefined();
    expect(await store.attemptSignIn(tokens[uses.indexOf('refused')]!, 5, Date.now())).toBeDefined();
    expect(await store.findTotp(userUuid)).toMatchObject({ lastStep: 101 });
    expect(await store.acceptStep(userUuid, 102, token)).toBe('accepted');
    // Without a sign-in to end (TOTP removal proved by a code): the step alone.
    expect(await store.acceptStep(userUuid, 103)).toBe('accepted');
    expect(await store.acceptStep(userUuid, 103)).toBe('refused');
  });

  it('uses a recovery code once, one winner among concurrent uses, each ending its own sign-in', async () => {
    const store = new MfaStore(db());
    const userUuid = await confirmedUser(store);
    const [code] = await store.unusedRecoveryCodes(userUuid);
    const tokens = await Promise.all(
      Array.from({ length: 6 }, (_, i) => waiting(store, userUuid, `c${i}`.padEnd(64, 'c'))),
    );
    const uses = await Promise.all(tokens.map((t) => store.useRecoveryCode(userUuid, code!, 5, t)));
    expect(uses.filter((u) => u === 'accepted')).toHaveLength(1);
    expect(uses.filter((u) => u === 'refused')).toHaveLength(5);
    expect(await store.unusedRecoveryCodes(userUuid)).toHaveLength(9);
    expect(await store.useRecoveryCode(userUuid, 'unknown'.padEnd(64, '0'), 5, tokens[1]!)).toBe('refused');
  });

  it('uses up a code whose sign-in another request ended first, and says so', async () => {
    const store = new MfaStore(db());
    const userUuid = await confirmedUser(store, 100);
    const token = await waiting(store, userUuid, 'x'.repeat(64));
    const [first, second] = await store.unusedRecoveryCodes(userUuid);
    expect(await store.useRecoveryCode(userUuid, first!, 5, token)).toBe('accepted');
    // Two codes on one mfa_token (a TOTP code and a recovery code in flight together): the later one is
    // used up but the sign-in is gone.
    expect(await store.useRecoveryCode(userUuid, second!, 6, token)).toBe('ended_elsewhere');
    expect(await store.acceptStep(userUuid, 101, token)).toBe('ended_elsewhere');
    expect(await store.unusedRecoveryCodes(userUuid)).toHaveLength(8);
    expect(await store.findTotp(userUuid)).toMatchObject({ lastStep: 101 });
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
