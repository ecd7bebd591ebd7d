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
import { seedSlot, seedUser } from './storeFixtures.js';

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

  it('redeems a code without PKCE only without a challenge, and never inside another open transaction', async () => {
    const store = new OAuthGrantStore(db);
    const now = Date.now();
    const g = randomUUID();
    const c = code(g, now + 600_000);
    await store.createGrantWithCode(grant(g, now), c);
    const base = { codeHash: c.codeHash, now, clientId, redirectUri: c.redirectUri, codeChallenge: null };
    const token = (name: string) => ({ tokenHash: `refresh-${name}-${g}`, expiresAt: now + DAY });
    expect(await store.redeemCode({ ...base, codeChallenge: 'x' }, token('a'))).toBeUndefined();
    // While another transaction holds the connection (SQLite: one connection), the redemption waits for it
    // instead of joining it: rolling that transaction back leaves the redemption committed.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let begun: () => void = () => undefined;
    const open = new Promise<void>((resolve) => {
      begun = resolve;
    });
    const outer = db
      .transaction()
      .execute(async (trx) => {
        await trx.selectFrom('oauth_codes').select('code_hash').where('code_hash', '=', c.codeHash).execute();
        begun();
        await held;
        throw new Error('rolled back');
      })
      .catch((err: Error) => err.message);
    await open;
    const redeemed = store.redeemCode(base, token('b'));
    await new Promise((r) => setTimeout(r, 20));
    release();
    expect(await outer).toBe('rolled back');
    expect(await redeemed).toMatchObject({ grantId: g, usedAt: now, codeChallenge: null });
    expect((await store.findCode(c.codeHash))?.usedAt).toBe(now);
    expect(await store.findRefreshToken(token('b').tokenHash)).toMatchObject({ grantId: g });
  });

  it('redeems with a cached client row only while the stored row still matches it', async () => {
    const store = new OAuthGrantStore(db);
    const now = Date.now();
    const g = randomUUID();
    const c = code(g, now + 600_000);
    await store.createGrantWithCode(grant(g, now), c);
    const base = { codeHash: c.codeHash, now, clientId, redirectUri: c.redirectUri, codeChallenge: null };
    const token = (name: string) => ({ tokenHash: `refresh-${name}-${g}`, expiresAt: now + DAY });
    const stored = { secretHash: 'h', previousSecretHash: null, previousSecretExpiresAt: null, dapp: false };
    for (const stale of [
      { ...stored, secretHash: 'rotated-away' },
      { ...stored, previousSecretHash: 'x', previousSecretExpiresAt: now },
      { ...stored, dapp: true },
    ]) {
      expect(await store.redeemCode({ ...base, clientRow: stale }, token('stale'))).toBeUndefined();
    }
    expect((await store.findCode(c.codeHash))?.usedAt).toBeNull();
    expect(await store.redeemCode({ ...base, clientRow: stored }, token('ok'))).toMatchObject({ grantId: g });
  });

  it('commits the redemptions of one turn together; a refused or failing one holds back no other', async () => {
    const store = new OAuthGrantStore(db);
    const now = Date.now();
    const codes: CodeRecord[] = [];
    for (let i = 0; i < 5; i++) {
      const g = randomUUID();
      codes.push(code(g, now + 600_000));
      await store.createGrantWithCode(grant(g, now), codes[i]!);
    }
    const redeem = (c: CodeRecord, tokenHash: string, redirectUri = c.redirectUri) =>
      store.redeemCode(
        { codeHash: c.codeHash, now, clientId, redirectUri, codeChallenge: null },
        { tokenHash, expiresAt: now + DAY },
      );
    // Three at once: one commit.
    const before = store.redemptionBatches();
    const first = await Promise.all(codes.slice(0, 3).map((c) => redeem(c, `batch-${c.codeHash}`)));
    expect(first.map((r) => r?.grantId)).toEqual(codes.slice(0, 3).map((c) => c.grantId));
    expect(store.redemptionBatches()).toEqual({
      batches: before.batches + 1,
      redemptions: before.redemptions + 3,
    });
    // In the next batch: one refused (its redirect URI), one whose write fails (a refresh token hash
    // that exists: the batch rolls back and each is retried alone), and a good one between them.
    const [refused, failed, good] = await Promise.allSettled([
      redeem(codes[3]!, `batch-refused-${codes[3]!.codeHash}`, 'https://a.example/other'),
      redeem(codes[4]!, `batch-${codes[0]!.codeHash}`),
      redeem(codes[3]!, `batch-${codes[3]!.codeHash}`),
    ]);
    expect(refused).toEqual({ status: 'fulfilled', value: undefined });
    expect(failed?.status).toBe('rejected');
    expect(good).toMatchObject({ status: 'fulfilled', value: { grantId: codes[3]!.grantId } });
    // The failed one changed nothing: its code is unused and redeems later.
    expect((await store.findCode(codes[4]!.codeHash))?.usedAt).toBeNull();
    expect(await redeem(codes[4]!, `batch-${codes[4]!.codeHash}`)).toMatchObject({
      grantId: codes[4]!.grantId,
    });
    for (const c of [...codes.slice(0, 3), codes[3]!, codes[4]!]) {
      expect(await store.findRefreshToken(`batch-${c.codeHash}`)).toMatchObject({ grantId: c.grantId });
    }
    expect(await store.findRefreshToken(`batch-refused-${codes[3]!.codeHash}`)).toBeUndefined();
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

  it("exchanges a backend code in one commit: redemption, the slot still the user's, grant, refresh token and link", async () => {
    const store = new OAuthGrantStore(db);
    const codes = new BackendCodeStore(db);
    const now = Date.now();
    const slot = await seedSlot(db, userUuid, clientId, 7);
    const backendCode = async (slotId: string, expiresAt = now + 60_000) => {
      const codeHash = randomUUID().replace(/-/g, '');
      await codes.insert({
        codeHash,
        clientId,
        userUuid,
        slotId,
        redirectUri: 'https://a.example/cb',
        createdAt: now,
        expiresAt,
      });
      return codeHash;
    };
    const exchange = (codeHash: string, grantId: string, client = clientId, at = now) =>
      store.exchangeBackendCode({
        codeHash,
        clientId: client,
        now: at,
        grantId,
        refreshToken: { tokenHash: randomUUID().replace(/-/g, ''), expiresAt: at + DAY },
      });

    // The usual case: the code is spent, the grant, its refresh token and the link are there.
    const good = await backendCode(slot.id);
    const g = randomUUID();
    const tokenHash = randomUUID().replace(/-/g, '');
    const opened = await store.exchangeBackendCode({
      codeHash: good,
      clientId,
      now,
      grantId: g,
      refreshToken: { tokenHash, expiresAt: now + DAY },
    });
    expect(opened).toEqual({ redeemed: true, userUuid, slot });
    expect(await store.findGrant(g)).toMatchObject({ grantId: g, clientId, userUuid, revokedAt: null });
    expect(await store.findRefreshToken(tokenHash)).toMatchObject({ grantId: g, clientId, userUuid });
    expect(await codes.find(good)).toMatchObject({ usedAt: now, grantId: g });

    // Single use: a second exchange (the replay) writes nothing.
    const g2 = randomUUID();
    expect(await exchange(good, g2)).toEqual({ redeemed: false });
    expect(await store.findGrant(g2)).toBeUndefined();
    expect((await codes.find(good))?.grantId).toBe(g);

    // Another client's, or expired: nothing written, the code stays as it was.
    const other = await backendCode(slot.id);
    expect(await exchange(other, randomUUID(), 'another-client')).toEqual({ redeemed: false });
    expect((await codes.find(other))?.usedAt).toBeUndefined();
    const expired = await backendCode(slot.id, now - 1);
    expect(await exchange(expired, randomUUID())).toEqual({ redeemed: false });
    expect((await codes.find(expired))?.usedAt).toBeUndefined();

    // Exactly one of concurrent exchanges of one code wins.
    const raced = await backendCode(slot.id);
    const outcomes = await Promise.all([1, 2, 3].map(() => exchange(raced, randomUUID())));
    expect(outcomes.filter((o) => o.redeemed)).toHaveLength(1);

    // The slot sold (another owner) or not yet confirmed: the code is spent, no grant and no link.
    const buyer = 4343;
    await seedUser(db, buyer);
    const sold = await seedSlot(db, userUuid, clientId, 8);
    const soldCode = await backendCode(sold.id);
    await db.updateTable('slots').set({ owner_uuid: buyer }).where('id', '=', sold.id).execute();
    const g3 = randomUUID();
    expect(await exchange(soldCode, g3)).toEqual({ redeemed: true, userUuid, slot: undefined });
    expect(await store.findGrant(g3)).toBeUndefined();
    expect(await codes.find(soldCode)).toMatchObject({ usedAt: now, grantId: undefined });
    const pending = await seedSlot(db, userUuid, clientId, 9);
    await db.updateTable('slots').set({ state: 'pending' }).where('id', '=', pending.id).execute();
    expect(await exchange(await backendCode(pending.id), randomUUID())).toEqual({
      redeemed: true,
      userUuid,
      slot: undefined,
    });

    // The refresh token cannot be stored (its hash is taken): nothing at all, the code still unspent.
    const failing = await backendCode(slot.id);
    const g4 = randomUUID();
    await expect(
      store.exchangeBackendCode({
        codeHash: failing,
        clientId,
        now,
        grantId: g4,
        refreshToken: { tokenHash, expiresAt: now + DAY },
      }),
    ).rejects.toThrow();
    expect(await store.findGrant(g4)).toBeUndefined();
    expect(await codes.find(failing)).toMatchObject({ usedAt: undefined, grantId: undefined });
  });

  it('exchanges a backend code with a cached client row only while the stored row still matches it', async () => {
    const store = new OAuthGrantStore(db);
    const codes = new BackendCodeStore(db);
    const now = Date.now();
    const slot = await seedSlot(db, userUuid, clientId, 11);
    const codeHash = randomUUID().replace(/-/g, '');
    await codes.insert({
      codeHash,
      clientId,
      userUuid,
      slotId: slot.id,
      redirectUri: 'https://a.example/cb',
      createdAt: now,
      expiresAt: now + 60_000,
    });
    const exchange = (clientRow: Parameters<typeof store.exchangeBackendCode>[0]['clientRow']) =>
      store.exchangeBackendCode({
        codeHash,
        clientId,
        now,
        grantId: randomUUID(),
        refreshToken: { tokenHash: randomUUID().replace(/-/g, ''), expiresAt: now + DAY },
        clientRow,
      });
    const stored = { secretHash: 'h', previousSecretHash: null, previousSecretExpiresAt: null, dapp: false };
    // What another replica may have changed a moment ago: the secret, the rotated-out one, the dapp flag.
    for (const stale of [
      { ...stored, secretHash: 'rotated-away' },
      { ...stored, previousSecretHash: 'x', previousSecretExpiresAt: now },
      { ...stored, dapp: true },
    ]) {
      expect(await exchange(stale)).toEqual({ redeemed: false });
    }
    expect((await codes.find(codeHash))?.usedAt).toBeUndefined();
    // A deleted app: refused whatever the row said.
    await db
      .updateTable('oauth_clients')
      .set({ deleted_at: now })
      .where('client_id', '=', clientId)
      .execute();
    expect(await exchange(stored)).toEqual({ redeemed: false });
    await db
      .updateTable('oauth_clients')
      .set({ deleted_at: null })
      .where('client_id', '=', clientId)
      .execute();
    expect(await exchange(stored)).toEqual({ redeemed: true, userUuid, slot });
  });

  it('commits the backend exchanges of one turn together; a failing one holds back no other', async () => {
    const store = new OAuthGrantStore(db);
    const codes = new BackendCodeStore(db);
    const now = Date.now();
    const slot = await seedSlot(db, userUuid, clientId, 12);
    const backendCode = async () => {
      const codeHash = randomUUID().replace(/-/g, '');
      await codes.insert({
        codeHash,
        clientId,
        userUuid,
        slotId: slot.id,
        redirectUri: 'https://a.example/cb',
        createdAt: now,
        expiresAt: now + 60_000,
      });
      return codeHash;
    };
    const exchange = (codeHash: string, grantId: string, tokenHash = randomUUID()) =>
      store.exchangeBackendCode({
        codeHash,
        clientId,
        now,
        grantId,
        refreshToken: { tokenHash, expiresAt: now + DAY },
      });
    const [a, b, c] = [await backendCode(), await backendCode(), await backendCode()];
    const grants = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const before = store.backendExchangeBatches();
    // Three codes and a replay of the first in one turn: the first exchange of `a` wins, its replay finds
    // it used, as one after the other.
    const outcomes = await Promise.all([
      exchange(a, grants[0]!),
      exchange(b, grants[1]!),
      exchange(a, grants[2]!),
      exchange(c, grants[3]!),
    ]);
    expect(outcomes).toEqual([
      { redeemed: true, userUuid, slot },
      { redeemed: true, userUuid, slot },
      { redeemed: false },
      { redeemed: true, userUuid, slot },
    ]);
    expect(store.backendExchangeBatches()).toEqual({
      batches: before.batches + 1,
      exchanges: before.exchanges + 4,
    });
    expect(await codes.find(a)).toMatchObject({ grantId: grants[0] });
    expect(await store.findGrant(grants[2]!)).toBeUndefined();

    // One whose refresh token cannot be stored fails the batch; retried alone, only it fails.
    const taken = randomUUID();
    await exchange(await backendCode(), randomUUID(), taken);
    const [failing, good] = [await backendCode(), await backendCode()];
    const [failed, fine] = await Promise.allSettled([
      exchange(failing, randomUUID(), taken),
      exchange(good, randomUUID()),
    ]);
    expect(failed.status).toBe('rejected');
    expect(fine).toEqual({ status: 'fulfilled', value: { redeemed: true, userUuid, slot } });
    expect(await codes.find(failing)).toMatchObject({ usedAt: undefined, grantId: undefined });
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
