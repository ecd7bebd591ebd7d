import { describe, expect, it } from 'vitest';
import { ClientStore } from '../../src/stores/clientStore.js';
import { type OrgInvitation, OrgStore, personalOrgId } from '../../src/stores/orgStore.js';
import { testDatabases } from '../helpers/databases.js';
import { seedClient, seedUser, useTestDatabase } from './storeFixtures.js';

const invitation = (id: string, orgId: string, extra: Partial<OrgInvitation> = {}): OrgInvitation => ({
  id,
  orgId,
  email: `${id}@example.com`,
  role: 'developer',
  invitedBy: 1,
  createdAt: 100,
  expiresAt: 1_000,
  acceptedAt: undefined,
  acceptedBy: undefined,
  revokedAt: undefined,
  ...extra,
});

describe.each(testDatabases)('organization store ($name)', (database) => {
  const db = useTestDatabase(database);
  const store = () => new OrgStore(db());

  it('creates an organization with its owner and lists it with the role', async () => {
    await seedUser(db(), 101);
    await store().create({ id: 'org_a', name: 'Studio A', personal: false, createdAt: 10 }, 101);
    expect(await store().find('org_a')).toEqual({
      id: 'org_a',
      name: 'Studio A',
      personal: false,
      createdAt: 10,
    });
    expect(await store().roleOf('org_a', 101)).toBe('owner');
    expect(await store().roleOf('org_a', 999)).toBeUndefined();
    expect(await store().listForUser(101)).toEqual([
      { id: 'org_a', name: 'Studio A', personal: false, createdAt: 10, role: 'owner' },
    ]);
    expect(await store().rename('org_a', 'Studio Alpha')).toBe(true);
    expect((await store().find('org_a'))?.name).toBe('Studio Alpha');
    expect(await store().rename('org_missing', 'x')).toBe(false);
  });

  it('creates the personal organization once, however often it is asked for', async () => {
    await seedUser(db(), 102);
    const [a, b] = await Promise.all([store().ensurePersonal(102, 5), store().ensurePersonal(102, 6)]);
    expect(a.id).toBe(personalOrgId(102));
    expect(b).toEqual(a);
    expect(a.personal).toBe(true);
    expect(await store().listForUser(102)).toHaveLength(1);
    expect(await store().roleOf(a.id, 102)).toBe('owner');
  });

  it('changes roles and removes members but never the owner; transfers ownership', async () => {
    for (const uuid of [111, 112, 113]) await seedUser(db(), uuid);
    await store().create({ id: 'org_m', name: 'M', personal: false, createdAt: 1 }, 111);
    const s = store();
    // Members join through invitations.
    await s.insertInvitation(invitation('inv_m1', 'org_m', { role: 'viewer' }), 'hash-m1');
    await s.insertInvitation(invitation('inv_m2', 'org_m', { role: 'admin' }), 'hash-m2');
    expect(await s.acceptInvitation(invitation('inv_m1', 'org_m', { role: 'viewer' }), 112, 200)).toBe(true);
    expect(await s.acceptInvitation(invitation('inv_m2', 'org_m', { role: 'admin' }), 113, 200)).toBe(true);
    expect((await s.members('org_m')).map((m) => [m.userUuid, m.role, m.email])).toEqual([
      [111, 'owner', 'user-111@example.com'],
      [112, 'viewer', 'user-112@example.com'],
      [113, 'admin', 'user-113@example.com'],
    ]);
    expect(await s.setRole('org_m', 112, 'developer')).toBe(true);
    expect(await s.roleOf('org_m', 112)).toBe('developer');
    expect(await s.setRole('org_m', 111, 'viewer')).toBe(false);
    expect(await s.removeMember('org_m', 111)).toBe(false);
    expect(await s.roleOf('org_m', 111)).toBe('owner');

    expect(await s.transferOwnership('org_m', 111, 999)).toBe(false);
    expect(await s.roleOf('org_m', 111)).toBe('owner');
    expect(await s.transferOwnership('org_m', 111, 113)).toBe(true);
    expect(await s.roleOf('org_m', 113)).toBe('owner');
    expect(await s.roleOf('org_m', 111)).toBe('admin');

    expect(await s.removeMember('org_m', 112)).toBe(true);
    expect(await s.roleOf('org_m', 112)).toBeUndefined();
    expect(await s.removeMember('org_m', 112)).toBe(false);
  });

  it('spends an invitation once, never after its expiry or revocation', async () => {
    for (const uuid of [121, 122, 123]) await seedUser(db(), uuid);
    await store().create({ id: 'org_i', name: 'I', personal: false, createdAt: 1 }, 121);
    const s = store();
    const pending = invitation('inv_i1', 'org_i');
    await s.insertInvitation(pending, 'hash-i1');
    expect(await s.findInvitationByHash('hash-i1')).toEqual(pending);
    expect(await s.findInvitationByHash('nope')).toBeUndefined();
    const results = await Promise.all([
      s.acceptInvitation(pending, 122, 500),
      s.acceptInvitation(pending, 123, 500),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const spent = await s.findInvitationByHash('hash-i1');
    expect(spent?.acceptedAt).toBe(500);
    expect([122, 123]).toContain(spent?.acceptedBy);

    const expired = invitation('inv_i2', 'org_i', { expiresAt: 400 });
    await s.insertInvitation(expired, 'hash-i2');
    expect(await s.acceptInvitation(expired, 123, 400)).toBe(false);

    const revoked = invitation('inv_i3', 'org_i');
    await s.insertInvitation(revoked, 'hash-i3');
    expect(await s.revokeInvitation('org_other', 'inv_i3', 300)).toBe(false);
    expect(await s.revokeInvitation('org_i', 'inv_i3', 300)).toBe(true);
    expect(await s.revokeInvitation('org_i', 'inv_i3', 301)).toBe(false);
    expect(await s.acceptInvitation(revoked, 123, 350)).toBe(false);
    expect((await s.invitations('org_i')).map((i) => i.id).sort()).toEqual(['inv_i1', 'inv_i2', 'inv_i3']);
  });

  it('resolves an app to its organization and the caller role; deletes an org only without live apps', async () => {
    for (const uuid of [131, 132]) await seedUser(db(), uuid);
    await store().create({ id: 'org_d', name: 'D', personal: false, createdAt: 1 }, 131);
    await seedClient(db(), 'app-d', 131, { orgId: 'org_d' });
    await seedClient(db(), 'app-legacy', 132);
    const s = store();
    expect(await s.appRole('app-d', 131)).toEqual({ clientId: 'app-d', orgId: 'org_d', role: 'owner' });
    expect(await s.appRole('app-d', 132)).toEqual({ clientId: 'app-d', orgId: 'org_d', role: undefined });
    expect(await s.appRole('missing', 131)).toBeUndefined();
    // An app no migration placed in an organization is its owner's alone.
    expect(await s.appRole('app-legacy', 132)).toEqual({
      clientId: 'app-legacy',
      orgId: undefined,
      role: 'owner',
    });
    expect(await s.appRole('app-legacy', 131)).toEqual({
      clientId: 'app-legacy',
      orgId: undefined,
      role: undefined,
    });
    expect((await new ClientStore(db()).listByOrgs(['org_d'])).map((c) => c.clientId)).toEqual(['app-d']);

    await s.insertInvitation(invitation('inv_d', 'org_d'), 'hash-d');
    expect(await s.markDeleted('org_d', 50)).toBe(false);
    expect(await new ClientStore(db()).markDeleted('app-d', 40)).toBe(true);
    expect(await s.orgOfClient('app-d')).toBe('org_d');
    expect(await s.markDeleted('org_d', 50)).toBe(true);
    expect(await s.find('org_d')).toBeUndefined();
    expect(await s.roleOf('org_d', 131)).toBeUndefined();
    expect(await s.listForUser(131)).toEqual([]);
    expect((await s.findInvitationByHash('hash-d'))?.revokedAt).toBe(50);
    expect(await s.markDeleted('org_d', 60)).toBe(false);
  });

  it('keeps the audit log newest first with a cursor', async () => {
    const s = store();
    for (let i = 0; i < 5; i++) {
      await s.appendAudit({
        id: `a${i}`,
        orgId: 'org_log',
        at: 1_000 + Math.floor(i / 2),
        actorUser: '7',
        action: `act.${i}`,
        clientId: i === 0 ? 'app-x' : undefined,
        details: { n: i },
      });
    }
    await s.appendAudit({
      id: 'z',
      orgId: 'org_else',
      at: 5_000,
      actorUser: undefined,
      action: 'x',
      clientId: undefined,
      details: {},
    });
    const first = await s.audit('org_log', { limit: 3 });
    expect(first.map((e) => e.id)).toEqual(['a4', 'a3', 'a2']);
    const last = first.at(-1)!;
    const second = await s.audit('org_log', { limit: 3, before: { at: last.at, id: last.id } });
    expect(second.map((e) => e.id)).toEqual(['a1', 'a0']);
    expect(second[1]).toEqual({
      id: 'a0',
      orgId: 'org_log',
      at: 1_000,
      actorUser: '7',
      action: 'act.0',
      clientId: 'app-x',
      details: { n: 0 },
    });
  });
});
