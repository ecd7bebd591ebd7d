import { describe, expect, it } from 'vitest';
import { TransferTicketStore } from '../../src/stores/transferTicketStore.js';
import { testDatabases } from '../helpers/databases.js';
import { seedSlot, seedUser, useTestDatabase } from './storeFixtures.js';

describe.each(testDatabases)('transfer ticket store ($name)', (database) => {
  const db = useTestDatabase(database);
  const now = Date.now();

  async function ticket(ticketHash: string, fromUuid: number, expiresAt = now + 60_000) {
    await seedUser(db(), fromUuid);
    const slot = await seedSlot(db(), fromUuid, 'app-t');
    const store = new TransferTicketStore(db());
    await store.insert({
      ticketHash,
      cuId: 'app-t',
      clientId: 'app-t',
      fromUuid,
      toUuid: fromUuid + 1,
      metaIdx: 0,
      slotId: slot.id,
      origin: 'admin',
      createdAt: now,
      expiresAt,
    });
    return store;
  }

  it('lets exactly one of many concurrent presentations claim a ticket', async () => {
    const store = await ticket('t'.repeat(64), 50);
    const claims = await Promise.all(Array.from({ length: 8 }, () => store.claim('t'.repeat(64), now + 1)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await store.find('t'.repeat(64))).toMatchObject({ status: 'consuming', statusSince: now + 1 });
  });

  it('refuses to claim an expired ticket', async () => {
    const store = await ticket('x'.repeat(64), 51, now);
    expect(await store.claim('x'.repeat(64), now)).toBe(false);
    expect((await store.find('x'.repeat(64)))?.status).toBe('issued');
  });

  it('hands a stopped claim to exactly one taker, gives it back, and records its use', async () => {
    const store = await ticket('r'.repeat(64), 52);
    expect(await store.claim('r'.repeat(64), now + 1)).toBe(true);
    const takers = await Promise.all([
      store.reclaim('r'.repeat(64), now + 1, now + 5),
      store.reclaim('r'.repeat(64), now + 1, now + 6),
    ]);
    expect(takers.filter(Boolean)).toHaveLength(1);
    // A release naming the old claim time changes nothing: the claim moved on.
    await store.release('r'.repeat(64), now + 1);
    expect((await store.find('r'.repeat(64)))?.status).toBe('consuming');
    const since = (await store.find('r'.repeat(64)))!.statusSince;
    await store.release('r'.repeat(64), since);
    expect((await store.find('r'.repeat(64)))?.status).toBe('issued');
    expect(await store.claim('r'.repeat(64), now + 10)).toBe(true);
    await store.markUsed('r'.repeat(64), { txHash: '0xaa', userOpHash: '0xbb' });
    expect(await store.find('r'.repeat(64))).toMatchObject({
      status: 'used',
      txHash: '0xaa',
      userOpHash: '0xbb',
    });
    expect(await store.claim('r'.repeat(64), now + 11)).toBe(false);
  });
});
