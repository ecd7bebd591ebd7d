import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import { lockDurationMs, MAX_WRONG_PINS } from '../../src/services/custody/pinLockout.js';
import { type Custody, CustodyStore } from '../../src/stores/custodyStore.js';
import { UserStore } from '../../src/stores/userStore.js';
import { WalletStore } from '../../src/stores/walletStore.js';
import { testDatabases } from '../helpers/databases.js';

const ADDRESS = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as `0x${string}`;

describe.each(testDatabases)('custody store ($name)', (database) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;
  let store: CustodyStore;
  let users: UserStore;
  let wallets: WalletStore;

  beforeAll(async () => {
    const opened = await database.open();
    handle = opened.handle;
    dispose = opened.dispose;
    store = new CustodyStore(handle.db);
    users = new UserStore(handle.db);
    wallets = new WalletStore(handle.db);
  });
  afterAll(() => dispose?.());

  async function newCustody(extra: Partial<Custody> = {}): Promise<Custody> {
    const userUuid = randomInt(1, 2 ** 47);
    const now = Date.now();
    await users.insert({
      userUuid,
      email: `u${userUuid}@example.com`,
      nickname: 'u',
      createdAt: now,
      passwordHash: 'x',
    });
    const address = ADDRESS(userUuid);
    const owner = ADDRESS(userUuid + 1);
    await wallets.insert({
      address,
      userUuid,
      kind: 'main',
      salt: 0n,
      initialOwner: owner,
      owner,
      deployed: false,
      createdAt: now,
    });
    const custody: Custody = {
      userUuid,
      walletAddress: address,
      owner,
      serverShareSealed: 'v1.share',
      mnemonicSealed: 'v1.mnemonic',
      keyVersion: 1,
      failedAttempts: 0,
      lockCount: 0,
      lockedUntil: 0,
      userShareCheck: 'check-1',
      createdAt: now,
      updatedAt: now,
      ...extra,
    };
    expect(await store.insert(custody)).toBe(true);
    return custody;
  }

  it('refuses a second custody row for the same user', async () => {
    const custody = await newCustody();
    expect(await store.insert({ ...custody, serverShareSealed: 'v1.other' })).toBe(false);
    expect((await store.find(custody.userUuid))?.serverShareSealed).toBe('v1.share');
  });

  it('lets exactly five of twenty concurrent PIN attempts through, then locks for 15 minutes, doubling', async () => {
    const { userUuid } = await newCustody();
    const now = Date.now();
    const reserved = await Promise.all(
      Array.from({ length: 20 }, () => store.reserveAttempt(userUuid, now, MAX_WRONG_PINS)),
    );
    expect(reserved.filter(Boolean)).toHaveLength(MAX_WRONG_PINS);
    expect((await store.find(userUuid))?.failedAttempts).toBe(MAX_WRONG_PINS);

    // All five were wrong: whichever finishes first locks; the others see the same lock.
    const locks = await Promise.all(
      Array.from({ length: 5 }, () => store.lockIfExhausted(userUuid, now, MAX_WRONG_PINS, lockDurationMs)),
    );
    expect(new Set(locks)).toEqual(new Set([now + 15 * 60_000]));
    const locked = await store.find(userUuid);
    expect(locked).toMatchObject({ failedAttempts: 0, lockCount: 1, lockedUntil: now + 15 * 60_000 });
    expect(await store.reserveAttempt(userUuid, now + 60_000, MAX_WRONG_PINS)).toBe(false);

    // After the lock: five more wrong ones lock for 30 minutes.
    const later = now + 15 * 60_000;
    for (let i = 0; i < MAX_WRONG_PINS; i++)
      expect(await store.reserveAttempt(userUuid, later, MAX_WRONG_PINS)).toBe(true);
    expect(await store.lockIfExhausted(userUuid, later, MAX_WRONG_PINS, lockDurationMs)).toBe(
      later + 30 * 60_000,
    );
    expect((await store.find(userUuid))?.lockCount).toBe(2);

    // A success ends the run and the doubling.
    await store.clearFailures(userUuid, later);
    expect(await store.find(userUuid)).toMatchObject({ failedAttempts: 0, lockCount: 0, lockedUntil: 0 });
  });

  it('replaces the server share only at the expected key version (one of two racers wins)', async () => {
    const { userUuid } = await newCustody();
    const results = await Promise.all([
      store.replaceServerShare(userUuid, 1, 'v1.a', 'check-a', Date.now()),
      store.replaceServerShare(userUuid, 1, 'v1.b', 'check-b', Date.now()),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const row = await store.find(userUuid);
    expect(row?.keyVersion).toBe(2);
    expect(['v1.a', 'v1.b']).toContain(row?.serverShareSealed);
    // The share fingerprint changes with the share it belongs to, in the same update.
    expect(row?.userShareCheck).toBe(row?.serverShareSealed === 'v1.a' ? 'check-a' : 'check-b');
  });

  it('keeps one pending rotation per user, leased to one holder at a time', async () => {
    const custody = await newCustody();
    const now = Date.now();
    const pending = {
      userUuid: custody.userUuid,
      oldOwner: custody.owner,
      newOwner: ADDRESS(7),
      serverShareSealed: 'v1.p',
      mnemonicSealed: 'v1.m',
      leaseId: 'first',
      leaseUntil: now + 60_000,
      createdAt: now,
    };
    expect(await store.insertPending(pending)).toBe(true);
    expect(await store.insertPending({ ...pending, leaseId: 'second' })).toBe(false);
    expect(await store.takeLease(custody.userUuid, 'second', now + 120_000, now)).toBe(false);
    await store.releaseLease(custody.userUuid, 'first');
    const takers = await Promise.all(
      ['a', 'b', 'c'].map((id) => store.takeLease(custody.userUuid, id, now + 120_000, now)),
    );
    expect(takers.filter(Boolean)).toHaveLength(1);
    expect(await store.deletePending(custody.userUuid, 'first')).toBe(false);
    const holder = (await store.findPending(custody.userUuid))!.leaseId;

    const replaced = await store.transaction(async (trx) => {
      const ok = await store.replaceOwner(
        {
          userUuid: custody.userUuid,
          oldOwner: custody.owner,
          expectedVersion: 1,
          newOwner: ADDRESS(7),
          serverShareSealed: 'v1.new',
          mnemonicSealed: 'v1.m',
          userShareCheck: undefined,
          now,
        },
        trx,
      );
      await wallets.setOwnerForUser(custody.userUuid, ADDRESS(7), trx);
      return ok && (await store.deletePending(custody.userUuid, holder, trx));
    });
    expect(replaced).toBe(true);
    expect(await store.findPending(custody.userUuid)).toBeUndefined();
    expect(await store.find(custody.userUuid)).toMatchObject({ owner: ADDRESS(7), keyVersion: 2 });
    expect((await wallets.mainWallet(custody.userUuid))?.owner).toBe(ADDRESS(7));
  });

  it('reads the custody row and whether a rotation is pending in one statement', async () => {
    const custody = await newCustody();
    expect(await store.findWithPendingFlag(custody.userUuid)).toEqual({
      custody: await store.find(custody.userUuid),
      rotationPending: false,
    });
    const now = Date.now();
    await store.insertPending({
      userUuid: custody.userUuid,
      oldOwner: custody.owner,
      newOwner: ADDRESS(9),
      serverShareSealed: 'v1.pending',
      mnemonicSealed: 'v1.pm',
      leaseId: 'holder',
      leaseUntil: now + 60_000,
      createdAt: now,
    });
    const read = await store.findWithPendingFlag(custody.userUuid);
    expect(read?.rotationPending).toBe(true);
    // The custody row's own columns, not the pending row's (both tables have user_uuid and created_at).
    expect(read?.custody).toEqual(await store.find(custody.userUuid));
    expect(await store.findWithPendingFlag(custody.userUuid + 1)).toBeUndefined();
  });

  it('stores the owner-key fingerprint at insert, fills it in only for the stored owner, and a rotation clears it', async () => {
    const custody = await newCustody();
    expect((await store.find(custody.userUuid))?.ownerKeyCheck).toBeUndefined();
    // Another owner than the stored one (a rotation won meanwhile): nothing is written.
    await store.setOwnerKeyCheck(custody.userUuid, ADDRESS(3), 'a'.repeat(64));
    expect((await store.find(custody.userUuid))?.ownerKeyCheck).toBeUndefined();
    await store.setOwnerKeyCheck(custody.userUuid, custody.owner, 'b'.repeat(64));
    expect((await store.find(custody.userUuid))?.ownerKeyCheck).toBe('b'.repeat(64));

    // A PIN reset keeps the owner key, and so its fingerprint.
    expect(await store.replaceServerShare(custody.userUuid, 1, 'v1.s2', 'check-2', Date.now())).toBe(true);
    expect((await store.find(custody.userUuid))?.ownerKeyCheck).toBe('b'.repeat(64));
    // A new owner's key has another fingerprint: the rotation clears it.
    expect(
      await store.replaceOwner({
        userUuid: custody.userUuid,
        oldOwner: custody.owner,
        expectedVersion: 2,
        newOwner: ADDRESS(11),
        serverShareSealed: 'v1.s3',
        mnemonicSealed: 'v1.m3',
        userShareCheck: 'check-3',
        now: Date.now(),
      }),
    ).toBe(true);
    expect((await store.find(custody.userUuid))?.ownerKeyCheck).toBeUndefined();

    // Registration writes it with the row.
    const fresh = await newCustody({ ownerKeyCheck: 'c'.repeat(64) });
    expect((await store.find(fresh.userUuid))?.ownerKeyCheck).toBe('c'.repeat(64));
  });
});
