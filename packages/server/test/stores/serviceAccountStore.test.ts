import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type ServiceAccount, ServiceAccountStore } from '../../src/stores/serviceAccountStore.js';
import { testDatabases } from '../helpers/databases.js';
import { useTestDatabase } from './storeFixtures.js';

const account = (orgId: string, overrides: Partial<ServiceAccount> = {}): ServiceAccount => ({
  clientId: `sa_${randomBytes(16).toString('hex')}`,
  orgId,
  name: 'CI',
  scopes: ['apps:read', 'players:read'],
  secretHash: 'a'.repeat(64),
  createdBy: 42,
  createdAt: 1000,
  lastUsedAt: undefined,
  ...overrides,
});

describe.each(testDatabases)('service account store ($name)', (database) => {
  const db = useTestDatabase(database);

  it('stores an account with its scopes, lists an org’s live accounts in creation order, and deletes one', async () => {
    const store = new ServiceAccountStore(db());
    const org = `org_${randomBytes(6).toString('hex')}`;
    const first = account(org, { createdAt: 1 });
    const second = account(org, { createdAt: 2, scopes: ['webhooks:write'] });
    const elsewhere = account(`org_${randomBytes(6).toString('hex')}`);
    for (const a of [second, first, elsewhere]) await store.insert(a);

    expect(await store.findById(first.clientId)).toEqual({ ...first, previousSecret: undefined });
    expect((await store.listByOrg(org)).map((a) => [a.clientId, a.scopes])).toEqual([
      [first.clientId, ['apps:read', 'players:read']],
      [second.clientId, ['webhooks:write']],
    ]);

    // Another org cannot delete it; its own can, once.
    expect(await store.markDeleted(elsewhere.orgId, first.clientId, 5)).toBe(false);
    expect(await store.markDeleted(org, first.clientId, 5)).toBe(true);
    expect(await store.markDeleted(org, first.clientId, 6)).toBe(false);
    expect(await store.findById(first.clientId)).toBeUndefined();
    expect((await store.listByOrg(org)).map((a) => a.clientId)).toEqual([second.clientId]);
  });

  it('rotates a secret keeping the old one until its grace ends, only in the account’s org', async () => {
    const store = new ServiceAccountStore(db());
    const a = account(`org_${randomBytes(6).toString('hex')}`);
    await store.insert(a);
    expect(await store.rotateSecret('org_other', a.clientId, 'b'.repeat(64), 9000)).toBe(false);
    expect(await store.rotateSecret(a.orgId, a.clientId, 'b'.repeat(64), 9000)).toBe(true);
    expect(await store.findById(a.clientId)).toMatchObject({
      secretHash: 'b'.repeat(64),
      previousSecret: { hash: 'a'.repeat(64), expiresAt: 9000 },
    });
  });

  it('notes its use at most once a minute', async () => {
    const store = new ServiceAccountStore(db());
    const a = account(`org_${randomBytes(6).toString('hex')}`);
    await store.insert(a);
    await store.noteUse(a.clientId, 100_000);
    await store.noteUse(a.clientId, 130_000);
    expect((await store.findById(a.clientId))?.lastUsedAt).toBe(100_000);
    await store.noteUse(a.clientId, 170_000);
    expect((await store.findById(a.clientId))?.lastUsedAt).toBe(170_000);
  });
});
