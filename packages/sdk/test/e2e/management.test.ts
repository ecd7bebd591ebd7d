import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inCi } from '../../../server/test/helpers/environment.js';
import { commandAvailable, runChild } from './support.js';
import { DauthManagementClient, ManagementError } from '../../src/index.js';
import { startTestServer, type TestServer } from '../../../server/test/helpers/server.js';
import {
  bearer,
  createClient,
  createUser,
  post,
  type TestClient,
  type TestUser,
} from '../../../server/test/helpers/http.js';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const pythonAvailable = commandAvailable('python3', ['--version']);

/**
 * The management client (docs/machines.md) against a live dauth: a service account's client_credentials
 * token, the players directory and pre-generation.
 */
describe('DauthManagementClient', () => {
  let server: TestServer;
  let owner: TestUser;
  let app: TestClient;
  let player: TestUser;
  let org: string;
  let account: { client_id: string; client_secret: string };

  beforeAll(async () => {
    server = await startTestServer();
    owner = await createUser(server.url);
    app = await createClient(server.url, owner, ['https://game.example/cb']);
    org = `org_u${owner.uuid}`;
    player = await createUser(server.url);
    const login = await post(`${server.url}/v1/dev-user/login_devuser`, {
      email: player.email,
      password: player.password,
      client_id: app.clientId,
    });
    const bound = ((await login.json()) as { token: string }).token;
    const query = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: app.redirectUri,
      response_type: 'code',
    });
    const redirect = await fetch(`${server.url}/oauth/authorize?${query}`, {
      headers: bearer(bound),
      redirect: 'manual',
    });
    const code = new URL(redirect.headers.get('location')!).searchParams.get('code')!;
    const exchanged = await post(`${server.url}/oauth/token`, {
      grant_type: 'authorization_code',
      client_id: app.clientId,
      client_secret: app.clientSecret,
      code,
      redirect_uri: app.redirectUri,
    });
    expect(exchanged.status).toBe(200);
    const made = await post(
      `${server.url}/v1/orgs/${org}/service-accounts`,
      { name: 'Live ops', scopes: ['players:read', 'players:write'] },
      bearer(owner.loginToken),
    );
    expect(made.status).toBe(201);
    account = (await made.json()) as typeof account;
  });
  afterAll(() => server?.close());

  const client = (scopes?: string[]) =>
    new DauthManagementClient({
      authServerUrl: server.url,
      clientId: account.client_id,
      clientSecret: account.client_secret,
      orgId: org,
      ...(scopes ? { scopes } : {}),
    });

  it('lists, finds and reads players with a client_credentials token', async () => {
    const management = client();
    const page = await management.listPlayers(app.clientId);
    expect(page.players.map((p) => p.user_id)).toEqual([player.uuid]);
    const all = [];
    for await (const p of management.allPlayers(app.clientId, 1)) all.push(p.user_id);
    expect(all).toEqual([player.uuid]);
    expect((await management.listPlayers(app.clientId, { q: player.uuid })).players).toHaveLength(1);
    expect(await management.getPlayer(app.clientId, player.uuid)).toMatchObject({
      user_id: player.uuid,
      slots: [],
      session_keys: [],
    });
  });

  it('pre-generates a player once, answering the same player again', async () => {
    const management = client();
    const first = await management.pregeneratePlayer(app.clientId, { email: 'airdrop@example.com' });
    expect(first.created).toBe(true);
    expect(first.wallet_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(await management.pregeneratePlayer(app.clientId, { email: 'AIRDROP@example.com' })).toEqual({
      ...first,
      created: false,
    });
  });

  it.skipIf(!pythonAvailable && !inCi)('Python: tests.test_management_e2e passes', async () => {
    const result = await runChild('python3', ['-m', 'unittest', '-v', 'tests.test_management_e2e'], {
      cwd: path.join(repoRoot, 'sdk', 'python'),
      env: {
        ...(process.env as Record<string, string>),
        PYTHONDONTWRITEBYTECODE: '1',
        DAUTH_E2E_URL: server.url,
        DAUTH_E2E_ORG: org,
        DAUTH_E2E_SA_ID: account.client_id,
        DAUTH_E2E_SA_SECRET: account.client_secret,
        DAUTH_E2E_CLIENT_ID: app.clientId,
        DAUTH_E2E_PLAYER: player.uuid,
      },
      timeoutMs: 120_000,
    });
    expect(result.exitCode, result.output).toBe(0);
    expect(result.output).toMatch(/test_players_and_pregeneration .* ok/);
  });

  it('surfaces a missing scope as ManagementError insufficient_scope', async () => {
    const readOnly = client(['players:read']);
    await expect(readOnly.revokePlayer(app.clientId, player.uuid)).rejects.toMatchObject({
      status: 403,
      code: 'insufficient_scope',
    });
    await expect(readOnly.revokePlayer(app.clientId, player.uuid)).rejects.toBeInstanceOf(ManagementError);
    expect(await client().revokePlayer(app.clientId, player.uuid)).toMatchObject({ revoked_grants: 1 });
  });
});
