import express from 'express';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AuthorizeError,
  CallbackRejectedError,
  CallbackTimeoutError,
  createCallbackHandler,
  DauthClient,
  EnvelopeError,
  ExpiredTokenError,
  MissingJwtError,
  ShutdownError,
  toHttpStatus,
  WalletRequiredError,
} from '../src/index.js';
import type { DauthClientOptions } from '../src/index.js';
import { freePort, serve } from './support/appServer.js';
import type { RunningServer } from './support/appServer.js';
import { FakeDauth } from './support/fakeDauth.js';
import type { FakeDauthOptions } from './support/fakeDauth.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

interface Setup {
  client: DauthClient;
  dauth: FakeDauth;
  app: RunningServer;
}

/** A fake dauth and an app whose callback route is served by `createCallbackHandler`. */
async function setup(
  fakeOptions: Partial<FakeDauthOptions> = {},
  clientOptions: Partial<DauthClientOptions> = {},
): Promise<Setup> {
  // The closure resolves `client` at request time, after it exists.
  const app = await serve((request, response) => {
    if (request.url?.startsWith('/dauth/callback')) createCallbackHandler(client)(request, response);
    else response.writeHead(404).end();
  });
  const redirectUri = `${app.url}/dauth/callback`;
  const dauth = await FakeDauth.start({ redirectUri, ...fakeOptions });
  const client = new DauthClient({
    clientId: 'client-1',
    clientSecret: 'secret-1',
    redirectUri,
    authServerUrl: dauth.url,
    ...clientOptions,
  });
  closers.push(async () => {
    await client.shutdown();
    await app.close();
    await dauth.close();
  });
  return { client, dauth, app };
}

