import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DauthClient, DeviceFlowError } from '../../src/index.js';
import { startTestServer, type TestServer } from '../../../server/test/helpers/server.js';
import {
  bearer,
  createClient,
  createUser,
  post,
  type TestClient,
  type TestUser,
} from '../../../server/test/helpers/http.js';

/**
 * The TypeScript SDK's device flow (RFC 8628) against a live dauth: a launcher backend starts it,
 * the player approves or denies from a companion app, the SDK polls honouring `interval` and
 * `slow_down`.
 */
describe('DauthClient device authorization against a live dauth', () => {
  let server: TestServer;
  let player: TestUser;
  let app: TestClient;
  let dauth: DauthClient;

  beforeAll(async () => {
    server = await startTestServer({ env: { DEVICE_CODE_INTERVAL_SECONDS: '1' } });
    player = await createUser(server.url);
    app = await createClient(server.url, player, ['http://127.0.0.1:9/cb'], { name: 'Launcher' });
    dauth = new DauthClient({
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri: app.redirectUri,
      authServerUrl: server.url,
    });
  });
  afterAll(() => server?.close());

  const decide = (decision: 'approve' | 'deny', userCode: string) =>
    post(`${server.url}/v1/device/${decision}`, { user_code: userCode }, bearer(player.loginToken));

  it('starts, polls while pending, and gets the tokens (with an id_token for openid) once approved', async () => {
    const start = await dauth.startDeviceAuthorization({ scope: 'openid' });
    expect(start.userCode).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(start.verificationUri).toBe(`${server.url}/device`);
    expect(start.interval).toBe(1);
    const waits: number[] = [];
    let polls = 0;
    const tokens = dauth.pollDeviceToken(start, {
      sleep: async (ms) => {
        waits.push(ms);
        if (++polls === 3) expect((await decide('approve', start.userCode)).status).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, ms));
      },
    });
    const result = await tokens;
    expect(result).toMatchObject({ tokenType: 'Bearer', expiresIn: 3600, userId: player.uuid });
    expect(result.idToken?.split('.')).toHaveLength(3);
    expect(result.refreshToken.length).toBeGreaterThan(20);
    expect(waits).toEqual([1000, 1000, 1000]);
  });

  it('honours slow_down: after a too-early poll it waits 5 s longer, every time', async () => {
    const start = await dauth.startDeviceAuthorization();
    const waits: number[] = [];
    // Waiting almost nothing makes every poll after the first too early: each answer is slow_down.
    const polling = dauth.pollDeviceToken(start, {
      sleep: async (ms) => {
        waits.push(ms);
        if (waits.length === 4) expect((await decide('deny', start.userCode)).status).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 20));
      },
    });
    const denied = await polling.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(denied).toBeInstanceOf(DeviceFlowError);
    expect(denied).toMatchObject({ errorCode: 'access_denied', responseStatus: 400 });
    expect(waits).toEqual([1000, 1000, 6000, 11000]);
  });

  it('a wrong client secret is a DeviceFlowError invalid_client', async () => {
    const wrong = new DauthClient({
      clientId: app.clientId,
      clientSecret: 'not-the-secret',
      redirectUri: app.redirectUri,
      authServerUrl: server.url,
    });
    await expect(wrong.startDeviceAuthorization()).rejects.toMatchObject({
      errorCode: 'invalid_client',
      responseStatus: 401,
    });
  });
});
