import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, type TestUser } from '../helpers/http.js';
import { waitForMail } from '../helpers/outbox.js';
import type { TestServer } from '../helpers/server.js';
import { runCli as dauth, startServerWithApp, type CliAppFixture } from './cliRunner.js';

describe('dauth org list | create | members | invite | accept through the running server', () => {
  let server: TestServer;
  let env: Record<string, string>;
  let owner: TestUser;
  let fixture: CliAppFixture;
  beforeAll(async () => {
    fixture = await startServerWithApp({ name: 'Org game', redirect_uris: ['https://org.example/cb'] });
    ({ server, env, owner } = fixture);
  }, 60_000);
  afterAll(() => fixture.close());

  const as = (user: TestUser) => ['--email', user.email, '--password-stdin'];
  const run = async (args: string[], user: TestUser) => {
    const result = await dauth(args, env, `${user.password}\n`);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  };

  it('creates an org, invites by mail, the invitee accepts, and the members show both', async () => {
    const created = await run(['org', 'create', ...as(owner), '--name', 'CLI Studio'], owner);
    expect(created).toEqual({ success: true, id: expect.stringMatching(/^org_/), name: 'CLI Studio' });
    const orgId = created.id as string;
    const listed = await run(['org', 'list', ...as(owner)], owner);
    expect((listed.orgs as { id: string; role: string }[]).map((o) => [o.id, o.role])).toEqual(
      expect.arrayContaining([
        [`org_u${owner.uuid}`, 'owner'],
        [orgId, 'owner'],
      ]),
    );

    const invitee = await createUser(server.url, 'cli-invitee');
    const since = Date.now();
    const invited = await run(
      ['org', 'invite', ...as(owner), '--org-id', orgId, '--invitee', invitee.email, '--role', 'developer'],
      owner,
    );
    expect(invited.invitation).toMatchObject({ email: invitee.email, role: 'developer', status: 'pending' });
    const mail = await waitForMail(server.dataDir, invitee.email, {
      since,
      includes: '/console/invitations?token=',
    });
    const token = /\/console\/invitations\?token=([A-Za-z0-9_-]+)/.exec(mail.text)![1]!;
    const accepted = await run(['org', 'accept', ...as(invitee), `--token=${token}`], invitee);
    expect(accepted).toEqual({ success: true, org_id: orgId, name: 'CLI Studio', role: 'developer' });

    const members = await run(['org', 'members', ...as(invitee), '--org-id', orgId], invitee);
    expect((members.members as { user_id: string; role: string }[]).map((m) => [m.user_id, m.role])).toEqual([
      [owner.uuid, 'owner'],
      [invitee.uuid, 'developer'],
    ]);
    const refused = await dauth(
      [
        'org',
        'invite',
        ...as(owner),
        '--org-id',
        'org_missing',
        '--invitee',
        'x@example.com',
        '--role',
        'viewer',
      ],
      env,
      `${owner.password}\n`,
    );
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stderr)).toMatchObject({ success: false, error: 'org_not_found' });
  });
});
