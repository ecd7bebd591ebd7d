import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestUser } from '../helpers/http.js';
import { bearer, post } from '../helpers/http.js';
import { runCli as dauth, startServerWithApp, type CliAppFixture } from './cliRunner.js';

describe('dauth players list | show | pregenerate | revoke through the running server', () => {
  let env: Record<string, string>;
  let owner: TestUser;
  let clientId: string;
  let fixture: CliAppFixture;
  let org: string;
  let account: { client_id: string; client_secret: string };
  beforeAll(async () => {
    fixture = await startServerWithApp({ name: 'Directory game', redirect_uris: ['https://dir.example/cb'] });
    ({ env, owner, clientId } = fixture);
    org = `org_u${owner.uuid}`;
    const made = await post(
      `${fixture.server.url}/v1/orgs/${org}/service-accounts`,
      { name: 'CLI', scopes: ['players:read', 'players:write'] },
      bearer(owner.loginToken),
    );
    expect(made.status).toBe(201);
    account = (await made.json()) as typeof account;
  }, 60_000);
  afterAll(() => fixture.close());

  const asOwner = () => [
    '--org',
    org,
    '--client-id',
    clientId,
    '--owner-email',
    owner.email,
    '--password-stdin',
  ];
  const asMachine = () => [
    '--org',
    org,
    '--client-id',
    clientId,
    '--sa-id',
    account.client_id,
    '--sa-secret-stdin',
  ];

  it('pre-generates as the service account; the directory lists only players who granted the app', async () => {
    const made = await dauth(
      ['players', 'pregenerate', ...asMachine(), '--email', 'cli-airdrop@example.com'],
      env,
      `${account.client_secret}\n`,
    );
    expect(made.code, made.stderr).toBe(0);
    const player = JSON.parse(made.stdout) as { user_id: string; wallet_address: string };
    expect(player.wallet_address).toMatch(/^0x[0-9a-fA-F]{40}$/);

    // A pre-generated player has granted nothing yet: the directory lists players who granted the app.
    const listed = await dauth(
      ['players', 'list', ...asOwner(), '--limit', '10'],
      env,
      `${owner.password}\n`,
    );
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject({ success: true, players: [], next_cursor: null });

    const shown = await dauth(
      ['players', 'show', ...asOwner(), '--user-id', player.user_id],
      env,
      `${owner.password}\n`,
    );
    expect(shown.code).toBe(1);
    expect(shown.stderr).toContain('player_not_found');
  });

  it('refuses a wrong invocation with its usage', async () => {
    const wrong = await dauth(['players', 'pregenerate', ...asMachine()], env, `${account.client_secret}\n`);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--email');
  });
});
