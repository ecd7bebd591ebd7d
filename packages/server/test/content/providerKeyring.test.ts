import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { SecretBox } from '../../src/crypto/secretBox.js';
import { ProviderKeyring } from '../../src/services/content/providerKeyring.js';
import { ContentProviderStore } from '../../src/stores/contentProviderStore.js';
import { testDatabases } from '../helpers/databases.js';
import { seedClient, seedUser, useTestDatabase } from '../stores/storeFixtures.js';

/** A spec-form (AES-256-CTR, fixed key and IV, no client_id) consumption payload, hex. */
function sealCtr(keys: { keyHex: string; ivHex: string }, payload: object): string {
  const cipher = createCipheriv(
    'aes-256-ctr',
    Buffer.from(keys.keyHex, 'hex'),
    Buffer.from(keys.ivHex, 'hex'),
  );
  return Buffer.concat([cipher.update(JSON.stringify(payload)), cipher.final()]).toString('hex');
}

/**
 * Replicas each keep a keyring over one database. A provider registered through replica A was unknown to
 * replica B's keyring for up to a second (its miss-reload was skipped when a load had run within the last
 * second), so a spec-form consumption sent to B right after A answered got 401 `invalid_payload`
 * (test/content/replicaReads.test.ts failed so under load). A miss now waits for a load that started after
 * the request arrived.
 */
describe.each(testDatabases)('provider keyring across replicas ($name)', (database) => {
  const db = useTestDatabase(database);
  // One MASTER_KEY for the database, as every replica shares.
  const box = new SecretBox(randomBytes(32));

  it('a provider created through one keyring opens at once through another that loaded just before', async () => {
    const store = new ContentProviderStore(db());
    const [onA, onB] = [new ProviderKeyring(store, box), new ProviderKeyring(store, box)];
    await onB.reload(); // B has just loaded: its next miss-load is throttled
    const clientId = `kr-${randomBytes(4).toString('hex')}`;
    await seedUser(db(), 7001);
    await seedClient(db(), clientId, 7001);
    const keys = (await onA.createClientKeys(clientId))!;
    const message = sealCtr(keys, { client_id: clientId, amount: '1' });

    const started = Date.now();
    const opened = await onB.open(message, undefined, (plaintext, id) => {
      return (JSON.parse(plaintext.toString('utf8')) as { client_id: string }).client_id === id;
    });
    expect(opened.clientId).toBe(clientId);
    expect(JSON.parse(opened.plaintext.toString('utf8'))).toEqual({ client_id: clientId, amount: '1' });
    // It waited for the throttle's next slot at most, not longer.
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it('a provider created in the millisecond the other keyring loaded is still found (loads are counted, not timed)', async () => {
    const store = new ContentProviderStore(db());
    const [onA, onB] = [new ProviderKeyring(store, box), new ProviderKeyring(store, box)];
    const clientId = `kr-${randomBytes(4).toString('hex')}`;
    await seedUser(db(), 7002);
    await seedClient(db(), clientId, 7002);
    // B's load, A's write and the request to B all fall in one millisecond (SQLite makes that common on a
    // fast machine). The timestamp version saw "a load started at or after the request" and answered 401.
    const now = vi.spyOn(Date, 'now').mockReturnValue(Date.now());
    let opening: Promise<unknown>;
    try {
      await onB.reload();
      const keys = (await onA.createClientKeys(clientId))!;
      opening = onB.open(sealCtr(keys, { client_id: clientId, amount: '2' }), undefined, (plaintext, id) => {
        return (JSON.parse(plaintext.toString('utf8')) as { client_id: string }).client_id === id;
      });
    } finally {
      now.mockRestore();
    }
    await expect(opening).resolves.toMatchObject({ clientId, form: 'ctr' });
  });

  it('an unknown payload is still refused, and a flood of them shares one load a second', async () => {
    const store = new ContentProviderStore(db());
    let loads = 0;
    const counting = new Proxy(store, {
      get(target, name, receiver) {
        if (name === 'listClientKeys') loads++;
        return Reflect.get(target, name, receiver) as unknown;
      },
    });
    const keyring = new ProviderKeyring(counting, box);
    await keyring.reload();
    loads = 0;
    const junk = () => `7b22${randomBytes(30).toString('hex')}`;
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, () => keyring.open(junk(), undefined, () => false)),
    );
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect(
      results
        .map((r) => (r as PromiseRejectedResult).reason as { code?: string })
        .every((e) => e.code === 'invalid_payload'),
    ).toBe(true);
    expect(loads).toBeLessThanOrEqual(2);
  });
});

describe.each(testDatabases)('provider keyring, legacy payloads of any length ($name)', (database) => {
  const db = useTestDatabase(database);
  const box = new SecretBox(randomBytes(32));

  // A payload that fits the key stream held per provider (512 bytes) is opened by a XOR; a longer one by the
  // cipher. Both must give exactly what AES-256-CTR gives, with and without client_id.
  it.each([2, 150, 511, 512, 513, 4000])('opens a %i-byte payload to its exact plaintext', async (length) => {
    const store = new ContentProviderStore(db());
    const keyring = new ProviderKeyring(store, box);
    const clientId = `len-${length}-${randomBytes(4).toString('hex')}`;
    await seedUser(db(), 7100 + length);
    await seedClient(db(), clientId, 7100 + length);
    const keys = (await keyring.createClientKeys(clientId))!;
    // `{"client_id":"…","pad":"xxx…"}` padded to `length` bytes (or `{}`).
    const prefix = JSON.stringify({ client_id: clientId, pad: '' }).slice(0, -2);
    const text = length === 2 ? '{}' : `${prefix}${'x'.repeat(length - prefix.length - 2)}"}`;
    expect(Buffer.byteLength(text)).toBe(length);
    const message = sealCtr(keys, JSON.parse(text) as object);
    const expected = Buffer.from(text);
    let seen: Buffer | undefined;
    const verify = (plaintext: Buffer) => {
      seen = plaintext;
      return true;
    };
    const hinted = await keyring.open(message, clientId, verify);
    expect(hinted.plaintext.equals(expected)).toBe(true);
    expect(seen?.equals(expected)).toBe(true);
    if (length > 2) {
      const found = await keyring.open(message, undefined, (p, id) => id === clientId && p.equals(expected));
      expect(found.clientId).toBe(clientId);
    }
  });
});
