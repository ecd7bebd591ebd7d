import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import { LeaseStore } from '../../src/stores/leaseStore.js';
import { testDatabases } from '../helpers/databases.js';

describe.each(testDatabases)('lease store ($name)', (database) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;
  let leases: LeaseStore;

  beforeAll(async () => {
    ({ handle, dispose } = await database.open());
    leases = new LeaseStore(handle.db);
  });
  afterAll(() => dispose());

  it('gives a lease to one holder at a time until it expires', async () => {
    const now = Date.now();
    expect(await leases.acquire('test', 'a', 1_000, now)).toBe(true);
    expect(await leases.acquire('test', 'b', 1_000, now + 10)).toBe(false);
    expect(await leases.acquire('test', 'a', 1_000, now + 500)).toBe(true);
    // a renewed until now + 1 500: b waits past that, then takes it over.
    expect(await leases.acquire('test', 'b', 1_000, now + 1_400)).toBe(false);
    expect(await leases.acquire('test', 'b', 1_000, now + 2_000)).toBe(true);
    await leases.release('test', 'b');
    expect(await leases.acquire('test', 'a', 1_000, now + 2_001)).toBe(true);
  });

  it('lets a holder release only its own lease, and keeps leases of other names apart', async () => {
    const now = Date.now();
    expect(await leases.acquire('one', 'a', 60_000, now)).toBe(true);
    expect(await leases.acquire('two', 'b', 60_000, now)).toBe(true);
    await leases.release('one', 'b');
    expect(await leases.acquire('one', 'b', 60_000, now + 1)).toBe(false);
  });

  it('lets the sole process take a lease over from a holder that has not expired', async () => {
    const now = Date.now();
    expect(await leases.acquire('stale', 'killed', 600_000, now)).toBe(true);
    await leases.takeOver('stale', 'restarted', 1_000, now + 10);
    expect(await leases.acquire('stale', 'killed', 600_000, now + 20)).toBe(false);
    expect(await leases.acquire('stale', 'restarted', 1_000, now + 30)).toBe(true);
    // A free lease is taken over the same way (no row yet).
    await leases.takeOver('fresh', 'restarted', 1_000, now);
    expect(await leases.acquire('fresh', 'other', 1_000, now + 10)).toBe(false);
  });

  it('gives a free lease to exactly one of many concurrent takers', async () => {
    const now = Date.now();
    const holders = Array.from({ length: 12 }, (_, i) => `racer-${i}`);
    const won = await Promise.all(holders.map((h) => leases.acquire('race', h, 60_000, now)));
    expect(won.filter(Boolean)).toHaveLength(1);
  });
});
