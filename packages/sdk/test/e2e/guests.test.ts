import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DauthClient, GuestRequestError } from '../../src/index.js';
import { inCi } from '../../../server/test/helpers/environment.js';
import { startTestServer, type TestServer } from '../../../server/test/helpers/server.js';
import { newUser } from '../../../server/test/content/contentSupport.js';
import { commandAvailable, registerApp, type RegisteredApp, runChild } from './support.js';

/**
 * Guest create, login and upgrade (docs/players.md) through the three SDKs against one live dauth:
 * the TypeScript SDK here, the Python and Go SDKs' own suites as child processes.
 */

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const pythonAvailable = commandAvailable('python3', ['--version']);
const goAvailable = commandAvailable('go', ['version']);

describe('SDKs: guest accounts against a live dauth', () => {
  let server: TestServer;
  let app: RegisteredApp;
  let client: DauthClient;
  const redirectUri = 'https://game.example/dauth/callback';

  beforeAll(async () => {
    server = await startTestServer();
    const developer = await newUser(server, 'sdk-guest-dev');
    app = await registerApp(server.url, developer.token, 'Guest game', [redirectUri]);
    client = new DauthClient({
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri,
      authServerUrl: server.url,
    });
  });
  afterAll(async () => {
    await client?.shutdown();
    await server?.close();
  });

  const environment = () => ({
    DAUTH_E2E_URL: server.url,
    DAUTH_E2E_CLIENT_ID: app.clientId,
    DAUTH_E2E_CLIENT_SECRET: app.clientSecret,
    DAUTH_E2E_REDIRECT_URI: redirectUri,
  });

  it('TypeScript: createGuest → guestLogin → upgradeGuest keeps the uuid; the secret is refused after', async () => {
    const guest = await client.createGuest();
    expect(guest).toEqual({
      token: expect.any(String),
      uuid: expect.stringMatching(/^\d+$/),
      guestSecret: expect.any(String),
    });
    const session = await client.guestLogin(guest.uuid, guest.guestSecret);
    expect(session.uuid).toBe(guest.uuid);
    const email = `ts-${Date.now()}@example.com`;
    expect(await client.upgradeGuest(session.token, { email, password: 'correct horse battery' })).toBe(
      guest.uuid,
    );
    const refused = await client.guestLogin(guest.uuid, guest.guestSecret).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(GuestRequestError);
    expect(refused).toMatchObject({ responseStatus: 401, errorCode: 'invalid_credentials' });
    const taken = await client.createGuest();
    const conflict = await client
      .upgradeGuest(taken.token, { email, password: 'correct horse battery' })
      .catch((e: unknown) => e);
    expect(conflict).toMatchObject({ responseStatus: 409, errorCode: 'email_taken' });
  });

  it.skipIf(!pythonAvailable && !inCi)('Python: tests.test_guests_e2e passes', async () => {
    const result = await runChild('python3', ['-m', 'unittest', '-v', 'tests.test_guests_e2e'], {
      cwd: path.join(repoRoot, 'sdk', 'python'),
      env: { ...environment(), PYTHONDONTWRITEBYTECODE: '1' },
      timeoutMs: 120_000,
    });
    expect(result.exitCode, result.output).toBe(0);
    expect(result.output).toMatch(/test_create_login_upgrade .* ok/);
  });

  it.skipIf(!goAvailable && !inCi)('Go: TestGuestE2E passes', async () => {
    const result = await runChild('go', ['test', '-count=1', '-v', '-run', 'TestGuestE2E', './...'], {
      cwd: path.join(repoRoot, 'sdk', 'go'),
      env: { ...environment(), GOPROXY: 'off' },
      timeoutMs: 240_000,
    });
    expect(result.exitCode, result.output).toBe(0);
    expect(result.output).toMatch(/^--- PASS: TestGuestE2E/m);
  });
});
