import { describe, expect, it } from 'vitest';
import { SigningKeyStore, type StoredSigningKey } from '../../src/stores/signingKeyStore.js';
import { testDatabases } from '../helpers/databases.js';
import { useTestDatabase } from './storeFixtures.js';

describe.each(testDatabases)('signing key store ($name)', (database) => {
  const db = useTestDatabase(database);
  const key = (kid: string, createdAt: number): StoredSigningKey => ({
    kid,
    alg: 'EdDSA',
    publicJwk: JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: kid }),
    privateJwkSealed: `sealed-${kid}`,
    createdAt,
  });

  it('lists keys oldest first, so every replica signs with the same key', async () => {
    const store = new SigningKeyStore(db());
    await store.insert(key('newer', 2_000));
    await store.insert(key('older', 1_000));
    expect(await store.list()).toEqual([key('older', 1_000), key('newer', 2_000)]);
  });

  it('keeps the first key when two replicas insert the same kid at once', async () => {
    const store = new SigningKeyStore(db());
    await Promise.all([
      store.insert({ ...key('shared', 3_000), privateJwkSealed: 'first' }),
      store.insert({ ...key('shared', 3_000), privateJwkSealed: 'second' }),
    ]);
    const shared = (await store.list()).filter((k) => k.kid === 'shared');
    expect(shared).toHaveLength(1);
    expect(['first', 'second']).toContain(shared[0]!.privateJwkSealed);
  });
});
