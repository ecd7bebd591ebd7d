import { randomUUID } from 'node:crypto';
import { decodeJwt, importJWK, type JWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { SigningKeyStore } from '../../src/stores/signingKeyStore.js';
import { metaAuthorize, registerWallet } from '../backend/support.js';
import {
  bearer,
  type CallbackServer,
  createClient,
  createUser,
  post,
  startCallbackServer,
} from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { newPlayer, newProvider, type Provider } from '../content/contentSupport.js';

const STEP_UP_MAX_AGE = 300;

/** A login JWT as main issued it before this change (no `aud`, no `auth_time`), signed with the service's key. */
async function legacyLoginToken(server: TestServer, userId: string): Promise<string> {
  const [key] = await new SigningKeyStore(server.services.database.db).list();
  const opened = server.services.secretBox.open(key!.privateJwkSealed, `signing_key:${key!.kid}`);
  const privateKey = await importJWK(JSON.parse(opened.toString('utf8')) as JWK, 'ES256');
  opened.fill(0);
  return new SignJWT({ token_use: 'login' })
    .setProtectedHeader({ alg: 'ES256', kid: key!.kid, typ: 'JWT' })
    .setIssuer(server.config.publicUrl)
    .setSubject(userId)
    .setIssuedAt()
    .setExpirationTime('1h')
    .setJti(randomUUID())
    .sign(privateKey);
}

const listClients = (server: TestServer, token: string) =>
  fetch(`${server.url}/v1/dev-user/clients`, { headers: bearer(token) });

/** A real login JWT of the user whose password check (`auth_time`) is older than STEP_UP_MAX_AGE: what a game backend holds after relaying. */
async function staleLoginToken(server: TestServer, userId: string | number): Promise<string> {
  const authTime = Math.floor(Date.now() / 1000) - STEP_UP_MAX_AGE - 5;
  return (await server.services.tokens.issueLoginToken(String(userId), authTime)).token;
}

const sendJson = (url: string, method: 'PATCH' | 'DELETE', token: string, body?: unknown) =>
  fetch(url, {
    method,
    headers: { ...bearer(token), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const reauthenticationRequired = {
  success: false,
  error: 'reauthentication_required',
  message: expect.stringContaining('300 s'),
  max_age: STEP_UP_MAX_AGE,
};

describe('the login JWT: audience, revocation, step-up', () => {
  let server: TestServer;
  let callbacks: CallbackServer;

  beforeAll(async () => {
    server = await startTestServer();
    callbacks = await startCallbackServer();
  });
  afterAll(async () => {
    await callbacks?.close();
    await server?.close();
  });

  it('carries aud (the issuer), a jti and auth_time', async () => {
    const user = await createUser(server.url);
    const claims = decodeJwt(user.loginToken);
    expect(claims.aud).toBe(server.config.publicUrl);
    expect(claims.iss).toBe(server.config.publicUrl);
    expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(claims.auth_time).toBeTypeOf('number');
    expect(Math.abs((claims.auth_time as number) - Date.now() / 1000)).toBeLessThan(30);
  });

  it('refuses a login JWT without aud (issued before this change) even with a valid signature', async () => {
    const user = await createUser(server.url);
    expect((await listClients(server, user.loginToken)).status).toBe(200);
    const legacy = await legacyLoginToken(server, user.uuid);
    const res = await listClients(server, legacy);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ success: false, error: 'invalid_token' });
  });

  it('logout revokes exactly that token: every bearer use fails after, another login still works', async () => {
    const user = await createUser(server.url);
    const other = await post(`${server.url}/v1/dev-user/login_devuser`, {
      email: user.email,
      password: user.password,
    });
    const otherToken = ((await other.json()) as { token: string }).token;
    const client = await createClient(server.url, user, [callbacks.url('/cb')]);
    await registerWallet(server.url, user);
    const authorize = (token: string) =>
      metaAuthorize(server.url, token, {
        client_id: client.clientId,
        redirect_uri: client.redirectUri,
        respose_type: 'code',
        state: randomUUID(),
      });
    expect((await authorize(user.loginToken)).status).toBe(200);

    const logout = await post(`${server.url}/v1/dev-user/logout`, {}, bearer(user.loginToken));
    expect(logout.status).toBe(200);
    expect(await logout.json()).toEqual({ success: true });

    const list = await listClients(server, user.loginToken);
    expect(list.status).toBe(401);
    expect(await list.json()).toMatchObject({ success: false, error: 'invalid_token' });
    const meta = await authorize(user.loginToken);
    expect(meta.status).toBe(401);
    expect(meta.body.code).toBe(401);
    const create = await post(
      `${server.url}/v1/dev-user/clients`,
      { name: 'x', redirect_uris: ['https://x.example/cb'] },
      bearer(user.loginToken),
    );
    expect(create.status).toBe(401);
    expect((await post(`${server.url}/v1/dev-user/logout`, {}, bearer(user.loginToken))).status).toBe(401);
    // The revocation is recorded durably (what the other replicas load and re-sync from).
    const row = await server.services.database.db
      .selectFrom('oauth_revocations')
      .select(['kind', 'value'])
      .where('value', '=', decodeJwt(user.loginToken).jti!)
      .executeTakeFirst();
    expect(row).toEqual({ kind: 'jti', value: decodeJwt(user.loginToken).jti });

    expect((await listClients(server, otherToken)).status).toBe(200);
  });

  it('logout takes a login JWT only: an access token of the same user is refused and stays live', async () => {
    const user = await createUser(server.url);
    const access = await server.services.tokens.issueAccessToken({
      userId: user.uuid,
      clientId: 'some-client',
      grantId: randomUUID(),
    });
    const res = await post(`${server.url}/v1/dev-user/logout`, {}, bearer(access.token));
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'invalid_token', message: 'A login token is required' });
    // And the access token is no login JWT anywhere else either.
    expect((await listClients(server, access.token)).status).toBe(401);
    const validate = await fetch(`${server.url}/v1/oauth/validate`, { headers: bearer(access.token) });
    expect(validate.status).toBe(200);
  });

  describe('step-up for account-critical changes', () => {
    let provider: Provider;
    /** The developer's login JWT as a game backend holds it after relaying: signed > STEP_UP_MAX_AGE ago. */
    let relayed: string;

    beforeAll(async () => {
      provider = await newProvider(server);
      relayed = await staleLoginToken(server, provider.developer.uuid);
    });

    const critical = (token: string) => [
      post(
        `${server.url}/v1/development-api/init_permission_provider`,
        {
          client_id: provider.clientId,
          cuid: provider.cuid,
          release_per: 100,
          owner_addr: `0x${'66'.repeat(20)}`,
        },
        bearer(token),
      ),
      post(
        `${server.url}/v1/development-api/payload_mode`,
        { client_id: provider.clientId, mode: 'ctr' },
        bearer(token),
      ),
      post(
        `${server.url}/v1/development-api/consume_auth`,
        { client_id: provider.clientId, consume_auth: 'none' },
        bearer(token),
      ),
      post(
        `${server.url}/v1/development-api/test_encryption`,
        { client_id: provider.clientId, test_string: '{"client_id":"' },
        bearer(token),
      ),
    ];

    it('refuses a relayed login JWT older than STEP_UP_MAX_AGE on provider settings and test_encryption', async () => {
      for (const answer of await Promise.all(critical(relayed))) {
        expect(answer.status).toBe(401);
        expect(await answer.json()).toEqual(reauthenticationRequired);
      }
      // Nothing changed: the provider's terms on record are the original ones.
      const record = await server.services.database.db
        .selectFrom('content_providers')
        .select(['release_per', 'owner_addr'])
        .where('cuid', '=', provider.cuid)
        .executeTakeFirstOrThrow();
      expect(record).toEqual({ release_per: 50, owner_addr: provider.ownerAddr });
      // The same token still works where no step-up is needed (reading your apps).
      expect((await listClients(server, relayed)).status).toBe(200);
    });

    it('accepts the same changes with a fresh login', async () => {
      const fresh = await post(
        `${server.url}/v1/development-api/consume_auth`,
        {
          client_id: provider.clientId,
          consume_auth: 'client_secret',
        },
        bearer(provider.developer.token),
      );
      expect(fresh.status).toBe(200);
      expect(await fresh.json()).toEqual({
        success: true,
        client_id: provider.clientId,
        consume_auth: 'client_secret',
      });
    });

    it('refuses a relayed login JWT older than STEP_UP_MAX_AGE on editing and deleting an app; nothing changes', async () => {
      const developer = await createUser(server.url);
      const app = await createClient(server.url, developer, ['https://game.example/cb'], { name: 'Game' });
      const stale = await staleLoginToken(server, developer.uuid);
      const url = `${server.url}/v1/dev-user/clients/${app.clientId}`;

      const patch = await sendJson(url, 'PATCH', stale, {
        name: 'Hijacked',
        redirect_uris: ['https://attacker.example/cb'],
      });
      expect(patch.status).toBe(401);
      expect(await patch.json()).toEqual(reauthenticationRequired);
      const del = await sendJson(url, 'DELETE', stale);
      expect(del.status).toBe(401);
      expect(await del.json()).toEqual(reauthenticationRequired);

      // The app still exists with its old name and redirect URIs, and its secret still authenticates.
      const list = await listClients(server, stale);
      expect(list.status).toBe(200);
      const { clients } = (await list.json()) as {
        clients: { client_id: string; name: string; redirect_uris: string[] }[];
      };
      expect(clients).toEqual([
        expect.objectContaining({
          client_id: app.clientId,
          name: 'Game',
          redirect_uris: ['https://game.example/cb'],
        }),
      ]);
      const introspect = await fetch(`${server.url}/oauth/introspect`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'token=not-a-token',
      });
      expect(introspect.status).toBe(200);
    });

    it('edits and deletes the app with a fresh login', async () => {
      const developer = await createUser(server.url);
      const app = await createClient(server.url, developer, ['https://game.example/cb']);
      const url = `${server.url}/v1/dev-user/clients/${app.clientId}`;

      const patch = await sendJson(url, 'PATCH', developer.loginToken, {
        redirect_uris: ['https://game.example/new-cb'],
      });
      expect(patch.status).toBe(200);
      expect(await patch.json()).toMatchObject({
        success: true,
        client: { client_id: app.clientId, redirect_uris: ['https://game.example/new-cb'] },
      });
      const del = await sendJson(url, 'DELETE', developer.loginToken);
      expect(del.status).toBe(200);
      expect(await del.json()).toMatchObject({ success: true });
      const list = await listClients(server, developer.loginToken);
      expect(((await list.json()) as { clients: unknown[] }).clients).toEqual([]);
    });

    it('refuses a relayed login JWT older than STEP_UP_MAX_AGE on the password change', async () => {
      const user = await createUser(server.url);
      const stale = await staleLoginToken(server, user.uuid);
      const change = await post(
        `${server.url}/v1/dev-user/password`,
        { current_password: user.password, new_password: 'a whole new password' },
        bearer(stale),
      );
      expect(change.status).toBe(401);
      expect(await change.json()).toEqual(reauthenticationRequired);
      // The password did not change and the user's tokens were not revoked.
      const login = await post(`${server.url}/v1/dev-user/login_devuser`, {
        email: user.email,
        password: user.password,
      });
      expect(login.status).toBe(200);
      expect((await listClients(server, user.loginToken)).status).toBe(200);
    });

    it('a relayed, old login JWT still runs the backend authorize', async () => {
      const player = await newPlayer(server, provider);
      const gameOwner = await createUser(server.url);
      const game = await createClient(server.url, gameOwner, [callbacks.url('/game')]);
      const old = (
        await server.services.tokens.issueLoginToken(
          String(player.user.uuid),
          Math.floor(Date.now() / 1000) - 3000,
        )
      ).token;
      const state = randomUUID();
      const res = await metaAuthorize(server.url, old, {
        client_id: game.clientId,
        redirect_uri: game.redirectUri,
        respose_type: 'code',
        state,
      });
      expect(res.status, res.text).toBe(200);
      expect((await callbacks.waitFor(state)).code).toBeTypeOf('string');
    });
  });
});

describe('STEP_UP_MAX_AGE is configuration', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { STEP_UP_MAX_AGE: '5' } });
  });
  afterAll(() => server?.close());

  it('defaults to 300 s; set to 5 s, a real login JWT passes at once and is refused 6 s later', async () => {
    expect(loadConfig({}).stepUpMaxAgeSeconds).toBe(300);
    const user = await createUser(server.url);
    const client = await createClient(server.url, user, ['https://game.example/cb']);
    const login = await post(`${server.url}/v1/dev-user/login_devuser`, {
      email: user.email,
      password: user.password,
    });
    const token = ((await login.json()) as { token: string }).token;
    const change = () =>
      post(
        `${server.url}/v1/development-api/payload_mode`,
        { client_id: client.clientId, mode: 'ctr+gcm' },
        bearer(token),
      );
    // Past the guard (the client has no provider yet: 404), then too old for it.
    const fresh = await change();
    expect(fresh.status).toBe(404);
    expect(await fresh.json()).toMatchObject({ error: 'provider_not_registered' });
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const late = await change();
    expect(late.status).toBe(401);
    expect(await late.json()).toMatchObject({ error: 'reauthentication_required', max_age: 5 });
  });
});
