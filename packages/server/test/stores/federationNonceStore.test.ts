import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import { FederationNonceStore } from '../../src/stores/federationNonceStore.js';
import { testDatabases } from '../helpers/databases.js';

describe.each(testDatabases)('federation nonce store ($name)', (database) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;
  let nonces: FederationNonceStore;

  beforeAll(async () => {
    ({ handle, dispose } = await database.open());
    nonces = new FederationNonceStore(handle.db);
  });
  afterAll(() => dispose());

  it('claims a key once: a second claim while the first lives is refused', async () => {
    const now = Date.now();
    expect(await nonces.claimOnce('steam:2026-11-26T19:00:00Zabc', 60_000, now)).toBe(true);
    expect(await nonces.claimOnce('steam:2026-11-26T19:00:00Zabc', 60_000, now + 1)).toBe(false);
    expect(await nonces.claimOnce('steam:2026-11-26T19:00:00Zabc', 60_000, now + 59_999)).toBe(false);
    // Another key is its own.
    expect(await nonces.claimOnce('steam:2026-11-26T19:00:00Zabd', 60_000, now + 2)).toBe(true);
  });

  it('sweeps expired markers, after which the key may be claimed again', async () => {
    const now = Date.now();
    expect(await nonces.claimOnce('expiring', 1_000, now)).toBe(true);
    expect(await nonces.claimOnce('long-lived', 600_000, now)).toBe(true);
    expect(await nonces.claimOnce('expiring', 1_000, now + 1_000)).toBe(true);
    expect(await nonces.sweep(now + 2_000)).toBeGreaterThanOrEqual(1);
    const left = await handle.db
      .selectFrom('federation_nonces')
      .select('key')
      .where('key', 'in', ['expiring', 'long-lived'])
      .execute();
    expect(left.map((r) => r.key)).toEqual(['long-lived']);
  });

  it('gives a key to exactly one of many concurrent claims', async () => {
    const now = Date.now();
    const won = await Promise.all(Array.from({ length: 12 }, () => nonces.claimOnce('race', 60_000, now)));
    expect(won.filter(Boolean)).toHaveLength(1);
  });

  it('refuses an empty or oversized key instead of truncating it', async () => {
    await expect(nonces.claimOnce('', 1_000)).rejects.toThrow(RangeError);
    await expect(nonces.claimOnce('x'.repeat(513), 1_000)).rejects.toThrow(RangeError);
    await expect(nonces.claimOnce('ok', 0)).rejects.toThrow(RangeError);
  });
});
