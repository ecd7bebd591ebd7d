import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { OAuthRevocationStore } from '../../src/stores/oauthRevocationStore.js';
import { testDatabases } from '../helpers/databases.js';
import { useTestDatabase } from './storeFixtures.js';

describe.each(testDatabases)('OAuth revocation store ($name)', (database) => {
  const db = useTestDatabase(database);

  it('keeps the later expiry of an entry recorded twice, and answers whether any key is in force', async () => {
    const store = new OAuthRevocationStore(db());
    const now = Date.now();
    const live = { kind: 'grant' as const, value: randomUUID(), expiresAt: now + 60_000 };
    const gone = { kind: 'jti' as const, value: randomUUID(), expiresAt: now - 1 };
    await store.insert(live, now);
    await store.insert(gone, now);
    await store.insert({ ...live, expiresAt: now + 1000 }, now); // an earlier expiry never shortens it
    expect(await store.anyActive([{ kind: 'grant', value: live.value }], now)).toBe(true);
    expect(await store.anyActive([{ kind: 'jti', value: live.value }], now)).toBe(false); // kinds apart
    expect(await store.anyActive([{ kind: 'jti', value: gone.value }], now)).toBe(false);
    expect(await store.anyActive([], now)).toBe(false);
    expect((await store.listActive(now)).find((e) => e.value === live.value)?.expiresAt).toBe(now + 60_000);
    await store.insert({ ...live, expiresAt: now + 120_000 }, now); // a later one extends it
    expect((await store.listActive(now)).find((e) => e.value === live.value)?.expiresAt).toBe(now + 120_000);
  });

  it('purges only entries no longer in force', async () => {
    const store = new OAuthRevocationStore(db());
    const now = Date.now();
    const live = { kind: 'grant' as const, value: randomUUID(), expiresAt: now + 60_000 };
    const gone = { kind: 'jti' as const, value: randomUUID(), expiresAt: now };
    await store.insert(live, now);
    await store.insert(gone, now);
    await store.purgeExpired(now);
    const keys = (await db().selectFrom('oauth_revocations').select('value').execute()).map((r) => r.value);
    expect(keys).toContain(live.value);
    expect(keys).not.toContain(gone.value);
  });

  it('records one entry when many replicas revoke the same token at once', async () => {
    const store = new OAuthRevocationStore(db());
    const now = Date.now();
    const value = randomUUID();
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        store.insert({ kind: 'jti', value, expiresAt: now + 1000 * (i + 1) }, now),
      ),
    );
    const rows = await db().selectFrom('oauth_revocations').selectAll().where('value', '=', value).execute();
    expect(rows).toHaveLength(1);
    expect(Number(rows[0]!.expires_at)).toBe(now + 8000);
  });
});
