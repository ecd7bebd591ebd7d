import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  addMember,
  api,
  createOrg,
  createOrgApp,
  createUser,
  GENEROUS_LIMITS,
  invitationToken,
  type TestUser,
} from './support.js';

describe.each([false, true])('organizations (postgres: %s)', (postgres) => {
  let server: TestServer;
  let owner: TestUser;
  beforeAll(async () => {
    server = await startTestServer({ postgres, env: { RATE_LIMITS: GENEROUS_LIMITS } });
    owner = await createUser(server.url, 'owner');
  }, 120_000);
  afterAll(() => server?.close());

  const invite = async (orgId: string, email: string, role = 'developer', by = owner) => {
    const since = Date.now();
    const invited = await api(server, 'POST', `/v1/orgs/${orgId}/invitations`, by.loginToken, {
      email,
      role,
    });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    return {
      id: (invited.body.invitation as { id: string }).id,
      token: await invitationToken(server, email.toLowerCase(), since),
    };
  };

  it('creates an organization, lists it with the role, and puts a new app without org_id in the personal org', async () => {
    const created = await api(server, 'POST', '/v1/orgs', owner.loginToken, { name: '  Night Owl Studio ' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      success: true,
      id: expect.stringMatching(/^org_[0-9a-f]{24}$/),
      name: 'Night Owl Studio',
    });
    const personalApp = await createOrgApp(server, owner, undefined, 'Solo game');
    const listed = await api(server, 'GET', '/v1/orgs', owner.loginToken);
    expect(listed.body.orgs).toEqual(
      expect.arrayContaining([
        {
          id: created.body.id,
          name: 'Night Owl Studio',
          personal: false,
          role: 'owner',
          created_at: expect.any(String),
        },
        {
          id: `org_u${owner.uuid}`,
          name: 'Personal',
          personal: true,
          role: 'owner',
          created_at: expect.any(String),
        },
      ]),
    );
    const app = await api(
      server,
      'GET',
      `/v1/orgs/org_u${owner.uuid}/apps/${personalApp.clientId}`,
      owner.loginToken,
    );
    expect(app.body.app).toMatchObject({
      client_id: personalApp.clientId,
      name: 'Solo game',
      org_id: `org_u${owner.uuid}`,
    });
    // The personal org holds an app and is personal: neither deleted nor handed over.
    const del = await api(server, 'DELETE', `/v1/orgs/org_u${owner.uuid}`, owner.loginToken);
    expect([del.status, del.body.error]).toEqual([409, 'personal_org']);
  });

  it('mails an invitation with the console link and the token alone on a line; single use; the invited address only', async () => {
    const orgId = await createOrg(server, owner, 'Invites');
    const invitee = await createUser(server.url, 'invitee');
    const stranger = await createUser(server.url, 'stranger');
    const { token } = await invite(orgId, invitee.email.toUpperCase(), 'viewer');

    const wrongAccount = await api(server, 'POST', '/v1/orgs/invitations/accept', stranger.loginToken, {
      token,
    });
    expect([wrongAccount.status, wrongAccount.body.error]).toEqual([403, 'invitation_email_mismatch']);
    const unknown = await api(server, 'POST', '/v1/orgs/invitations/accept', invitee.loginToken, {
      token: 'x'.repeat(43),
    });
    expect([unknown.status, unknown.body.error]).toEqual([404, 'invitation_not_found']);

    const accepted = await api(server, 'POST', '/v1/orgs/invitations/accept', invitee.loginToken, { token });
    expect(accepted.body).toEqual({ success: true, org_id: orgId, name: 'Invites', role: 'viewer' });
    const again = await api(server, 'POST', '/v1/orgs/invitations/accept', invitee.loginToken, { token });
    expect([again.status, again.body.error]).toEqual([409, 'invitation_used']);

    const members = await api(server, 'GET', `/v1/orgs/${orgId}/members`, invitee.loginToken);
    expect(members.body.members).toEqual([
      expect.objectContaining({ user_id: owner.uuid, role: 'owner', email: owner.email }),
      expect.objectContaining({ user_id: invitee.uuid, role: 'viewer', email: invitee.email }),
    ]);
    const list = await api(server, 'GET', `/v1/orgs/${orgId}/invitations`, owner.loginToken);
    expect(list.body.invitations).toEqual([
      expect.objectContaining({
        email: invitee.email,
        role: 'viewer',
        status: 'accepted',
        accepted_by: invitee.uuid,
      }),
    ]);
    // A viewer may not invite, nor read the invitations.
    const asViewer = await api(server, 'POST', `/v1/orgs/${orgId}/invitations`, invitee.loginToken, {
      email: 'x@example.com',
      role: 'viewer',
    });
    expect([asViewer.status, asViewer.body.error]).toEqual([403, 'forbidden_role']);
    const ownerRole = await api(server, 'POST', `/v1/orgs/${orgId}/invitations`, owner.loginToken, {
      email: 'x@example.com',
      role: 'owner',
    });
    expect([ownerRole.status, ownerRole.body.error]).toEqual([400, 'invalid_request']);
  });

  it('refuses a revoked or an expired invitation with a clear 410', async () => {
    const orgId = await createOrg(server, owner, 'Expiry');
    const late = await createUser(server.url, 'late');
    const revoked = await invite(orgId, late.email);
    const revoke = await api(
      server,
      'DELETE',
      `/v1/orgs/${orgId}/invitations/${revoked.id}`,
      owner.loginToken,
    );
    expect(revoke.status).toBe(200);
    const afterRevoke = await api(server, 'POST', '/v1/orgs/invitations/accept', late.loginToken, {
      token: revoked.token,
    });
    expect([afterRevoke.status, afterRevoke.body.error]).toEqual([410, 'invitation_revoked']);

    const expired = await invite(orgId, late.email);
    // Seven days later (the stored expiry moved back instead of the clock forward).
    await sql`update org_invitations set expires_at = ${Date.now() - 1} where id = ${expired.id}`.execute(
      server.services.database.db,
    );
    const afterExpiry = await api(server, 'POST', '/v1/orgs/invitations/accept', late.loginToken, {
      token: expired.token,
    });
    expect([afterExpiry.status, afterExpiry.body.error]).toEqual([410, 'invitation_expired']);
    const statuses = (await api(server, 'GET', `/v1/orgs/${orgId}/invitations`, owner.loginToken)).body
      .invitations as { status: string }[];
    expect(statuses.map((i) => i.status).sort()).toEqual(['expired', 'revoked']);
    expect((await api(server, 'GET', `/v1/orgs/${orgId}/members`, late.loginToken)).body.error).toBe(
      'org_not_found',
    );
  });

  it('changes roles, removes members, transfers ownership and deletes only an org without apps', async () => {
    const orgId = await createOrg(server, owner, 'Lifecycle');
    const admin = await createUser(server.url, 'admin');
    const dev = await createUser(server.url, 'dev');
    await addMember(server, owner, orgId, admin, 'admin');
    await addMember(server, owner, orgId, dev, 'developer');

    const demoteOwner = await api(
      server,
      'PATCH',
      `/v1/orgs/${orgId}/members/${owner.uuid}`,
      admin.loginToken,
      {
        role: 'viewer',
      },
    );
    expect([demoteOwner.status, demoteOwner.body.error]).toEqual([409, 'owner_must_transfer']);
    expect(
      (await api(server, 'PATCH', `/v1/orgs/${orgId}/members/${dev.uuid}`, dev.loginToken, { role: 'admin' }))
        .body.error,
    ).toBe('forbidden_role');
    expect(
      (
        await api(server, 'PATCH', `/v1/orgs/${orgId}/members/${dev.uuid}`, admin.loginToken, {
          role: 'viewer',
        })
      ).status,
    ).toBe(200);
    const renamed = await api(server, 'PATCH', `/v1/orgs/${orgId}`, admin.loginToken, {
      name: 'Lifecycle 2',
    });
    expect(renamed.body).toEqual({ success: true, id: orgId, name: 'Lifecycle 2' });

    // Only the owner transfers; the new owner must be a member.
    const byAdmin = await api(server, 'POST', `/v1/orgs/${orgId}/transfer`, admin.loginToken, {
      user_id: admin.uuid,
    });
    expect([byAdmin.status, byAdmin.body.error]).toEqual([403, 'forbidden_role']);
    const toStranger = await api(server, 'POST', `/v1/orgs/${orgId}/transfer`, owner.loginToken, {
      user_id: '12345',
    });
    expect([toStranger.status, toStranger.body.error]).toEqual([404, 'member_not_found']);
    expect(
      (await api(server, 'POST', `/v1/orgs/${orgId}/transfer`, owner.loginToken, { user_id: admin.uuid }))
        .status,
    ).toBe(200);
    const roles = (await api(server, 'GET', `/v1/orgs/${orgId}/members`, owner.loginToken)).body.members as {
      user_id: string;
      role: string;
    }[];
    expect(Object.fromEntries(roles.map((m) => [m.user_id, m.role]))).toEqual({
      [owner.uuid]: 'admin',
      [admin.uuid]: 'owner',
      [dev.uuid]: 'viewer',
    });

    // A member leaves; the old owner (now admin) removes nobody above them.
    expect(
      (await api(server, 'DELETE', `/v1/orgs/${orgId}/members/${dev.uuid}`, dev.loginToken)).status,
    ).toBe(200);
    const removeOwner = await api(
      server,
      'DELETE',
      `/v1/orgs/${orgId}/members/${admin.uuid}`,
      owner.loginToken,
    );
    expect([removeOwner.status, removeOwner.body.error]).toEqual([409, 'owner_must_transfer']);

    const app = await createOrgApp(server, admin, orgId);
    const withApp = await api(server, 'DELETE', `/v1/orgs/${orgId}`, admin.loginToken);
    expect([withApp.status, withApp.body.error]).toEqual([409, 'org_has_apps']);
    expect(
      (await api(server, 'DELETE', `/v1/dev-user/clients/${app.clientId}`, owner.loginToken)).status,
    ).toBe(200);
    expect((await api(server, 'DELETE', `/v1/orgs/${orgId}`, owner.loginToken)).body.error).toBe(
      'forbidden_role',
    );
    expect((await api(server, 'DELETE', `/v1/orgs/${orgId}`, admin.loginToken)).status).toBe(200);
    expect((await api(server, 'GET', `/v1/orgs/${orgId}`, admin.loginToken)).body.error).toBe(
      'org_not_found',
    );
    expect(
      ((await api(server, 'GET', '/v1/orgs', admin.loginToken)).body.orgs as { id: string }[]).map(
        (o) => o.id,
      ),
    ).not.toContain(orgId);
  });

  it('creates an app in a named org only for a developer or higher there', async () => {
    const orgId = await createOrg(server, owner, 'Apps');
    const viewer = await createUser(server.url, 'viewer');
    await addMember(server, owner, orgId, viewer, 'viewer');
    const refused = await api(server, 'POST', '/v1/dev-user/clients', viewer.loginToken, {
      name: 'Nope',
      redirect_uris: ['https://game.example/cb'],
      org_id: orgId,
    });
    expect([refused.status, refused.body.error]).toEqual([403, 'forbidden_role']);
    const elsewhere = await api(server, 'POST', '/v1/dev-user/clients', viewer.loginToken, {
      name: 'Nope',
      redirect_uris: ['https://game.example/cb'],
      org_id: 'org_000000000000000000000000',
    });
    expect([elsewhere.status, elsewhere.body.error]).toEqual([404, 'org_not_found']);
    const app = await createOrgApp(server, owner, orgId);
    // The viewer sees the org's app in its own list too.
    const own = await api(server, 'GET', '/v1/dev-user/clients', viewer.loginToken);
    expect(
      (own.body.clients as { client_id: string; org_id: string }[]).find((c) => c.client_id === app.clientId),
    ).toMatchObject({
      org_id: orgId,
    });
  });
});
