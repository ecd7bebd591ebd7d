import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MarketStore } from '../../src/stores/marketStore.js';
import { testDatabases } from '../helpers/databases.js';
import { seedSlot, seedUser, useTestDatabase } from './storeFixtures.js';

describe.each(testDatabases)('market store ($name)', (database) => {
  const db = useTestDatabase(database);

  async function listing(sellerUuid: number, clientId = 'app-m', createdAt = Date.now()) {
    await seedUser(db(), sellerUuid);
    const slot = await seedSlot(db(), sellerUuid, clientId);
    const store = new MarketStore(db());
    const offer = { id: randomUUID(), slotId: slot.id, clientId, sellerUuid, price: '100', createdAt };
    expect(await store.insert(offer)).toBe(true);
    return { store, offer };
  }

  it('keeps one open listing per slot', async () => {
    const { store, offer } = await listing(60);
    expect(await store.insert({ ...offer, id: randomUUID() })).toBe(false);
    expect(await store.find(offer.id)).toMatchObject({ status: 'active', price: '100', slotImported: false });
  });

  it('gives a listing to exactly one of several concurrent buyers', async () => {
    const { store, offer } = await listing(61);
    const wins = await Promise.all([11, 12, 13].map((buyer) => store.claim(offer.id, buyer)));
    expect(wins.filter(Boolean)).toHaveLength(1);
    const claimed = await store.find(offer.id);
    expect(claimed?.status).toBe('pending');
    const buyer = claimed!.buyerUuid!;
    // Only the buyer who holds it can release or complete it.
    expect(await store.markSold(offer.id, buyer + 100, { txHash: '0x1', payment: 'onchain' })).toBe(false);
    expect(await store.release(offer.id, buyer)).toBe(true);
    expect(await store.claim(offer.id, 14)).toBe(true);
    expect(await store.markSold(offer.id, 14, { txHash: '0xfeed', payment: 'onchain' })).toBe(true);
    expect(await store.find(offer.id)).toMatchObject({ status: 'sold', buyerUuid: 14, txHash: '0xfeed' });
  });

  it('lets only the seller cancel an active listing, and cancels by slot', async () => {
    const { store, offer } = await listing(62);
    expect(await store.cancel(offer.id, 63)).toBe(false);
    expect(await store.cancel(offer.id, 62)).toBe(true);
    expect(await store.cancel(offer.id, 62)).toBe(false);
    const second = await listing(64);
    expect(await store.cancelForSlot(second.offer.slotId)).toBe(1);
    expect((await store.find(second.offer.id))?.status).toBe('cancelled');
  });

  it('lists active listings of one app, newest first', async () => {
    const older = await listing(65, 'app-list', 1_000);
    const newer = await listing(66, 'app-list', 2_000);
    await listing(67, 'app-other', 3_000);
    const listed = await newer.store.list({ clientId: 'app-list', limit: 10 });
    expect(listed.map((l) => l.id)).toEqual([newer.offer.id, older.offer.id]);
  });
});
