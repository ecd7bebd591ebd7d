import { createPublicKey, randomUUID } from 'node:crypto';
import { exportSPKI, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerSchema } from '../../src/http/routes/oauth/validate.js';
import { TokenService } from '../../src/services/tokens/tokenService.js';
import { SigningKeyStore } from '../../src/stores/signingKeyStore.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  authorizeWithBearer,
  bearer,
  createClient,
  createUser,
  exchange,
  expectError,
  post,
  type TestClient,
  type TestUser,
  type TokenResult,
} from './support.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('token validation (GET /v1/oauth/validate)', () => {
  let server: TestServer;
  let user: TestUser;
  let client: TestClient;
  let tokens: TokenResult;
  let jwk: JWK;

  beforeAll(async () => {
    server = await startTestServer();
    user = await createUser(server.url);
    client = await createClient(server.url, user, ['https://app.example/callback']);
    const { code } = await authorizeWithBearer(server.url, user, client);
    tokens = (await (await exchange(server.url, client, code)).json()) as TokenResult;
    jwk = ((await (await fetch(`${server.url}/.well-known/jwks.json`)).json()) as { keys: JWK[] }).keys[0]!;
  });
  afterAll(() => server.close());

  const validate = (token: string) => fetch(`${server.url}/v1/oauth/validate`, { headers: bearer(token) });
  const claims = () => ({
    iss: server.config.publicUrl,
    sub: user.uuid,
    token_use: 'access',
    client_id: client.clientId,
    gid: randomUUID(),
    jti: randomUUID(),
    iat: Math.floor(Date.now() / 1000),
    exp: Math.floor(Date.now() / 1000) + 3600,
  });

  it('answers 200 with the claims for a live access token', async () => {
    const res = await validate(tokens.access_token);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const text = await res.text();
    const body = JSON.parse(text) as Record<string, unknown>;
    const [, payload] = tokens.access_token.split('.');
    const { exp } = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as { exp: number };
    expect(body).toEqual({
      success: true,
      active: true,
      user_id: user.uuid,
      client_id: client.clientId,
      exp,
    });
    // The answer is written once per token and sent as text: the documented schema's fields, in its order.
    expect(Value.Check(answerSchema, body)).toBe(true);
    expect(Object.keys(body)).toEqual(Object.keys(answerSchema.properties));
    // The same token again: the same text (the second answer is the first one's, not another token's).
    expect(await (await validate(tokens.access_token)).text()).toBe(text);
  });

  it('refuses a missing, malformed or login (non-access) token with 401', async () => {
    await expectError(await fetch(`${server.url}/v1/oauth/validate`), 401, 'missing_token');
    await expectError(await validate('not-a-jwt'), 401, 'invalid_token');
    await expectError(await validate(user.loginToken), 401, 'invalid_token');
  });

  it("refuses a token that reuses a validated token's signature over other claims (the cache compares the whole text)", async () => {
    expect((await validate(tokens.access_token)).status).toBe(200); // now in the verified-token cache
    const [header, , signature] = tokens.access_token.split('.');
    const forged = `${header}.${b64({ ...claims(), sub: 'someone-else' })}.${signature}`;
    await expectError(await validate(forged), 401, 'invalid_token');
    expect((await validate(tokens.access_token)).status).toBe(200);
  });

  it('reads the bearer header in any spelling RFC 6750 allows, and nothing else', async () => {
    const withHeader = (authorization: string) =>
      fetch(`${server.url}/v1/oauth/validate`, { headers: { authorization } });
    const token = tokens.access_token;
    for (const spelling of [
      `Bearer ${token}`,
      `bearer ${token}`,
      `Bearer   ${token}`,
      `BEARER\t${token}  `,
    ]) {
      expect((await withHeader(spelling)).status, spelling.slice(0, 10)).toBe(200);
    }
    for (const spelling of [
      `Bearer ${token} x`,
      `Bearer ${token.slice(0, 40)} ${token.slice(40)}`,
      `Bearer${token}`,
    ]) {
      expect((await withHeader(spelling)).status).toBe(401);
    }
  });

  it('verifies a token only in its one compact text: whitespace in a genuine signature is refused, not decoded past', async () => {
    // jose decodes base64url forgivingly: these verify under jwtVerify. Each is a second text of a valid token,
    // which the verified-token cache and requireTokenNow's trust in a cached text must never hold.
    const { token } = await server.services.tokens.issueAccessToken({
      userId: user.uuid,
      clientId: client.clientId,
      grantId: randomUUID(),
    });
    const cut = token.length - 20;
    for (const variant of [`${token.slice(0, cut)} ${token.slice(cut)}`, `${token}\n`, `${token} `]) {
      await expect(
        server.services.tokens.verify(variant),
        JSON.stringify(variant.slice(-24)),
      ).rejects.toMatchObject({
        status: 401,
        code: 'invalid_token',
      });
    }
    await expect(server.services.tokens.verify(token)).resolves.toMatchObject({ userId: user.uuid });
    // Over HTTP the spellings RFC 6750 allows still pass, and whitespace inside the token still does not.
    expect(
      (await fetch(`${server.url}/v1/oauth/validate`, { headers: { authorization: `Bearer ${token} ` } }))
        .status,
    ).toBe(200);
    await expectError(
      await fetch(`${server.url}/v1/oauth/validate`, {
        headers: { authorization: `Bearer ${token.slice(0, cut)} ${token.slice(cut)}` },
      }),
      401,
      'missing_token',
    );
  });

  it('refuses alg none', async () => {
    const forged = `${b64({ alg: 'none', typ: 'JWT', kid: jwk.kid })}.${b64(claims())}.`;
    await expectError(await validate(forged), 401, 'invalid_token');
  });

  it('refuses HS256 signed with the public key (JWK text or PEM)', async () => {
    const pem = await exportSPKI(createPublicKey({ key: jwk as never, format: 'jwk' }));
    for (const secret of [JSON.stringify(jwk), pem]) {
      const forged = await new SignJWT(claims())
        .setProtectedHeader({ alg: 'HS256', kid: jwk.kid!, typ: 'JWT' })
        .sign(new TextEncoder().encode(secret));
      await expectError(await validate(forged), 401, 'invalid_token');
    }
  });

  it('refuses a token signed by another ES256 key under the same kid', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'ES256', kid: jwk.kid! })
      .sign(privateKey);
    await expectError(await validate(forged), 401, 'invalid_token');
    // Sanity: the public key really is the service's (a correctly signed token would pass).
    expect(await importJWK(jwk, 'ES256')).toBeDefined();
  });

  it('refuses a token with the right key but a wrong issuer', async () => {
    const evil = new TokenService(
      new SigningKeyStore(server.services.database.db),
      server.services.secretBox,
      'http://evil.example',
    );
    await evil.init();
    const { token } = await evil.issueAccessToken({
      userId: user.uuid,
      clientId: client.clientId,
      grantId: randomUUID(),
    });
    await expectError(await validate(token), 401, 'invalid_token');
  });

  it('refuses an expired token with 401 expired_token', async () => {
    const { token } = await server.services.tokens.issueAccessToken({
      userId: user.uuid,
      clientId: client.clientId,
      grantId: randomUUID(),
      ttlSeconds: -60,
    });
    await expectError(await validate(token), 401, 'expired_token');
  });

  it('refuses a token revoked through RFC 7009 at once, while its sibling refresh still works', async () => {
    const { code } = await authorizeWithBearer(server.url, user, client);
    const pair = (await (await exchange(server.url, client, code)).json()) as TokenResult;
    expect((await validate(pair.access_token)).status).toBe(200); // now cached as verified
    const other = await createClient(server.url, user, ['https://other.example/cb']);
    // Another client cannot revoke it (200, nothing happens: RFC 7009 §2.2 reveals nothing).
    const foreign = await post(`${server.url}/oauth/revoke`, {
      token: pair.access_token,
      client_id: other.clientId,
      client_secret: other.clientSecret,
    });
    expect(foreign.status).toBe(200);
    expect((await validate(pair.access_token)).status).toBe(200);
    const revoke = await post(`${server.url}/oauth/revoke`, {
      token: pair.access_token,
      token_type_hint: 'access_token',
      client_id: client.clientId,
      client_secret: client.clientSecret,
    });
    expect(revoke.status).toBe(200);
    await expectError(await validate(pair.access_token), 401, 'invalid_token');
    const refreshed = await post(`${server.url}/oauth/token`, {
      grant_type: 'refresh_token',
      refresh_token: pair.refresh_token,
      client_id: client.clientId,
      client_secret: client.clientSecret,
    });
    expect(refreshed.status).toBe(200);
  });

  it("introspects only the caller's own, live tokens", async () => {
    const other = await createClient(server.url, user, ['https://other.example/cb']);
    const ask = (token: string, c: TestClient) =>
      post(`${server.url}/oauth/introspect`, { token, client_id: c.clientId, client_secret: c.clientSecret });
    const mine = (await (await ask(tokens.access_token, client)).json()) as Record<string, unknown>;
    expect(mine).toMatchObject({
      active: true,
      client_id: client.clientId,
      user_id: user.uuid,
      token_type: 'Bearer',
    });
    expect(await (await ask(tokens.access_token, other)).json()).toEqual({ success: true, active: false });
    expect(await (await ask(tokens.refresh_token, other)).json()).toEqual({ success: true, active: false });
    expect(await (await ask('garbage', client)).json()).toEqual({ success: true, active: false });
    const unauthenticated = await post(`${server.url}/oauth/introspect`, {
      token: tokens.access_token,
      client_id: client.clientId,
      client_secret: 'wrong',
    });
    await expectError(unauthenticated, 401, 'invalid_client');
  });
});
