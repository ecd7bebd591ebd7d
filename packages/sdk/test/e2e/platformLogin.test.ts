import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DauthClient,
  MfaRequiredError,
  type PlatformCredential,
  PlatformBannedError,
  PlatformRejectedError,
} from '../../src/index.js';
import { inCi } from '../../../server/test/helpers/environment.js';
import {
  type PlatformFakes,
  startCredentialDesk,
  startPlatformFakes,
} from '../../../server/test/helpers/platformFakes.js';
import { startTestServer, type TestServer } from '../../../server/test/helpers/server.js';
import { newUser } from '../../../server/test/content/contentSupport.js';
import { commandAvailable, enrolTotp, registerApp, type RegisteredApp, runChild } from './support.js';

/**
 * Platform sign-in inside the game (issue 40, docs/federation.md) through the SDKs against one live
 * dauth whose four platform kinds point at the local fakes (server/test/helpers/platformFakes.ts): the
 * TypeScript SDK in this file; the Python, Go and C# SDKs' own suites as child processes, which take
 * fresh credentials from the fakes' credential desk (`DAUTH_E2E_PLATFORM_DESK`).
 */

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const pythonAvailable = commandAvailable('python3', ['--version']);
const goAvailable = commandAvailable('go', ['version']);
const monoAvailable = commandAvailable('mcs', ['--version']) && commandAvailable('mono', ['--version']);

