import { describe, expect, it } from 'vitest';
import { VerificationStore } from '../../src/stores/verificationStore.js';
import { testDatabases } from '../helpers/databases.js';
import { seedUser, useTestDatabase } from './storeFixtures.js';

const MINUTE = 60_000;

describe.each(testDatabases)('verification store ($name)', (database) => {
  const db = useTestDatabase(database);
  const code = (id: string, userUuid: number, createdAt: number) => ({
    id,
    userUuid,
    purpose: 'pin_recover',
    codeHash: `hash-${id}`,
    sessionId: 'session-1',
    expiresAt: createdAt + 10 * MINUTE,
    createdAt,
  });

  it('keeps one live code per user and purpose: a new code retires the earlier one', async () => {
    await seedUser(db(), 30);
    const store = new VerificationStore(db());
    const now = 1_000_000;
    await store.insertCode(code('first', 30, now));
    await store.insertCode(code('second', 30, now + 1));
    expect((await store.liveCode(30, 'pin_recover', 'session-1', now + 2))?.id).toBe('second');
    expect(await store.codesSentSince(30, 'pin_recover', now - 1)).toEqual([now + 1, now]);
    expect(await store.liveCode(30, 'other_purpose', 'session-1', now + 2)).toBeUndefined();
    expect(await store.liveCode(30, 'pin_recover', 'session-1', now + 11 * MINUTE)).toBeUndefined();
  });

  it('counts guesses with a conditional UPDATE: of 20 concurrent guesses exactly 5 are allowed', async () => {
    await seedUser(db(), 31);
    const store = new VerificationStore(db());
    const now = 2_000_000;
    await store.insertCode(code('guessed', 31, now));
    const allowed = await Promise.all(
      Array.from({ length: 20 }, () => store.reserveCodeAttempt('guessed', 5, now + 1)),
    );
    expect(allowed.filter(Boolean)).toHaveLength(5);
    expect((await store.liveCode(31, 'pin_recover', 'session-1', now + 1))?.attempts).toBe(5);
  });

  it('uses a code once even when two requests race, and refuses an expired code any guess', async () => {
    await seedUser(db(), 32);
    const store = new VerificationStore(db());
    const now = 3_000_000;
    await store.insertCode(code('raced', 32, now));
    const used = await Promise.all([
      store.consumeCode('raced', now + 1),
      store.consumeCode('raced', now + 1),
    ]);
    expect(used.filter(Boolean)).toHaveLength(1);
    expect(await store.reserveCodeAttempt('raced', 5, now + 2)).toBe(false);
    await store.insertCode(code('stale', 32, now));
    expect(await store.reserveCodeAttempt('stale', 5, now + 10 * MINUTE)).toBe(false);
  });

  it('lets a verification token be used once, only by its user, for its purpose, before it expires', async () => {
    await seedUser(db(), 33);
    await seedUser(db(), 34);
    const store = new VerificationStore(db());
    const now = 4_000_000;
    await store.insertToken({
      tokenHash: 't1',
      userUuid: 33,
      purpose: 'pin_recover',
      expiresAt: now + MINUTE,
      createdAt: now,
    });
    expect(await store.tokenUsable('t1', 34, 'pin_recover', now)).toBe(false);
    expect(await store.tokenUsable('t1', 33, 'other', now)).toBe(false);
    expect(await store.tokenUsable('t1', 33, 'pin_recover', now + MINUTE)).toBe(false);
    expect(await store.tokenUsable('t1', 33, 'pin_recover', now)).toBe(true);
    // A mailed link's page asks without knowing the user, and changes nothing by asking.
    expect(await store.tokenOfPurposeUsable('t1', 'other', now)).toBe(false);
    expect(await store.tokenOfPurposeUsable('t1', 'pin_recover', now + MINUTE)).toBe(false);
    expect(await store.tokenOfPurposeUsable('t1', 'pin_recover', now)).toBe(true);
    expect(await store.tokenOfPurposeUsable('t1', 'pin_recover', now)).toBe(true);
    const racers = await Promise.all(
      Array.from({ length: 5 }, () => store.consumeToken('t1', 33, 'pin_recover', now + 1)),
    );
    expect(racers.filter(Boolean)).toHaveLength(1);
    expect(await store.tokenUsable('t1', 33, 'pin_recover', now + 2)).toBe(false);
    expect(await store.tokenOfPurposeUsable('t1', 'pin_recover', now + 2)).toBe(false);
  });

  it('deletes only what expired before the cut-off', async () => {
    await seedUser(db(), 35);
    const store = new VerificationStore(db());
    const now = 5_000_000;
    await store.insertCode(code('old', 35, now - 20 * MINUTE));
    await store.insertToken({
      tokenHash: 'old-t',
      userUuid: 35,
      purpose: 'pin_recover',
      expiresAt: now - 1,
      createdAt: 0,
    });
    await store.insertToken({
      tokenHash: 'new-t',
      userUuid: 35,
      purpose: 'pin_recover',
      expiresAt: now + MINUTE,
      createdAt: 0,
    });
    await store.deleteExpired(now);
    expect(await store.codesSentSince(35, 'pin_recover', 0)).toEqual([]);
    expect(await store.tokenUsable('new-t', 35, 'pin_recover', now)).toBe(true);
    const tokens = await db()
      .selectFrom('verification_tokens')
      .select('token_hash')
      .where('user_uuid', '=', 35)
      .execute();
    expect(tokens.map((t) => t.token_hash)).toEqual(['new-t']);
  });
});
