import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { AccountLifeStore, ERASED } from '../../src/stores/accountLifeStore.js';
import { AuditLogStore } from '../../src/stores/auditLogStore.js';
import { OrgStore } from '../../src/stores/orgStore.js';
import { UserStore } from '../../src/stores/userStore.js';
import { testDatabases } from '../helpers/databases.js';
import { seedClient, seedUser, useTestDatabase } from './storeFixtures.js';

describe.each(testDatabases)('account life store ($name)', (database) => {
  const db = useTestDatabase(database);
  const audit = (id: string, actorUser: string | undefined, details: Record<string, unknown>) =>
    new AuditLogStore(db()).append(
      {
        id,
        at: 10,
        action: 'account.login',
        outcome: actorUser ? 'success' : 'denied',
        status: actorUser ? 200 : 401,
        errorCode: undefined,
        actorKind: actorUser ? 'user' : 'anonymous',
        actorUser,
        clientId: undefined,
        address: '127.0.0.1',
        requestId: `r-${id}`,
        details,
      },
      1,
    );
  const erase = (userUuid: number) =>
    new AccountLifeStore(db()).erase({
      userUuid,
      now: 1_000,
      reason: 'account_deleted',
      grantRevocation: (grantId) => ({ kind: 'grant', value: grantId, expiresAt: 5_000 }),
    });

  it('leaves a tombstone that names nobody, frees the e-mail and scrubs the audit entries naming it', async () => {
    await seedUser(db(), 7001, 'Gone@Example.com');
    await seedUser(db(), 7002, 'stays@example.com');
    await audit('a1', undefined, { email: 'GONE@example.com' });
    await audit('a2', '7001', { email: 'gone@example.com', note: 'n7001' });
    await audit('a3', undefined, { email: 'stays@example.com' });

    expect(await erase(7001)).toEqual({
      deletedAt: 1_000,
      revokedGrants: [],
      notifiedApps: [],
      sessionKeys: 0,
    });
    const users = new UserStore(db());
    expect(await users.findById(7001)).toMatchObject({ email: null, nickname: '', passwordHash: '' });
    expect(await users.loginCutoff(7001)).toEqual({ validAfter: Infinity, deleted: true });
    expect(await users.emailTaken('Gone@Example.com')).toBe(false);
    const rows = await db().selectFrom('audit_log').select(['id', 'details']).orderBy('id').execute();
    expect(rows.map((r) => [r.id, JSON.parse(r.details) as unknown])).toEqual([
      ['a1', { email: ERASED }],
      ['a2', { email: ERASED, note: ERASED }],
      ['a3', { email: 'stays@example.com' }],
    ]);
    // Erased once: a second erasure finds no live account.
    expect(await erase(7001)).toBeUndefined();
  });

  it("erases only values that equal the deleted e-mail or nickname: another account's entries whose address contains it stay intact", async () => {
    await seedUser(db(), 7201, 'x@gmail.com');
    await seedUser(db(), 7202, 'max@gmail.com');
    await audit('c1', '7202', { email: 'max@gmail.com', target: { email: 'MAX@gmail.com' }, note: 'n7201' });
    await audit('c2', undefined, { email: 'max@gmail.com', tried: ['x@gmail.com.evil', 'ax@gmail.com'] });
    await audit('c3', undefined, { email: 'X@Gmail.com', other: 'max@gmail.com' });
    await audit('c4', '7201', { email: 'x@gmail.com', nested: { who: ['n7201'] }, note: 'kept' });

    expect(await erase(7201)).toBeDefined();
    const rows = await db()
      .selectFrom('audit_log')
      .select(['id', 'details'])
      .where('id', 'like', 'c%')
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.id, JSON.parse(r.details) as unknown])).toEqual([
      ['c1', { email: 'max@gmail.com', target: { email: 'MAX@gmail.com' }, note: 'n7201' }],
      ['c2', { email: 'max@gmail.com', tried: ['x@gmail.com.evil', 'ax@gmail.com'] }],
      ['c3', { email: ERASED, other: 'max@gmail.com' }],
      ['c4', { email: ERASED, nested: { who: [ERASED] }, note: 'kept' }],
    ]);
  });

  it('keeps the audit log append-only but for an erasure of details', async () => {
    await audit('b1', '7100', { email: 'x@example.com' });
    const refused = [
      sql`update audit_log set action = 'forged' where id = 'b1'`,
      sql`update audit_log set details = '{"email":"y@example.com"}' where id = 'b1'`,
      sql`update audit_log set actor_user = null, details = '{"email":"[erased]"}' where id = 'b1'`,
      sql`delete from audit_log where id = 'b1'`,
    ];
    for (const statement of refused) {
      await expect(statement.execute(db())).rejects.toThrow(/append-only/);
    }
    await sql`update audit_log set details = '{"email":"[erased]"}' where id = 'b1'`.execute(db());
  });

  it('lists the live apps an account owns (a deletion waits for them)', async () => {
    await seedUser(db(), 7200);
    await seedClient(db(), 'owned-app', 7200);
    await seedClient(db(), 'gone-app', 7200);
    await db()
      .updateTable('oauth_clients')
      .set({ deleted_at: 5 })
      .where('client_id', '=', 'gone-app')
      .execute();
    expect(await new AccountLifeStore(db()).ownedApps(7200)).toEqual(['owned-app']);
  });

  it('counts the apps of the orgs it owns, not of those it is a member of; erasure ends its orgs and memberships', async () => {
    for (const uuid of [7300, 7301]) await seedUser(db(), uuid);
    const orgs = new OrgStore(db());
    await orgs.create({ id: 'org_owned', name: 'Owned', personal: false, createdAt: 1 }, 7300);
    await orgs.create({ id: 'org_theirs', name: 'Theirs', personal: false, createdAt: 1 }, 7301);
    const invitation = {
      id: 'inv_7300',
      orgId: 'org_theirs',
      email: 'user-7300@example.com',
      role: 'developer' as const,
      invitedBy: 7301,
      createdAt: 1,
      expiresAt: 10_000,
      acceptedAt: undefined,
      acceptedBy: undefined,
      revokedAt: undefined,
    };
    await orgs.insertInvitation(invitation, 'hash-7300');
    expect(await orgs.acceptInvitation(invitation, 7300, 2)).toBe(true);
    // 7300 registered an app in the org it only belongs to, and 7301 one in 7300's org.
    await seedClient(db(), 'member-app', 7300, { orgId: 'org_theirs' });
    await seedClient(db(), 'owned-org-app', 7301, { orgId: 'org_owned' });
    const life = new AccountLifeStore(db());
    expect(await life.ownedApps(7300)).toEqual(['owned-org-app']);
    expect(await life.ownedApps(7301)).toEqual(['member-app']);

    await db()
      .updateTable('oauth_clients')
      .set({ deleted_at: 5 })
      .where('client_id', '=', 'owned-org-app')
      .execute();
    expect(await life.ownedApps(7300)).toEqual([]);
    await erase(7300);
    expect(await orgs.find('org_owned')).toBeUndefined();
    expect(await orgs.roleOf('org_theirs', 7300)).toBeUndefined();
    expect((await orgs.members('org_theirs')).map((m) => m.userUuid)).toEqual([7301]);
  });
});