describe('SDKs: platform sign-in against a live dauth', () => {
  let fakes: PlatformFakes;
  let desk: { url: string; close(): Promise<void> };
  let server: TestServer;
  let app: RegisteredApp;
  let client: DauthClient;
  const redirectUri = 'https://game.example/dauth/callback';
  let counter = 0;
  const unique = (prefix: string) => `${prefix}${Date.now()}${++counter}`;
  const steamId = () => `7656119${String(Date.now() % 1e9).padStart(9, '0')}${++counter % 10}`;

  beforeAll(async () => {
    fakes = await startPlatformFakes();
    desk = await startCredentialDesk(fakes);
    server = await startTestServer({
      env: {
        RATE_LIMITS: 'platform_login=1000/1m',
        IDENTITY_PROVIDERS: JSON.stringify(
          fakes.entries({
            steam: 'steam_ticket',
            epic: 'epic',
            gameCenter: 'game_center',
            playGames: 'google_play_games',
          }),
        ),
      },
    });
    const developer = await newUser(server, 'sdk-platform-dev');
    app = await registerApp(server.url, developer.token, 'Platform game', [redirectUri]);
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
    await desk?.close();
    await fakes?.close();
  });

  it('TypeScript: each kind signs in (created, then found) with a login JWT bound to the app', async () => {
    const kinds: [string, () => Promise<PlatformCredential>][] = [
      ['steam_ticket', () => Promise.resolve({ ticket: fakes.steam.issue({ steamid: steamId() }) })],
      ['epic', async () => ({ id_token: await fakes.eos.mint(unique('0002')) })],
      [
        'game_center',
        () =>
          Promise.resolve(
            fakes.gameCenter.sign({
              teamPlayerId: unique('T:_'),
              bundleId: fakes.bundleId,
            }) as PlatformCredential,
          ),
      ],
      [
        'google_play_games',
        () => Promise.resolve({ server_auth_code: fakes.playGames.issueCode(unique('g')) }),
      ],
    ];
    for (const [provider, credential] of kinds) {
      const first = await client.platformLogin(provider, await credential());
      expect(first, provider).toEqual({
        token: expect.any(String),
        uuid: expect.stringMatching(/^\d+$/),
        created: true,
      });
      expect(decodeJwt(first.token)).toMatchObject({ azp: app.clientId, amr: ['fed'] });
    }
    const id = steamId();
    const first = await client.platformLogin('steam_ticket', { ticket: fakes.steam.issue({ steamid: id }) });
    const again = await client.platformLogin('steam_ticket', { ticket: fakes.steam.issue({ steamid: id }) });
    expect(again).toEqual({ token: expect.any(String), uuid: first.uuid, created: false });
    const [identity] = await client.listIdentities(first.token);
    expect(identity).toMatchObject({ provider: 'steam', providerName: 'Steam', subject: id });
  });

  it('TypeScript: refusals are typed: PlatformRejectedError (401), PlatformBannedError (403), MfaRequiredError', async () => {
    const replayed = { ticket: fakes.steam.issue({ steamid: steamId() }) };
    await client.platformLogin('steam_ticket', replayed);
    const again = await client.platformLogin('steam_ticket', replayed).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(PlatformRejectedError);
    expect(again).toMatchObject({ responseStatus: 401, errorCode: 'platform_rejected' });
    const code = await client
      .platformLogin('google_play_games', { server_auth_code: 'never-issued' })
      .catch((e: unknown) => e);
    expect(code).toBeInstanceOf(PlatformRejectedError);
    const banned = await client
      .platformLogin('steam_ticket', {
        ticket: fakes.steam.issue({ steamid: steamId(), publisherbanned: true }),
      })
      .catch((e: unknown) => e);
    expect(banned).toBeInstanceOf(PlatformBannedError);
    expect(banned).toMatchObject({ responseStatus: 403, errorCode: 'platform_banned' });

    // An account with TOTP: the platform sign-in is the first step.
    const consoleLogin = await newUser(server, 'sdk-platform-mfa', { clientId: 'dauth:console' });
    const puid = unique('0002');
    const linked = await fetch(`${server.url}/v1/dev-user/identities`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${consoleLogin.token}` },
      body: JSON.stringify({ provider: 'epic', credential: { id_token: await fakes.eos.mint(puid) } }),
    });
    expect(linked.status).toBe(201);
    await enrolTotp(server.url, consoleLogin.token);
    const mfa = await client
      .platformLogin('epic', { id_token: await fakes.eos.mint(puid) })
      .catch((e: unknown) => e);
    expect(mfa).toBeInstanceOf(MfaRequiredError);
    expect((mfa as MfaRequiredError).created).toBe(false);
  });

  const environment = () => ({
    DAUTH_E2E_URL: server.url,
    DAUTH_E2E_CLIENT_ID: app.clientId,
    DAUTH_E2E_CLIENT_SECRET: app.clientSecret,
    DAUTH_E2E_REDIRECT_URI: redirectUri,
    DAUTH_E2E_PLATFORM_DESK: desk.url,
  });

  it.skipIf(!pythonAvailable && !inCi)('Python: tests.test_platform_e2e passes', async () => {
    const result = await runChild('python3', ['-m', 'unittest', '-v', 'tests.test_platform_e2e'], {
      cwd: path.join(repoRoot, 'sdk', 'python'),
      env: { ...environment(), PYTHONDONTWRITEBYTECODE: '1' },
      timeoutMs: 120_000,
    });
    expect(result.exitCode, result.output).toBe(0);
    expect(result.output).toMatch(/test_each_kind_and_refusals .* ok/);
  });

  it.skipIf(!goAvailable && !inCi)('Go: TestPlatformLive passes', async () => {
    const result = await runChild('go', ['test', '-count=1', '-v', '-run', 'TestPlatformLive', './...'], {
      cwd: path.join(repoRoot, 'sdk', 'go'),
      env: { ...environment(), GOPROXY: 'off' },
      timeoutMs: 240_000,
    });
    expect(result.exitCode, result.output).toBe(0);
    expect(result.output).toMatch(/^--- PASS: TestPlatformLive/m);
  });

  it.skipIf(!monoAvailable && !inCi)(
    'C#: build.sh live-platform passes',
    async () => {
      const result = await runChild(
        'bash',
        [path.join(repoRoot, 'sdk', 'csharp', 'build.sh'), 'live-platform'],
        {
          cwd: repoRoot,
          env: environment(),
          timeoutMs: 240_000,
        },
      );
      expect(result.exitCode, result.output).toBe(0);
      expect(result.output).toMatch(/^PASS live-platform: /m);
    },
    300_000,
  );
});
