import { randomBytes, randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import { newSlotId } from '../../src/services/slots/slotId.js';
import { type Slot, SlotStore } from '../../src/stores/slotStore.js';
import { UserStore } from '../../src/stores/userStore.js';
import { testDatabases } from '../helpers/databases.js';

const address = () => `0x${randomBytes(20).toString('hex')}` as `0x${string}`;

describe.each(testDatabases)('slot store ($name)', (database) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;
  let slots: SlotStore;
  let users: UserStore;

  beforeAll(async () => {
    ({ handle, dispose } = await database.open());
    slots = new SlotStore(handle.db);
    users = new UserStore(handle.db);
  });
  afterAll(() => dispose?.());

  async function newUser(): Promise<number> {
    const userUuid = randomInt(1_000_000_000, 2 ** 47);
    await users.insert({
      userUuid,
      email: `u${userUuid}@example.com`,
      nickname: `u${userUuid}`,
      createdAt: Date.now(),
      passwordHash: 'x',
    });
    return userUuid;
  }

  function slot(ownerUuid: number, clientId: string, metaIdx: number, overrides: Partial<Slot> = {}): Slot {
    const now = Date.now();
    return {
      id: newSlotId(),
      clientId,
      ownerUuid,
      contentAddress: address(),
      trCnt: 0,
      tokenNickname: 'nick',
      metaIdx,
      imported: false,
      state: 'active',
      stateSince: now,
      createdAt: now,
      updatedAt: now,
      ...overrides,
    };
  }

  it('keeps 19-digit ids exact and refuses a second slot at the same place', async () => {
    const owner = await newUser();
    const first = slot(owner, 'app-a', 0, { id: '9007199254740993123' });
    expect(await slots.insert(first)).toBe(true);
    expect((await slots.findById('9007199254740993123'))?.id).toBe('9007199254740993123');
    // Same (client, owner, meta_idx): the unique index settles concurrent first authorizes.
    expect(await slots.insert(slot(owner, 'app-a', 0))).toBe(false);
    // Same id elsewhere: refused as well.
    expect(await slots.insert(slot(await newUser(), 'app-a', 0, { id: first.id }))).toBe(false);
    expect(await slots.countByOwner('app-a', owner)).toBe(1);
  });

  it('moves a slot: tr_cnt + 1, appended to the new owner, the old owner’s indexes closed up', async () => {
    const seller = await newUser();
    const buyer = await newUser();
    const s0 = slot(seller, 'app-b', 0);
    const s1 = slot(seller, 'app-b', 1);
    const s2 = slot(seller, 'app-b', 2);
    const b0 = slot(buyer, 'app-b', 0);
    for (const s of [s0, s1, s2, b0]) expect(await slots.insert(s)).toBe(true);

    expect(
      await slots.transition(s1.id, { state: 'active', ownerUuid: seller }, { state: 'moving', since: 1 }),
    ).toBe(true);
    // A second transfer of the same slot cannot start while one is in flight.
    expect(
      await slots.transition(s1.id, { state: 'active', ownerUuid: seller }, { state: 'moving', since: 2 }),
    ).toBe(false);
    const moved = await slots.completeMove(s1.id, seller, buyer);
    expect(moved).toMatchObject({ ownerUuid: buyer, metaIdx: 1, trCnt: 1, state: 'active' });
    expect((await slots.listByOwner(seller, 'app-b')).map((s) => [s.id, s.metaIdx])).toEqual([
      [s0.id, 0],
      [s2.id, 1],
    ]);
    // Not moving any more: a repeated completion changes nothing.
    expect(await slots.completeMove(s1.id, seller, buyer)).toBeUndefined();
  });

  it('gives two concurrent moves to one owner distinct indexes', async () => {
    const buyer = await newUser();
    const a = slot(await newUser(), 'app-c', 0, { state: 'moving' });
    const b = slot(await newUser(), 'app-c', 0, { state: 'moving' });
    expect(await slots.insert(a)).toBe(true);
    expect(await slots.insert(b)).toBe(true);
    const [ma, mb] = await Promise.all([
      slots.completeMove(a.id, a.ownerUuid, buyer),
      slots.completeMove(b.id, b.ownerUuid, buyer),
    ]);
    expect([ma?.metaIdx, mb?.metaIdx].sort()).toEqual([0, 1]);
  });

  it('activates and deletes pending slots only in the expected phase', async () => {
    const owner = await newUser();
    const pending = slot(owner, 'app-d', 0, { state: 'pending', stateSince: 1000 });
    expect(await slots.insert(pending)).toBe(true);
    expect(await slots.activate(pending.id, 999)).toBe(false);
    expect(await slots.deletePending(pending.id, 999)).toBe(false);
    expect(await slots.activate(pending.id, 1000)).toBe(true);
    expect(await slots.deletePending(pending.id, 1000)).toBe(false);
    expect((await slots.findById(pending.id))?.state).toBe('active');
  });
});
