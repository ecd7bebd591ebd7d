import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConsumptionError,
  ContentConsumer,
  ProviderRegistrationError,
  registerContentProvider,
} from '../../src/index.js';
import { startTestServer } from '../../../server/test/helpers/server.js';
import type { TestServer } from '../../../server/test/helpers/server.js';
import { createUser, type TestUser } from '../../../server/test/helpers/http.js';
import { buy, get, newPlayer, type Provider } from '../../../server/test/content/contentSupport.js';
import { registerApp, type RegisteredApp } from './support.js';

/**
 * `registerContentProvider` against a live dauth (`startTestServer()`: embedded SQLite and anvil chain).
 * STEP_UP_MAX_AGE is 3 s here, so a login JWT goes stale within the test.
 */
describe('registerContentProvider against a live dauth', () => {
  let server: TestServer;
  let developer: TestUser;
  let app: RegisteredApp;
  const ownerAddr = '0x0000000000000000000000000000000000005d4a';

  beforeAll(async () => {
    server = await startTestServer({ env: { STEP_UP_MAX_AGE: '3' } });
    developer = await createUser(server.url, 'ProviderDev');
    app = await registerApp(server.url, developer.loginToken, 'SDK provider game', [
      'https://sdk-provider.example/cb',
    ]);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it('creates the first provider in the strong mode, and only its app secret and GCM key can spend', async () => {
    const logins: { body: unknown; token: unknown }[] = [];
    const registration = await registerContentProvider({
      clientId: app.clientId,
      cuid: 'sdk-first',
      releasePer: 30,
      ownerAddr,
      owner: { email: developer.email, password: developer.password },
      authServerUrl: server.url,
      requestTimeout: 30_000,
      httpClient: async (url, init) => {
        const res = await fetch(url, init);
        if (url.endsWith('/v1/dev-user/login_devuser')) {
          const answer = (await res.clone().json()) as { token?: string };
          logins.push({ body: JSON.parse(String(init.body)), token: answer.token });
        }
        return res;
      },
    });
    // The owner's login is bound to the app (decisions §8): `client_id` sent, `azp` in the JWT.
    expect(logins).toHaveLength(1);
    expect(logins[0]!.body).toMatchObject({ client_id: app.clientId });
    const payload = JSON.parse(Buffer.from(String(logins[0]!.token).split('.')[1]!, 'base64url').toString());
    expect(payload.azp).toBe(app.clientId);
    expect(registration).toMatchObject({
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      payloadMode: 'gcm',
      consumeAuth: 'client_secret',
      encryptionKey: expect.stringMatching(/^[0-9a-f]{64}$/),
      encryptionIv: expect.stringMatching(/^[0-9a-f]{32}$/),
      gcmKey: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    // The service's own record of the app's settings.
    const fresh = await freshLogin();
    const mode = await get(server, `/v1/development-api/payload_mode?client_id=${app.clientId}`, fresh);
    expect(mode.body).toMatchObject({
      payload_mode: 'gcm',
      consume_auth: 'client_secret',
      has_gcm_key: true,
    });

    const provider: Provider = {
      developer: { uuid: Number(developer.uuid), token: developer.loginToken },
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      cuid: 'sdk-first',
      ownerAddr,
      key: registration.encryptionKey!,
      iv: registration.encryptionIv!,
      gcmKey: registration.gcmKey,
      registration: {},
    };
    const player = await newPlayer(server, provider);
    expect((await buy(server, provider, player, '1000')).status).toBe(200);

    // Without the client secret: refused, nothing spent.
    const anonymous = new ContentConsumer({
      clientId: app.clientId,
      cipher: { form: 'gcm', key: registration.gcmKey! },
      authServerUrl: server.url,
    });
    const refused = await anonymous
      .record({ userDbkey: player.slotId, amount: 4n, cuid: 'sdk-first', requestId: 'sdk-anon' })
      .catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(ConsumptionError);
    expect(refused).toMatchObject({ responseStatus: 401, errorCode: 'client_authentication_required' });
    // The spec's CTR form with the issued key, even with the secret: refused (GCM only).
    const ctr = new ContentConsumer({
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      cipher: { form: 'ctr', key: registration.encryptionKey!, iv: registration.encryptionIv! },
      authServerUrl: server.url,
    });
    const ctrRefused = await ctr
      .record({ userDbkey: player.slotId, amount: 4n, cuid: 'sdk-first', requestId: 'sdk-ctr' })
      .catch((caught: unknown) => caught);
    expect(ctrRefused).toBeInstanceOf(ConsumptionError);
    expect(ctrRefused).toMatchObject({ responseStatus: 401 });
    // GCM with the app's credentials: recorded.
    const consumer = new ContentConsumer({
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      cipher: { form: 'gcm', key: registration.gcmKey! },
      authServerUrl: server.url,
    });
    const recorded = await consumer.record({
      userDbkey: player.slotId,
      amount: 4n,
      cuid: 'sdk-first',
      requestId: 'sdk-ok',
    });
    expect(recorded).toMatchObject({ status: 'included', usedBalances: '4', balance: '996' });
  }, 120_000);

  it('a stale login JWT is refused (reauthentication_required); a later cuid keeps the settings', async () => {
    const token = await freshLogin();
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const stale = await registerContentProvider({
      clientId: app.clientId,
      cuid: 'sdk-stale',
      releasePer: 30,
      ownerAddr,
      owner: { loginToken: token },
      authServerUrl: server.url,
    }).catch((caught: unknown) => caught);
    expect(stale).toBeInstanceOf(ProviderRegistrationError);
    expect(stale).toMatchObject({ responseStatus: 401, errorCode: 'reauthentication_required' });
    expect(await server.services.content.directory.registered('sdk-stale')).toBeUndefined();

    const second = await registerContentProvider({
      clientId: app.clientId,
      cuid: 'sdk-second',
      releasePer: 30,
      ownerAddr,
      owner: { loginToken: await freshLogin() },
      authServerUrl: server.url,
      requestTimeout: 30_000,
    });
    expect(second).toMatchObject({
      payloadMode: 'gcm',
      consumeAuth: 'client_secret',
      encryptionKey: undefined,
      gcmKey: undefined,
    });

    const stranger = await createUser(server.url, 'Stranger');
    const notOwner = await registerContentProvider({
      clientId: app.clientId,
      cuid: 'sdk-stranger',
      releasePer: 30,
      ownerAddr,
      owner: { email: stranger.email, password: stranger.password },
      authServerUrl: server.url,
    }).catch((caught: unknown) => caught);
    expect(notOwner).toMatchObject({ responseStatus: 403, errorCode: 'not_client_owner' });
  }, 120_000);

  /** A login JWT of the developer issued now. */
  async function freshLogin(): Promise<string> {
    const response = await fetch(`${server.url}/v1/dev-user/login_devuser`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: developer.email, password: developer.password }),
    });
    return ((await response.json()) as { token: string }).token;
  }
});
