import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DauthClient, EnvelopeError, MalformedResponseError, StatusRequestError } from '../src/index.js';
import type { Logger } from '../src/index.js';
import { freePort } from './support/appServer.js';
import { FakeDauth } from './support/fakeDauth.js';

let dauth: FakeDauth;
const warnings: { message: string; context: Record<string, unknown> | undefined }[] = [];
const logger: Logger = { warn: (message, context) => warnings.push({ message, context }) };
let client: DauthClient;

beforeAll(async () => {
  dauth = await FakeDauth.start({ redirectUri: 'http://127.0.0.1:1/cb' });
  client = new DauthClient({
    clientId: 'client-1',
    clientSecret: 'secret-1',
    redirectUri: 'http://127.0.0.1:1/cb',
    authServerUrl: dauth.url,
    logger,
  });
});
afterAll(() => dauth.close());

describe('refresh', () => {
  it('exchanges a refresh token through get_token and keeps the id exact', async () => {
    const slot = await client.refresh('rt-1');
    expect(slot.id.value).toBe('1234567890123456789');
    expect(slot.access_token).toBe('at-refreshed');
    const body = JSON.parse(dauth.requestsTo('/v1/oauth-meta/get_token').at(-1)?.body ?? '') as unknown;
    expect(body).toEqual({
      client_id: 'client-1',
      client_secret: 'secret-1',
      grant_type: 'refresh_token',
      refresh_token: 'rt-1',
    });
  });

  it('fails with the envelope code', async () => {
    await expect(client.refresh('stale')).rejects.toMatchObject({ code: 510 });
  });
});

describe('logout', () => {
  it('posts to user/logout with the access token', async () => {
    await client.logout('at-1');
    const request = dauth.requestsTo('/v1/oauth-meta/user/logout').at(-1);
    expect(request?.authorization).toBe('Bearer at-1');
  });

  it('fails on an envelope code other than 1, and on a string code', async () => {
    dauth.set({ tokenResponse: undefined });
    const failing = await FakeDauth.start({ redirectUri: 'http://127.0.0.1:1/cb' });
    const other = new DauthClient({
      clientId: 'client-1',
      clientSecret: 'secret-1',
      redirectUri: 'http://127.0.0.1:1/cb',
      authServerUrl: failing.url,
      httpClient: async (url, init) => {
        const response = await fetch(url, init);
        const body = url.endsWith('/user/logout')
          ? '{"code":"1","message":"success","data":[]}'
          : await response.text();
        return { status: response.status, text: () => Promise.resolve(body) };
      },
    });
    await expect(other.logout('at-1')).rejects.toBeInstanceOf(MalformedResponseError);
    await failing.close();
    const error = new EnvelopeError('logout', 410, 'client mismatch');
    expect(error.message).toBe('logout failed with code 410 (client mismatch): client mismatch');
  });
});

describe('login status reports', () => {
  it('reports login and logout and returns the status result', async () => {
    const login = await client.reportLogin({ accessToken: 'at-good', userId: '42' });
    expect(login).toMatchObject({ ok: true, status: { status: 'logged_in', user_id: '42' } });
    const logout = await client.reportLogout({ accessToken: 'at-good', userId: '42' });
    expect(logout).toMatchObject({ ok: true, status: { status: 'logged_out', transfer_enabled: true } });
    const request = dauth.requestsTo('/v1/oauth/status/logout').at(-1);
    expect(request?.authorization).toBe('Bearer at-good');
    expect(JSON.parse(request?.body ?? '')).toEqual({ user_id: '42', client_id: 'client-1' });
  });

  it('never throws into the login path: a refused report is returned and logged', async () => {
    warnings.length = 0;
    const report = await client.reportLogin({ accessToken: 'at-bad', userId: '42' });
    expect(report.ok).toBe(false);
    expect(!report.ok && report.error).toBeInstanceOf(StatusRequestError);
    expect(!report.ok && report.error).toMatchObject({ responseStatus: 401, errorCode: 'invalid_token' });
    expect(warnings).toEqual([
      { message: 'dauth: reporting login failed', context: { error: expect.any(String) } },
    ]);
    expect(JSON.stringify(warnings)).not.toContain('at-bad');
  });

  it('never throws when the service is unreachable', async () => {
    const port = await freePort();
    const offline = new DauthClient({
      clientId: 'c',
      clientSecret: 's',
      redirectUri: 'http://127.0.0.1:1/cb',
      authServerUrl: `http://127.0.0.1:${port}`,
      logger,
    });
    warnings.length = 0;
    const report = await offline.reportLogout({ accessToken: 'at-good', userId: '42' });
    expect(report.ok).toBe(false);
    expect(warnings.map((warning) => warning.message)).toEqual(['dauth: reporting logout failed']);
  });

  it('checks the status, and throws when that fails', async () => {
    const status = await client.checkStatus({ accessToken: 'at-good', userId: '42' });
    expect(status).toMatchObject({ status: 'logged_out', transfer_enabled: true, user_id: '42' });
    const request = dauth.requestsTo('/v1/oauth/status/check').at(-1);
    expect(request?.query.get('client_id')).toBe('client-1');
    await expect(client.checkStatus({ accessToken: 'at-bad', userId: '42' })).rejects.toBeInstanceOf(
      StatusRequestError,
    );
  });
});
