import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metaAuthorize, registerWallet } from '../backend/support.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { boundLoginToken } from '../oidc/support.js';
import { PageBrowser } from './pageBrowser.js';
import {
  authorizeUrl,
  bearer,
  type CallbackServer,
  createClient,
  createUser,
  startCallbackServer,
  type TestClient,
  type TestUser,
} from './support.js';

/**
 * `LOGIN_BINDING=strict` (decisions §8): every bearer authorize — plain OAuth and the backend flow
 * too — needs a login JWT bound to the app or the user's consent to it. An unbound JWT relayed by
 * another app's backend authorizes nothing the user did not choose.
 */
describe('LOGIN_BINDING=strict', () => {
  let server: TestServer;
  let callbacks: CallbackServer;
  let owner: TestUser;

  beforeAll(async () => {
    server = await startTestServer({ env: { LOGIN_BINDING: 'strict' } });
    callbacks = await startCallbackServer();
    owner = await createUser(server.url);
  });
  afterAll(async () => {
    await callbacks?.close();
    await server?.close();
  });

  const plainAuthorize = (app: TestClient, token: string) =>
    fetch(
      authorizeUrl(server.url, {
        client_id: app.clientId,
        redirect_uri: app.redirectUri,
        response_type: 'code',
        state: 'st',
      }),
      { headers: bearer(token), redirect: 'manual' },
    ).then((res) => {
      expect(res.status).toBe(302);
      return new URL(res.headers.get('location')!).searchParams;
    });

  it('plain OAuth: an unbound JWT without consent gets consent_required; bound, or after consent, a code', async () => {
    const user = await createUser(server.url);
    const app = await createClient(server.url, owner, [callbacks.url('/plain')]);
    const refused = await plainAuthorize(app, user.loginToken);
    expect(refused.get('error')).toBe('consent_required');
    expect(refused.get('state')).toBe('st');
    expect(refused.has('code')).toBe(false);

    expect(
      (await plainAuthorize(app, await boundLoginToken(server.url, user, app.clientId))).has('code'),
    ).toBe(true);

    // The user approves the app on the page: the unbound JWT now opens it too.
    const browser = new PageBrowser(server.url);
    const consent = await browser.signIn(
      authorizeUrl(server.url, {
        client_id: app.clientId,
        redirect_uri: app.redirectUri,
        response_type: 'code',
      }),
      user,
    );
    await browser.allow(await consent.text());
    expect((await plainAuthorize(app, user.loginToken)).has('code')).toBe(true);
  });

  it('backend flow: an unbound JWT without consent gets 403 consent_required, no slot and no callback; bound, it runs', async () => {
    const player = await createUser(server.url);
    await registerWallet(server.url, player);
    const game = await createClient(server.url, owner, [callbacks.url('/game')]);
    const params = (state: string) => ({
      client_id: game.clientId,
      redirect_uri: game.redirectUri,
      respose_type: 'code',
      state,
    });

    const refused = await metaAuthorize(server.url, player.loginToken, params('strict-refused'));
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 403, data: [] });
    expect(String(refused.body.message)).toMatch(/^consent_required/);
    const slots = await fetch(`${server.url}/v1/dev-user/slots`, { headers: bearer(player.loginToken) });
    expect(((await slots.json()) as { slots: unknown[] }).slots).toEqual([]);

    const bound = await boundLoginToken(server.url, player, game.clientId);
    const ok = await metaAuthorize(server.url, bound, params('strict-bound'));
    expect(ok.status, ok.text).toBe(200);
    expect((await callbacks.waitFor('strict-bound')).code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(callbacks.requests.some((r) => r.body.includes('strict-refused'))).toBe(false);
  });

  it('a JWT bound to another app is still 401 client_mismatch, consent or not', async () => {
    const user = await createUser(server.url);
    const a = await createClient(server.url, owner, [callbacks.url('/a')]);
    const b = await createClient(server.url, owner, [callbacks.url('/b')]);
    const res = await fetch(
      authorizeUrl(server.url, { client_id: b.clientId, redirect_uri: b.redirectUri, response_type: 'code' }),
      { headers: bearer(await boundLoginToken(server.url, user, a.clientId)), redirect: 'manual' },
    );
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'client_mismatch' });
  });
});