describe('getSlotInfo', () => {
  it('returns the slot when the callback and its exchange complete while authorize is still delayed', async () => {
    const { client, dauth } = await setup({ authorizeDelayMs: 1_500 });
    const started = Date.now();
    const slot = await client.getSlotInfo({ jwt: 'user-jwt' });
    expect(slot).toMatchObject({ access_token: 'at-code-1', code: 'code-1' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_450);
    // The race happened: get_token answered first, authorize about 1.5 s later.
    const [token, authorize] = dauth.answeredAt;
    expect([token?.path, authorize?.path]).toEqual(['/v1/oauth-meta/get_token', '/v1/oauth-meta/authorize']);
    expect(authorize!.at - token!.at).toBeGreaterThanOrEqual(1_400);
  });

  it('a user without a PIN wallet is WalletRequiredError, answered 409 (not a generic 502)', async () => {
    const { client, dauth } = await setup();
    const error = await client.getSlotInfo({ jwt: 'no-wallet-jwt' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WalletRequiredError);
    expect(error).toBeInstanceOf(AuthorizeError);
    expect(error).toMatchObject({
      message: 'AUTHORIZE_ERROR: wallet_required',
      reason: 'wallet_required',
      responseStatus: 409,
      envelopeCode: 409,
    });
    expect(toHttpStatus(error)).toBe(409);
    expect(dauth.requestsTo('/v1/oauth-meta/get_token')).toHaveLength(0);
  });

  it('runs authorize, takes the callback and returns the slot with its 19-digit id exact', async () => {
    const { client, dauth } = await setup();
    const slot = await client.getSlotInfo({ jwt: 'user-jwt' });

    expect(slot.id.value).toBe('1234567890123456789');
    expect(slot.id.kind).toBe('number');
    expect(slot.access_token).toBe('at-code-1');
    expect(slot).toMatchObject({ refresh_token: 'rt-1', expires_in: 3600, tr_cnt: 0, code: 'code-1' });

    const [authorizeRequest] = dauth.requestsTo('/v1/oauth-meta/authorize');
    expect(authorizeRequest?.authorization).toBe('Bearer user-jwt');
    expect(authorizeRequest?.query.get('respose_type')).toBe('code');
    expect(authorizeRequest?.query.has('response_type')).toBe(false);
    expect(authorizeRequest?.query.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [tokenRequest] = dauth.requestsTo('/v1/oauth-meta/get_token');
    expect(JSON.parse(tokenRequest?.body ?? '')).toEqual({
      client_id: 'client-1',
      client_secret: 'secret-1',
      grant_type: 'authorization_code',
      code: 'code-1',
    });
    expect(dauth.callbackStatuses).toEqual([200]);
  });

  it('keeps an imported slot id as a decimal string', async () => {
    const { client } = await setup({ slotIdJson: '"9223372036854775808"' });
    const slot = await client.getSlotInfo({ jwt: 'user-jwt' });
    expect(slot.id.value).toBe('9223372036854775808');
    expect(slot.id.kind).toBe('string');
  });

  it('matches concurrent calls to their own callbacks by state', async () => {
    const { client, dauth } = await setup();
    const slots = await Promise.all([1, 2, 3, 4, 5].map(() => client.getSlotInfo({ jwt: 'user-jwt' })));
    const states = dauth.requestsTo('/v1/oauth-meta/authorize').map((request) => request.query.get('state'));
    expect(new Set(states).size).toBe(5);
    expect(new Set(slots.map((slot) => slot.code)).size).toBe(5);
  });

  it('answers the callback before the code exchange finishes', async () => {
    const { client, dauth } = await setup({ tokenDelayMs: 400 });
    let settled = false;
    const call = client.getSlotInfo({ jwt: 'user-jwt' }).finally(() => {
      settled = true;
    });
    expect(await dauth.nextCallbackStatus()).toBe(200);
    // Had the handler waited for the exchange, the call would have settled before its answer.
    expect(settled).toBe(false);
    await call;
  });

  it('fails with authorize callback timeout when no callback comes', async () => {
    const { client } = await setup({ callback: 'none' });
    const started = Date.now();
    const error = await client
      .getSlotInfo({ jwt: 'user-jwt', timeout: 300 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CallbackTimeoutError);
    expect((error as Error).message).toBe('authorize callback timeout');
    expect(toHttpStatus(error)).toBe(408);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('times out when the callback route is GET-only (the service POST gets 405)', async () => {
    const app = express();
    // The mistake under test: the callback mounted with app.get. The service's POST then meets the
    // framework's refusal, 405 as the spec describes it.
    app.get('/dauth/callback', (_request, response) => {
      response.status(200).end();
    });
    app.use((_request, response) => {
      response.status(405).end();
    });
    const appServer = await serve(app);
    const redirectUri = `${appServer.url}/dauth/callback`;
    const dauth = await FakeDauth.start({ redirectUri });
    const client = new DauthClient({
      clientId: 'client-1',
      clientSecret: 'secret-1',
      redirectUri,
      authServerUrl: dauth.url,
    });
    closers.push(async () => {
      await client.shutdown();
      await appServer.close();
      await dauth.close();
    });

    const call = client.getSlotInfo({ jwt: 'user-jwt', timeout: 500 });
    expect(await dauth.nextCallbackStatus()).toBe(405);
    await expect(call).rejects.toBeInstanceOf(CallbackTimeoutError);
    expect(dauth.requestsTo('/v1/oauth-meta/get_token')).toHaveLength(0);
  });

  it('ignores a callback for an unknown state, and the waiting call times out', async () => {
    const { client, app } = await setup({ callback: 'none' });
    const call = client.getSlotInfo({ jwt: 'user-jwt', timeout: 400 });
    const answer = await fetch(`${app.url}/dauth/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ success: 1, code: 'stolen', state: 'not-a-pending-state' }),
    });
    expect(answer.status).toBe(200);
    expect(client.handleCallback({ success: 1, code: 'stolen', state: 'another-unknown' })).toBe('ignored');
    await expect(call).rejects.toBeInstanceOf(CallbackTimeoutError);
  });

  it('fails with authorize callback rejected when success is not 1', async () => {
    const { client } = await setup({ callback: 'reject' });
    const error = await client.getSlotInfo({ jwt: 'user-jwt' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CallbackRejectedError);
    expect(toHttpStatus(error)).toBe(502);
  });

  it('ignores a second callback for a state already claimed', async () => {
    const { client, dauth } = await setup({ callback: 'none', tokenDelayMs: 200 });
    const call = client.getSlotInfo({ jwt: 'user-jwt' });
    await vi.waitFor(() => expect(dauth.requestsTo('/v1/oauth-meta/authorize')).toHaveLength(1));
    const state = dauth.requestsTo('/v1/oauth-meta/authorize')[0]?.query.get('state') ?? '';
    // The code is one the fake never issued, so the first exchange fails with 570…
    expect(client.handleCallback({ success: 1, code: 'unknown-code', state })).toBe('exchanging');
    // …and a replay for the same state can no longer change the outcome.
    expect(client.handleCallback({ success: 0, state })).toBe('ignored');
    await expect(call).rejects.toMatchObject({ code: 570 });
  });

  it('maps an expired JWT to EXPIRED_TOKEN (401)', async () => {
    const { client } = await setup();
    const error = await client.getSlotInfo({ jwt: 'expired-jwt' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ExpiredTokenError);
    expect(toHttpStatus(error)).toBe(401);
  });

  it('maps a redirect_uri mismatch to AUTHORIZE_ERROR (502)', async () => {
    const { client, dauth } = await setup();
    dauth.set({ redirectUri: 'http://127.0.0.1:1/registered/' });
    const error = await client.getSlotInfo({ jwt: 'user-jwt' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AuthorizeError);
    expect(error).toMatchObject({ reason: 'redirect_uri mismatch', responseStatus: 401, envelopeCode: 401 });
    expect(toHttpStatus(error)).toBe(502);
  });

  it('maps an unreachable service to AUTHORIZE_ERROR (502)', async () => {
    const port = await freePort();
    const client = new DauthClient({
      clientId: 'c',
      clientSecret: 's',
      redirectUri: 'http://127.0.0.1:1/cb',
      authServerUrl: `http://127.0.0.1:${port}`,
    });
    const error = await client.getSlotInfo({ jwt: 'user-jwt' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AuthorizeError);
    expect(toHttpStatus(error)).toBe(502);
  });

  for (const [code, message] of [
    [410, 'client mismatch'],
    [510, 'code expired'],
    [570, 'unregistered'],
  ] as const) {
    it(`fails with the envelope code ${code} from get_token (500)`, async () => {
      const { client } = await setup({
        tokenResponse: { status: 200, body: `{"code":${code},"message":"${message}","data":[]}` },
      });
      const error = await client.getSlotInfo({ jwt: 'user-jwt' }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(EnvelopeError);
      expect(error).toMatchObject({ code, serviceMessage: message });
      expect(toHttpStatus(error)).toBe(500);
    });
  }

  it('fails with 410 when the client secret is wrong', async () => {
    const { client } = await setup({}, { clientSecret: 'wrong' });
    await expect(client.getSlotInfo({ jwt: 'user-jwt' })).rejects.toMatchObject({ code: 410 });
  });

  it.each([[''], ['   '], [undefined], [42]])('refuses a missing jwt (%j) with 400', async (jwt) => {
    const { client, dauth } = await setup();
    const error = await client.getSlotInfo({ jwt } as never).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MissingJwtError);
    expect(toHttpStatus(error)).toBe(400);
    expect(dauth.requests).toHaveLength(0);
  });

  it('refuses a timeout that is not a positive number of milliseconds', async () => {
    const { client } = await setup();
    await expect(client.getSlotInfo({ jwt: 'j', timeout: 0 })).rejects.toBeInstanceOf(RangeError);
    await expect(client.getSlotInfo({ jwt: 'j', timeout: Number.NaN })).rejects.toBeInstanceOf(RangeError);
  });
});

describe('shutdown', () => {
  it('fails pending calls with shutdown (503) and refuses later ones', async () => {
    const { client, dauth } = await setup({ callback: 'none' });
    const calls = [client.getSlotInfo({ jwt: 'a' }), client.getSlotInfo({ jwt: 'b' })].map((call) =>
      call.catch((caught: unknown) => caught),
    );
    await vi.waitFor(() => expect(dauth.requestsTo('/v1/oauth-meta/authorize')).toHaveLength(2));
    const started = Date.now();
    await client.shutdown();
    const errors = await Promise.all(calls);
    expect(Date.now() - started).toBeLessThan(1_000);
    for (const error of errors) {
      expect(error).toBeInstanceOf(ShutdownError);
      expect(toHttpStatus(error)).toBe(503);
    }
    expect(client.isShutDown).toBe(true);
    await expect(client.getSlotInfo({ jwt: 'c' })).rejects.toBeInstanceOf(ShutdownError);
    expect(client.handleCallback({ success: 1, code: 'x', state: 'y' })).toBe('ignored');
  });

  it('stops a call whose authorize request is still in flight', async () => {
    // A service that never answers authorize.
    const silent = await serve(() => undefined);
    closers.push(silent.close);
    const client = new DauthClient({
      clientId: 'c',
      clientSecret: 's',
      redirectUri: 'http://127.0.0.1:1/cb',
      authServerUrl: silent.url,
    });
    const call = client.getSlotInfo({ jwt: 'user-jwt' }).catch((caught: unknown) => caught);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await client.shutdown();
    expect(await call).toBeInstanceOf(ShutdownError);
  });

  it('fails a call whose code exchange is in flight', async () => {
    const { client, dauth } = await setup({ tokenDelayMs: 5_000 });
    const call = client.getSlotInfo({ jwt: 'user-jwt' }).catch((caught: unknown) => caught);
    await vi.waitFor(() => expect(dauth.requestsTo('/v1/oauth-meta/get_token')).toHaveLength(1));
    await client.shutdown();
    expect(await call).toBeInstanceOf(ShutdownError);
  });
});

describe('client configuration', () => {
  const valid = { clientId: 'c', clientSecret: 's', redirectUri: 'https://game.example/cb/' };

  it('requires clientId, clientSecret and an http(s) redirectUri', () => {
    expect(() => new DauthClient({ ...valid, clientId: '' })).toThrow(/clientId is required/);
    expect(() => new DauthClient({ ...valid, clientSecret: undefined as never })).toThrow(/clientSecret/);
    expect(() => new DauthClient({ ...valid, redirectUri: 'game.example/cb' })).toThrow(/redirectUri/);
    expect(() => new DauthClient({ ...valid, redirectUri: 'ftp://game.example/cb' })).toThrow(/redirectUri/);
    expect(() => new DauthClient({ ...valid, authServerUrl: 'http://x/?a=1' })).toThrow(/authServerUrl/);
  });

  it('defaults the service to http://127.0.0.1:8080 and keeps redirectUri byte for byte', () => {
    const client = new DauthClient({ ...valid, redirectUri: 'HTTPS://Game.example:443/cb/' });
    expect(client.authServerUrl).toBe('http://127.0.0.1:8080');
    expect(client.redirectUri).toBe('HTTPS://Game.example:443/cb/');
    expect(new DauthClient({ ...valid, authServerUrl: 'https://dauth.example//' }).authServerUrl).toBe(
      'https://dauth.example',
    );
  });

  it('never exposes the client secret through inspection or JSON', async () => {
    const { inspect } = await import('node:util');
    const client = new DauthClient({ ...valid, clientSecret: 'very-secret-value' });
    expect(inspect(client, { depth: 5 })).not.toContain('very-secret-value');
    expect(JSON.stringify(client)).not.toContain('very-secret-value');
  });
});
