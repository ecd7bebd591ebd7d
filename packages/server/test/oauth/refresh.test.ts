import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFRESH_GRACE_MS } from '../../src/services/oauth/oauthService.js';
import { postgresAvailable } from '../helpers/environment.js';
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

describe.each([{ postgres: false }, { postgres: true }])('refresh rotation (postgres: $postgres)', (opts) => {
  let server: TestServer;
  let user: TestUser;
  let client: TestClient;

  beforeAll(async () => {
    if (opts.postgres && !postgresAvailable) return;
    server = await startTestServer(opts);
    user = await createUser(server.url);
    client = await createClient(server.url, user, ['https://app.example/callback']);
  });
  afterAll(() => server?.close());

  const refresh = (token: string, c: TestClient = client) =>
    post(`${server.url}/oauth/token`, {
      grant_type: 'refresh_token',
      refresh_token: token,
      client_id: c.clientId,
      client_secret: c.clientSecret,
    });
  const validate = (token: string) => fetch(`${server.url}/v1/oauth/validate`, { headers: bearer(token) });
  async function freshTokens(): Promise<TokenResult> {
    const { code } = await authorizeWithBearer(server.url, user, client);
    const res = await exchange(server.url, client, code);
    expect(res.status).toBe(200);
    return (await res.json()) as TokenResult;
  }

  it('rotates: each refresh returns a new pair and the previous access token stays valid until it expires', async (ctx) => {
    if (!server) return ctx.skip();
    const first = await freshTokens();
    const res = await refresh(first.refresh_token);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const second = (await res.json()) as TokenResult;
    expect(second).toMatchObject({
      success: true,
      token_type: 'Bearer',
      expires_in: 3600,
      user_id: user.uuid,
    });
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);
    expect((await validate(second.access_token)).status).toBe(200);
    expect((await validate(first.access_token)).status).toBe(200);
    const third = (await (await refresh(second.refresh_token)).json()) as TokenResult;
    expect((await validate(third.access_token)).status).toBe(200);
  });

  it('returns the already-issued successor to a concurrent refresh of the same token (grace window)', async (ctx) => {
    if (!server) return ctx.skip();
    const first = await freshTokens();
    const results = await Promise.all([
      refresh(first.refresh_token),
      refresh(first.refresh_token),
      refresh(first.refresh_token),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    const bodies = (await Promise.all(results.map((r) => r.json()))) as TokenResult[];
    // Every caller got the one successor; nothing was revoked.
    expect(new Set(bodies.map((b) => b.refresh_token)).size).toBe(1);
    expect(new Set(bodies.map((b) => b.access_token)).size).toBe(1);
    expect((await validate(bodies[0]!.access_token)).status).toBe(200);
    // A retry a moment later (still inside the window) gets it again.
    const retry = (await (await refresh(first.refresh_token)).json()) as TokenResult;
    expect(retry.refresh_token).toBe(bodies[0]!.refresh_token);
    expect(retry.expires_in).toBeLessThanOrEqual(3600);
    expect(retry.expires_in).toBeGreaterThan(3590);
    // The family lives on.
    const next = await refresh(bodies[0]!.refresh_token);
    expect(next.status).toBe(200);
  });

  it('treats a replay after the successor was used as reuse and revokes the whole family', async (ctx) => {
    if (!server) return ctx.skip();
    const first = await freshTokens();
    const second = (await (await refresh(first.refresh_token)).json()) as TokenResult;
    const third = (await (await refresh(second.refresh_token)).json()) as TokenResult;
    // Inside the grace window but the successor (second) is already used: no grace.
    const replay = await refresh(first.refresh_token);
    expect((await expectError(replay, 400, 'invalid_grant')).reason).toBe('refresh_token_reused');
    for (const t of [first.access_token, second.access_token, third.access_token]) {
      await expectError(await validate(t), 401, 'invalid_token');
    }
    const afterwards = await refresh(third.refresh_token);
    expect((await expectError(afterwards, 400, 'invalid_grant')).reason).toBe('grant_revoked');
  });

  it('treats a replay after the grace window as reuse and revokes the whole family', async (ctx) => {
    if (!server) return ctx.skip();
    const first = await freshTokens();
    const second = (await (await refresh(first.refresh_token)).json()) as TokenResult;
    await new Promise((r) => setTimeout(r, REFRESH_GRACE_MS + 300));
    const replay = await refresh(first.refresh_token);
    expect((await expectError(replay, 400, 'invalid_grant')).reason).toBe('refresh_token_reused');
    await expectError(await validate(second.access_token), 401, 'invalid_token');
    await expectError(await validate(first.access_token), 401, 'invalid_token');
    expect((await expectError(await refresh(second.refresh_token), 400, 'invalid_grant')).reason).toBe(
      'grant_revoked',
    );
  }, 20_000);

  it("refuses another client's refresh token and an unknown one without changing anything", async (ctx) => {
    if (!server) return ctx.skip();
    const first = await freshTokens();
    const other = await createClient(server.url, user, ['https://other.example/cb']);
    expect((await expectError(await refresh(first.refresh_token, other), 400, 'invalid_grant')).reason).toBe(
      'client_mismatch',
    );
    expect((await expectError(await refresh('n'.repeat(43)), 400, 'invalid_grant')).reason).toBe(
      'refresh_token_unknown',
    );
    const missing = await post(`${server.url}/oauth/token`, {
      grant_type: 'refresh_token',
      client_id: client.clientId,
      client_secret: client.clientSecret,
    });
    expect((await expectError(missing, 400, 'invalid_request')).field).toBe('refresh_token');
    // Unchanged: the rightful client still refreshes, and the old access token still validates.
    expect((await refresh(first.refresh_token)).status).toBe(200);
    expect((await validate(first.access_token)).status).toBe(200);
  });
});
