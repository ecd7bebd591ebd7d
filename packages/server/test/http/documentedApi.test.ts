import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call, newUser, pinOf } from '../pin/pinHelpers.js';

/** The API as documented, as a newcomer meets it (issue 31). */
describe('the API as documented', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  const JSON_ONLY = {
    success: false,
    error: 'unsupported_media_type',
    message: 'This endpoint takes a JSON body: send it with Content-Type: application/json',
  };

  it('a JSON body sent as a form (curl -d) is a 415 that says so, and nothing is created', async () => {
    const email = `form-${Date.now()}@example.com`;
    const body = JSON.stringify({ email, password: 'correct horse battery' });
    for (const type of ['application/x-www-form-urlencoded', 'text/plain;charset=UTF-8']) {
      const res = await fetch(`${server.url}/v1/dev-user/register`, {
        method: 'POST',
        headers: { 'content-type': type },
        body,
      });
      expect(res.status, type).toBe(415);
      expect(await res.json()).toEqual(JSON_ONLY);
    }
    // The same request as JSON creates the account: the refused ones had not.
    const ok = await call(server, '/v1/dev-user/register', JSON.parse(body));
    expect(ok.status).toBe(201);
  });

  it('the OAuth endpoints keep taking forms (RFC 6749)', async () => {
    const res = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=password&client_id=x',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'unsupported_grant_type' });
  });

  it('user_uuid is taken as the string login returns, as the number the spec shows, and nothing else', async () => {
    const user = await newUser(server, 'uuid');
    const other = await newUser(server, 'uuid-other');
    // login answered `uuid` as a string; send it back as it came.
    const asString = await call(
      server,
      '/v1/pin/register',
      { user_uuid: String(user.uuid), ...pinOf('123456') },
      user.token,
    );
    expect(asString.status).toBe(200);
    expect(asString.body).toMatchObject({ success: true });
    const asNumber = await call(
      server,
      '/v1/pin/register',
      { user_uuid: other.uuid, ...pinOf('123456') },
      other.token,
    );
    expect(asNumber.status).toBe(200);
    // Someone else's uuid, in either form, is refused; malformed strings are a 400.
    for (const uuid of [String(other.uuid), other.uuid]) {
      const res = await call(server, '/v1/pin/register', { user_uuid: uuid, ...pinOf('1') }, user.token);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: 'user_mismatch' });
    }
    for (const uuid of ['0', '-1', '1e3', ' 1', 'abc', '12345678901234567', '']) {
      const res = await call(server, '/v1/pin/register', { user_uuid: uuid, ...pinOf('1') }, user.token);
      expect(res.status, uuid).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: 'invalid_request' });
    }
  });

  it('invalid_token for a token of another issuer names that issuer and this one', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const foreign = await new SignJWT({ token_use: 'login' })
      .setProtectedHeader({ alg: 'ES256', kid: 'other-key' })
      .setIssuer('https://auth.other.example')
      .setAudience('https://auth.other.example')
      .setSubject('1')
      .setJti('j')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
    const res = await fetch(`${server.url}/v1/dev-user/clients`, {
      headers: { authorization: `Bearer ${foreign}` },
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({
      error: 'invalid_token',
      message: `The token was issued by "https://auth.other.example", not by this service (${server.config.publicUrl}); send it to the service that issued it`,
    });
    // A token that is no JWT at all keeps the plain message.
    const garbage = await fetch(`${server.url}/v1/dev-user/clients`, {
      headers: { authorization: 'Bearer not-a-jwt' },
    });
    expect(await garbage.json()).toMatchObject({ error: 'invalid_token', message: 'The token is invalid' });
  });

  it('the /docs summaries describe the operation, never cite "spec endpoint N"', async () => {
    const doc = (await (await fetch(`${server.url}/docs/json`)).json()) as {
      paths: Record<string, Record<string, { summary?: string }>>;
    };
    const summaries = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.summary));
    expect(summaries.length).toBeGreaterThan(50);
    expect(summaries.filter((s) => /spec endpoint/i.test(s ?? ''))).toEqual([]);
    expect(summaries).toContain(
      'Token exchange: authorization_code, refresh_token, device_code or client_credentials',
    );
  });
});
