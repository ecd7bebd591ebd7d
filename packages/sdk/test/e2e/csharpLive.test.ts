import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCallbackHandler, DauthClient } from '../../src/index.js';
import { inCi } from '../../../server/test/helpers/environment.js';
import { startTestServer } from '../../../server/test/helpers/server.js';
import type { TestServer } from '../../../server/test/helpers/server.js';
import { get, newUser, post } from '../../../server/test/content/contentSupport.js';
import { commandAvailable, registerApp, runChild } from './support.js';

/**
 * The C# SDK (sdk/csharp) against a live dauth: `startTestServer()` (embedded SQLite and anvil
 * chain) and a game backend that turns the player's login JWT into the slot with the TypeScript SDK
 * (authorize, callback, get_token), as a studio's backend would. The C# runner's live tests
 * (sdk/csharp/tests/LiveTests.cs) play the player: sign-up, login, PIN, purchase, balances, status,
 * transfer, and the guest and device journeys once the server has those routes (the device calls
 * through the backend's relay, which adds the app's credentials).
 */

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const monoAvailable = commandAvailable('mcs', ['--version']) && commandAvailable('mono', ['--version']);
const CALLBACK_PATH = '/dauth/callback';
/** The game backend's relay routes for the device grant, and the dauth path each forwards to. */
const DEVICE_RELAY: Record<string, string> = {
  '/game/device_authorization': '/oauth/device_authorization',
  '/game/device_token': '/oauth/token',
};

describe('the C# SDK against a live dauth', () => {
  let server: TestServer;
  let backend: ReturnType<typeof createServer>;
  let backendUrl: string;
  let dauth: DauthClient;
  let clientId: string;
  let clientSecret: string;
  let cuid: string;
  let tokenContract: string;

  /** The game backend: the SDK's callback route, the player's session and a faucet for the test. */
  async function startGameBackend(): Promise<void> {
    backend = createServer((request, response) => {
      const route = new URL(request.url ?? '/', 'http://backend.invalid').pathname;
      if (route === CALLBACK_PATH) {
        createCallbackHandler(dauth)(request, response);
        return;
      }
      let text = '';
      request.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      request.on('end', () => {
        const relayed = DEVICE_RELAY[route];
        if (relayed) {
          void relay(relayed, text).then(
            ({ status, body }) =>
              response.writeHead(status, { 'content-type': 'application/json' }).end(body),
            (error: unknown) => response.writeHead(502).end(String(error)),
          );
          return;
        }
        void answer(route, text).then(
          (body) => response.writeHead(200, { 'content-type': 'application/json' }).end(body),
          (error: unknown) => response.writeHead(500).end(String(error)),
        );
      });
    });
    await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
    backendUrl = `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;
  }

  /**
   * The device grant's relay: dauth has no public clients, so the game backend adds the app's
   * credentials (HTTP Basic) to the device's form and passes the answer back unchanged.
   */
  async function relay(path: string, form: string): Promise<{ status: number; body: string }> {
    const answered = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      },
      body: form,
    });
    return { status: answered.status, body: await answered.text() };
  }

  async function answer(route: string, text: string): Promise<string> {
    const body = JSON.parse(text) as { jwt?: string; address?: string };
    if (route === '/game/session' && body.jwt) {
      const slot = await dauth.getSlotInfo({ jwt: body.jwt });
      const claims = JSON.parse(Buffer.from(body.jwt.split('.')[1]!, 'base64url').toString('utf8')) as {
        sub: string;
      };
      // The id as the raw JSON number the service sent (19 digits: no JSON.stringify of a number).
      return `{"slot_id":${slot.id.value},"access_token":${JSON.stringify(slot.access_token)},"user_id":${JSON.stringify(claims.sub)}}`;
    }
    if (route === '/game/fund' && body.address) {
      const funded = await post(
        server,
        '/v1/admin/faucet',
        { address: body.address, native: (10n ** 19n).toString(), token: '1000000' },
        server.services.secrets.adminApiKey,
      );
      if (funded.status !== 200) throw new Error(`faucet answered ${funded.status}`);
      return '{"success":true}';
    }
    throw new Error(`no route ${route}`);
  }

  beforeAll(async () => {
    if (!monoAvailable && !inCi) return;
    server = await startTestServer();
    await startGameBackend();
    const developer = await newUser(server, 'csharp-studio');
    const app = await registerApp(server.url, developer.token, 'C# SDK game', [
      `${backendUrl}${CALLBACK_PATH}`,
    ]);
    clientId = app.clientId;
    clientSecret = app.clientSecret;
    dauth = new DauthClient({
      clientId,
      clientSecret: app.clientSecret,
      redirectUri: `${backendUrl}${CALLBACK_PATH}`,
      authServerUrl: server.url,
    });
    cuid = `csharp-${Date.now().toString(36)}`;
    const provider = await post(
      server,
      '/v1/development-api/init_permission_provider',
      {
        client_id: clientId,
        cuid,
        release_per: 50,
        owner_addr: '0x00000000000000000000000000000000000d0a57',
      },
      developer.token,
    );
    expect(provider.status).toBe(200);
    const chain = await get<{ token: string }>(server, '/v1/chain/info');
    tokenContract = chain.body.token;
  }, 120_000);

  afterAll(async () => {
    await dauth?.shutdown();
    backend?.closeAllConnections();
    await new Promise<void>((resolve) => (backend ? backend.close(() => resolve()) : resolve()));
    await server?.close();
  });

  it.skipIf(!monoAvailable && !inCi)(
    'runs sdk/csharp/build.sh live: the player journeys pass against the server',
    async () => {
      expect(monoAvailable, 'mono-devel (mcs, mono) is required when CI is set').toBe(true);
      const result = await runChild('bash', [path.join(repoRoot, 'sdk', 'csharp', 'build.sh'), 'live'], {
        cwd: repoRoot,
        env: {
          DAUTH_E2E_URL: server.url,
          DAUTH_E2E_CLIENT_ID: clientId,
          DAUTH_E2E_GAME_BACKEND: backendUrl,
          DAUTH_E2E_CUID: cuid,
          DAUTH_E2E_TOKEN_CONTRACT: tokenContract,
        },
        timeoutMs: 240_000,
      });
      expect(result.exitCode, result.output).toBe(0);
      expect(result.output).toMatch(/^PASS live: e-mail sign-up/m);
      // The device grant's routes exist on this server: the journey runs, it does not skip.
      expect(result.output).toMatch(/^PASS live: device flow approved from a companion app/m);
      expect(result.output).toMatch(/^\d+ passed, 0 failed$/m);
    },
    300_000,
  );
});
