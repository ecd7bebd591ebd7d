import { describe, expect, it } from 'vitest';
import { SponsorshipStore } from '../../src/stores/sponsorshipStore.js';
import { testDatabases } from '../helpers/databases.js';
import { useTestDatabase } from './storeFixtures.js';

describe.each(testDatabases)('sponsorship store ($name)', (database) => {
  const db = useTestDatabase(database);

  it('charges every budget or none: one over-budget subject leaves the others untouched', async () => {
    const store = new SponsorshipStore(db());
    const day = '2026-11-23';
    const user = { scope: 'user' as const, subject: 'u1', budget: 1_000 };
    const app = { scope: 'app' as const, subject: 'a1', budget: 1_500 };
    expect(await store.charge(day, 600, [user, app])).toBe(true);
    // The user has 400 left: 600 more is refused, and the app is not charged either.
    expect(await store.charge(day, 600, [app, user])).toBe(false);
    expect(await store.spendOn(day)).toEqual([
      { day, scope: 'app', subject: 'a1', gas: 600, operations: 1 },
      { day, scope: 'user', subject: 'u1', gas: 600, operations: 1 },
    ]);
    expect(await store.charge('2026-11-24', 600, [user])).toBe(true);
    expect(await store.spendOn('2026-11-24')).toHaveLength(1);
  });

  it('lets concurrent charges spend the last of a budget only once (conditional UPDATE)', async () => {
    const store = new SponsorshipStore(db());
    const day = '2026-11-25';
    const charge = [{ scope: 'user' as const, subject: 'racer', budget: 1_000 }];
    const results = await Promise.all(Array.from({ length: 10 }, () => store.charge(day, 300, charge)));
    expect(results.filter(Boolean)).toHaveLength(3);
    expect((await store.spendOn(day))[0]).toMatchObject({ gas: 900, operations: 3 });
  });
});
