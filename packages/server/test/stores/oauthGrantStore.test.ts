import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { BackendCodeStore } from '../../src/stores/backendCodeStore.js';
import { ClientStore } from '../../src/stores/clientStore.js';
import {
  type CodeRecord,
  OAuthGrantStore,
  type RefreshTokenRecord,
} from '../../src/stores/oauthGrantStore.js';
import { UserStore } from '../../src/stores/userStore.js';
import { testDatabases } from '../helpers/databases.js';

const DAY = 24 * 3600_000;

describe.each(testDatabases)('OAuth grant store ($name)', (database) => {
  let db: Db;
  let dispose: () => Promise<void>;
  const userUuid = 4242;
  const clientId = 'store-test-client';

  beforeAll(async () => {
    const opened = await database.open();
    db = opened.handle.db;
    dispose = opened.dispose;
    await new UserStore(db).insert({
      userUuid,
      email: 'stores@example.com',
      nickname: 's',
      createdAt: 1,
      passwordHash: 'x',
    });
    await new ClientStore(db).insert({
      clientId,
      ownerUuid: userUuid,
      name: 'n',
      redirectUris: ['https://a.example/cb'],
      dapp: false,
      secretHash: 'h',
      createdAt: 1,
      postLogoutRedirectUris: [],
    });
  });
  afterAll(() => dispose?.());

  const grant = (grantId: string, createdAt: number) => ({
    grantId,
    clientId,
    userUuid,
    createdAt,
    revokedAt: null,
    revokedReason: null,
  });
  const code = (grantId: string, expiresAt: number): CodeRecord => ({
    codeHash: randomUUID(),
    grantId,
    clientId,
    userUuid,
    redirectUri: 'https://a.example/cb',
    codeChallenge: null,
    codeChallengeMethod: null,
    createdAt: expiresAt - 600_000,
    expiresAt,
    usedAt: null,
  });
  const refresh = (grantId: string, expiresAt: number): RefreshTokenRecord => ({
    tokenHash: randomUUID(),
    grantId,
    clientId,
    userUuid,
    createdAt: 1,
    expiresAt,
    usedAt: null,
    successorHash: null,
    successorSealed: null,
  });

  it('redeems a code exactly once and only with every binding right, with its first refresh token', async () => {
    const store = new OAuthGrantStore(db);
    const now = Date.now();
    const g = randomUUID();
    const c = { ...code(g, now + 600_000), codeChallenge: 'challenge', codeChallengeMethod: 'S256' };
    await store.createGrantWithCode(grant(g, now), c);
    const base = {
      codeHash: c.codeHash,
      now,
      clientId,
      redirectUri: c.redirectUri,
      codeChallenge: 'challenge',
    };
    const firstRefresh = (name: string) => ({ tokenHash: `refresh-${name}-${g}`, expiresAt: now + DAY });
    expect(await store.redeemCode({ ...base, clientId: 'other' }, firstRefresh('a'))).toBeUndefined();
    expect(
      await store.redeemCode({ ...base, redirectUri: `${c.redirectUri}/` }, firstRefresh('b')),
    ).toBeUndefined();
    expect(await store.redeemCode({ ...base, codeChallenge: null }, firstRefresh('c'))).toBeUndefined();
    expect(await store.redeemCode({ ...base, codeChallenge: 'other' }, firstRefresh('d'))).toBeUndefined();
    expect(await store.redeemCode({ ...base, now: c.expiresAt }, firstRefresh('e'))).toBeUndefined();
    expect((await store.findCode(c.codeHash))?.usedAt).toBeNull();
    // A refused redemption stores no refresh token.
    for (const name of ['a', 'b', 'c', 'd', 'e']) {
      expect(await store.findRefreshToken(firstRefresh(name).tokenHash)).toBeUndefined();
    }
    const racers = ['r1', 'r2', 'r3'];
    const won = await Promise.all(racers.map((name) => store.redeemCode(base, firstRefresh(name))));
    expect(won.filter(Boolean)).toHaveLength(1);
    expect(won.find(Boolean)).toMatchObject({ grantId: g, userUuid, usedAt: now });
    // Exactly the winner's refresh token exists, bound to the code's grant, client and user.
    const stored = await Promise.all(
      racers.map((name) => store.findRefreshToken(firstRefresh(name).tokenHash)),
    );
    expect(stored.map(Boolean)).toEqual(won.map(Boolean));
    expect(stored.find(Boolean)).toMatchObject({
      grantId: g,
      clientId,
      userUuid,
      createdAt: now,
      expiresAt: now + DAY,
      usedAt: null,
    });
    // A revoked grant's code cannot be redeemed.
    const g2 = randomUUID();
    const c2 = code(g2, now + 600_000);
    await store.createGrantWithCode(grant(g2, now), c2);
    expect(await store.revokeGrant(g2, 'test', now)).toBe(true);
    expect(await store.revokeGrant(g2, 'test', now)).toBe(false);
    expect(
      await store.redeemCode({ ...base, codeHash: c2.codeHash, codeChallenge: null }, firstRefresh('f')),
    ).toBeUndefined();
    expect(await store.findRefreshToken(firstRefresh('f').tokenHash)).toBeUndefined();
  });

  it('rotates a refresh token once; the loser of a race changes nothing', async () => {
    const store = new OAuthGrantStore(db);
    const g = randomUUID();
    await store.createGrantWithRefreshToken(grant(g, Date.now()), refresh(g, Date.now() + DAY));
    const [first] = await db
      .selectFrom('oauth_refresh_tokens')
      .select('token_hash')
      .where('grant_id', '=', g)
      .execute();
    const rotate = () =>
      store.rotateRefreshToken({
        oldHash: first!.token_hash,
        now: Date.now(),
        successor: refresh(g, Date.now() + DAY),
        successorSealed: 'sealed',
      });
    const outcomes = await Promise.all([rotate(), rotate(), rotate()]);
    expect(outcomes.sort()).toEqual(['lost', 'lost', 'rotated']);
    const rows = await db.selectFrom('oauth_refresh_tokens').selectAll().where('grant_id', '=', g).execute();
    expect(rows).toHaveLength(2);
    const old = await store.findRefreshToken(first!.token_hash);
    expect(old?.successorSealed).toBe('sealed');
    await store.clearSuccessor(first!.token_hash);
    expect((await store.findRefreshToken(first!.token_hash))?.successorSealed).toBeNull();
  });

  it("writes a backend code's grant link in the grant's transaction: a failure leaves neither", async () => {
    const store = new OAuthGrantStore(db);
    const codes = new BackendCodeStore(db);
    const now = Date.now();
    const backendCode = async () => {
      const codeHash = randomUUID().replace(/-/g, '');
      await codes.insert({
        codeHash,
        clientId,
        userUuid,
        slotId: '1',
        redirectUri: 'https://a.example/cb',
        createdAt: now,
        expiresAt: now + 60_000,
      });
      return codeHash;
    };
    const linked = await backendCode();
    const g = randomUUID();
    const first = refresh(g, now + DAY);
    await store.createGrantWithRefreshToken(grant(g, now), first, { backendCodeHash: linked });
    expect(await store.findGrant(g)).toBeDefined();
    expect((await codes.find(linked))?.grantId).toBe(g);

    // The refresh token cannot be stored (its hash is taken): no grant, and no link to a grant that never was.
    const unlinked = await backendCode();
    const g2 = randomUUID();
    await expect(
      store.createGrantWithRefreshToken(
        grant(g2, now),
        { ...refresh(g2, now + DAY), tokenHash: first.tokenHash },
        { backendCodeHash: unlinked },
      ),
    ).rejects.toThrow();
    expect(await store.findGrant(g2)).toBeUndefined();
    expect((await codes.find(unlinked))?.grantId).toBeUndefined();
    expect((await store.findRefreshToken(first.tokenHash))?.grantId).toBe(g);
  });

  it('revokes every live grant of a user for an app', async () => {
    const store = new OAuthGrantStore(db);
    const ids = [randomUUID(), randomUUID()];
    for (const id of ids)
      await store.createGrantWithRefreshToken(grant(id, Date.now()), refresh(id, Date.now() + DAY));
    const revoked = await store.revokeGrantsOf(userUuid, clientId, 'sold', Date.now());
    expect(revoked).toEqual(expect.arrayContaining(ids));
    expect(await store.revokeGrantsOf(userUuid, clientId, 'sold', Date.now())).toEqual([]);
    expect((await store.findGrant(ids[0]!))?.revokedReason).toBe('sold');
  });

  it('purges what can no longer matter and keeps the rest', async () => {
    const store = new OAuthGrantStore(db);
    const now = Date.now();
    const oldGrant = randomUUID();
    const oldCode = code(oldGrant, now - 2 * DAY);
    await store.createGrantWithCode(grant(oldGrant, now - 3 * DAY), oldCode);
    const liveGrant = randomUUID();
    const liveCode = code(liveGrant, now - 3600_000); // expired an hour ago: kept a day for reuse detection
    await store.createGrantWithCode(grant(liveGrant, now - 3 * DAY), liveCode);
    const expiredRefreshGrant = randomUUID();
    await store.createGrantWithRefreshToken(
      grant(expiredRefreshGrant, now - 40 * DAY),
      refresh(expiredRefreshGrant, now - 1),
    );
    const keptRefreshGrant = randomUUID();
    await store.createGrantWithRefreshToken(
      grant(keptRefreshGrant, now - 40 * DAY),
      refresh(keptRefreshGrant, now + DAY),
    );

    await store.purgeExpired(now, 5000);
    expect(await store.findCode(oldCode.codeHash)).toBeUndefined();
    expect(await store.findGrant(oldGrant)).toBeUndefined();
    expect(await store.findCode(liveCode.codeHash)).toBeDefined();
    expect(await store.findGrant(liveGrant)).toBeDefined();
    expect(await store.findGrant(expiredRefreshGrant)).toBeUndefined();
    expect(await store.findGrant(keptRefreshGrant)).toBeDefined();
  });
});
