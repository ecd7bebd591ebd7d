import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable } from '../helpers/environment.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  authorizeUrl,
  authorizeWithBearer,
  bearer,
  createClient,
  createUser,
  exchange,
  expectError,
  type TestUser,
  type TokenResult,
} from '../oauth/support.js';

/** App lifecycle (docs/accounts.md): edit, rotate the secret with a grace period, delete. */
const GRACE_SECONDS = 2;
const backends = postgresAvailable ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);

const send = (url: string, method: string, token: string, body?: unknown) =>
  fetch(url, {
    method,
    headers: { ...bearer(token), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe.each(backends)('app lifecycle on %s', (backend) => {
  let server: TestServer;
  let owner: TestUser;
  let other: TestUser;
  const cb = (p: string) => `http://127.0.0.1:9/${p}`;

  beforeAll(async () => {
    server = await startTestServer({
      postgres: backend === 'postgres',
      env: { CLIENT_SECRET_GRACE_SECONDS: String(GRACE_SECONDS) },
    });
    owner = await createUser(server.url);
    other = await createUser(server.url);
  });
  afterAll(async () => server?.close());

  const codeFor = async (client: { clientId: string; clientSecret: string; redirectUri: string }) =>
    (await authorizeWithBearer(server.url, owner, client)).code;
  const validate = async (token: string) =>
    (await fetch(`${server.url}/v1/oauth/validate`, { headers: bearer(token) })).status;

  it('edits the name and redirect URIs: the old URI is refused at once, the new one accepted', async () => {
    const client = await createClient(server.url, owner, [cb('old')]);
    const res = await send(
      `${server.url}/v1/dev-user/clients/${client.clientId}`,
      'PATCH',
      owner.loginToken,
      {
        name: 'Renamed',
        redirect_uris: [cb('new')],
      },
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { client: { name: string; redirect_uris: string[] } };
    expect(body.client).toMatchObject({ name: 'Renamed', redirect_uris: [cb('new')] });
    const at = (uri: string) =>
      fetch(
        authorizeUrl(server.url, { client_id: client.clientId, redirect_uri: uri, response_type: 'code' }),
        {
          redirect: 'manual',
        },
      );
    // Without a session the login page (200) shows for a registered URI; an unregistered one is 401 (docs/oauth.md).
    expect((await at(cb('old'))).status).toBe(401);
    expect((await at(cb('new'))).status).toBe(200);
  });

  it('applies the registration rules to an edit and changes nothing on a refusal', async () => {
    const client = await createClient(server.url, owner, [cb('keep')]);
    const url = `${server.url}/v1/dev-user/clients/${client.clientId}`;
    await expectError(
      await send(url, 'PATCH', owner.loginToken, { redirect_uris: ['javascript:alert(1)'] }),
      400,
      'invalid_redirect_uri',
    );
    await expectError(
      await send(url, 'PATCH', owner.loginToken, { redirect_uris: [] }),
      400,
      'invalid_request',
    );
    await expectError(await send(url, 'PATCH', owner.loginToken, {}), 400, 'invalid_request');
    // Only unknown fields (found by the route fuzz: it was a 500 from an empty SQL update).
    await expectError(
      await send(url, 'PATCH', owner.loginToken, { nom: 'x', u8: false }),
      400,
      'invalid_request',
    );
    const list = (await (
      await fetch(`${server.url}/v1/dev-user/clients`, { headers: bearer(owner.loginToken) })
    ).json()) as { clients: { client_id: string; redirect_uris: string[] }[] };
    expect(list.clients.find((c) => c.client_id === client.clientId)?.redirect_uris).toEqual([cb('keep')]);
  });

  it('another developer can neither edit, rotate nor delete your app (404, nothing changes)', async () => {
    const client = await createClient(server.url, owner, [cb('mine')]);
    const url = `${server.url}/v1/dev-user/clients/${client.clientId}`;
    await expectError(
      await send(url, 'PATCH', other.loginToken, { redirect_uris: [cb('evil')] }),
      404,
      'client_not_found',
    );
    await expectError(await send(`${url}/rotate-secret`, 'POST', other.loginToken), 404, 'client_not_found');
    await expectError(await send(url, 'DELETE', other.loginToken), 404, 'client_not_found');
    await expectError(await send(url, 'DELETE', owner.loginToken + 'x'), 401, 'invalid_token');
    expect((await exchange(server.url, client, await codeFor(client))).status).toBe(200);
  });

  it('rotates the secret: both work within the grace period, only the new one after', async () => {
    const client = await createClient(server.url, owner, [cb('rot')]);
    const res = await send(
      `${server.url}/v1/dev-user/clients/${client.clientId}/rotate-secret`,
      'POST',
      owner.loginToken,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as { client_secret: string; old_secret_valid_until: string };
    expect(body.client_secret).not.toBe(client.clientSecret);
    const until = Date.parse(body.old_secret_valid_until);
    expect(until - Date.now()).toBeGreaterThan(0);
    expect(until - Date.now()).toBeLessThanOrEqual(GRACE_SECONDS * 1000);
    const rotated = { ...client, clientSecret: body.client_secret };
    expect((await exchange(server.url, client, await codeFor(client))).status).toBe(200);
    expect((await exchange(server.url, rotated, await codeFor(client))).status).toBe(200);
    await new Promise((r) => setTimeout(r, until - Date.now() + 200));
    await expectError(await exchange(server.url, client, await codeFor(client)), 401, 'invalid_client');
    expect((await exchange(server.url, rotated, await codeFor(client))).status).toBe(200);
  });

  it('deletes an app: its tokens fail validation, its refresh token and secret stop working', async () => {
    const client = await createClient(server.url, owner, [cb('del')]);
    const tokens = (await (await exchange(server.url, client, await codeFor(client))).json()) as TokenResult;
    const second = (await (await exchange(server.url, client, await codeFor(client))).json()) as TokenResult;
    expect(await validate(tokens.access_token)).toBe(200);
    const res = await send(
      `${server.url}/v1/dev-user/clients/${client.clientId}`,
      'DELETE',
      owner.loginToken,
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as { revoked_grants: number }).revoked_grants).toBe(2);
    expect(await validate(tokens.access_token)).toBe(401);
    expect(await validate(second.access_token)).toBe(401);
    const refresh = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: client.clientId,
        client_secret: client.clientSecret,
      }),
    });
    expect(refresh.status).toBe(401);
    const list = (await (
      await fetch(`${server.url}/v1/dev-user/clients`, { headers: bearer(owner.loginToken) })
    ).json()) as { clients: { client_id: string }[] };
    expect(list.clients.map((c) => c.client_id)).not.toContain(client.clientId);
    await expectError(
      await send(`${server.url}/v1/dev-user/clients/${client.clientId}`, 'DELETE', owner.loginToken),
      404,
      'client_not_found',
    );
  });
});

describe('secret rotation needs a fresh login', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { STEP_UP_MAX_AGE: '1' } });
  });
  afterAll(async () => server?.close());

  it('a login JWT older than STEP_UP_MAX_AGE cannot rotate (401 reauthentication_required), the secret stays', async () => {
    const owner = await createUser(server.url);
    const client = await createClient(server.url, owner, ['http://127.0.0.1:9/s']);
    await new Promise((r) => setTimeout(r, 2100));
    const body = await expectError(
      await send(
        `${server.url}/v1/dev-user/clients/${client.clientId}/rotate-secret`,
        'POST',
        owner.loginToken,
      ),
      401,
      'reauthentication_required',
    );
    expect(body.max_age).toBe(1);
    const code = (await authorizeWithBearer(server.url, owner, client)).code;
    expect((await exchange(server.url, client, code)).status).toBe(200);
  });
});
