import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { PageBrowser } from '../oauth/pageBrowser.js';
import { bearer, createUser, type TestUser } from '../oauth/support.js';
import { boundLoginToken, createOidcClient, discover, type OidcTestClient } from './support.js';

interface Pending {
  verifier: string;
  state: string;
  nonce: string;
}

/**
 * App B: "Sign in with dauth" on openid-client, as a real HTTP server. `GET /login` starts the flow
 * (PKCE, state, nonce kept per browser cookie) and redirects to dauth; `GET /callback` finishes it and
 * signs the browser in as the ID token's `sub`; `GET /me` says who the browser is signed in as.
 */
async function startAppB(baseUrl: string, owner: TestUser) {
  const pending = new Map<string, Pending>();
  const signedIn = new Map<string, string>();
  const callbackOutcomes: string[] = [];
  // B's openid-client configuration: made once B listens (its redirect URI names B's port).
  const b: { config?: client.Configuration } = {};
  let origin = '';
  const cookieOf = (req: http.IncomingMessage) => /b_browser=([\w-]+)/.exec(req.headers.cookie ?? '')?.[1];

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url!, origin);
      if (url.pathname === '/login') {
        const browser = randomBytes(16).toString('base64url');
        const flow = {
          verifier: client.randomPKCECodeVerifier(),
          state: client.randomState(),
          nonce: client.randomNonce(),
        };
        pending.set(browser, flow);
        const target = client.buildAuthorizationUrl(b.config!, {
          redirect_uri: `${origin}/callback`,
          scope: 'openid email profile',
          code_challenge: await client.calculatePKCECodeChallenge(flow.verifier),
          code_challenge_method: 'S256',
          state: flow.state,
          nonce: flow.nonce,
        });
        res.writeHead(302, { location: target.href, 'set-cookie': `b_browser=${browser}; HttpOnly; Path=/` });
        return res.end();
      }
      if (url.pathname === '/callback') {
        const browser = cookieOf(req);
        const flow = browser ? pending.get(browser) : undefined;
        try {
          if (!browser || !flow) throw new Error('no sign-in started in this browser');
          const tokens = await client.authorizationCodeGrant(b.config!, url, {
            pkceCodeVerifier: flow.verifier,
            expectedState: flow.state,
            expectedNonce: flow.nonce,
            idTokenExpected: true,
          });
          signedIn.set(browser, tokens.claims()!.sub);
          callbackOutcomes.push('signed_in');
          res.writeHead(200, { 'content-type': 'text/plain' });
          return res.end(`signed in as ${tokens.claims()!.sub}`);
        } catch (err) {
          callbackOutcomes.push(`refused: ${(err as Error).message}`);
          res.writeHead(401, { 'content-type': 'text/plain' });
          return res.end('not signed in');
        }
      }
      if (url.pathname === '/me') {
        const who = signedIn.get(cookieOf(req) ?? '');
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ user: who ?? null }));
      }
      res.writeHead(404).end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const app = await createOidcClient(baseUrl, owner, [`${origin}/callback`], { name: 'App B' });
  b.config = await discover(baseUrl, app);
  return {
    app,
    origin,
    callbackOutcomes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The attacker's own browser at app B: a cookie jar over fetch, redirects not followed. */
function attackerBrowser() {
  let cookie = '';
  return {
    async get(url: string, headers: Record<string, string> = {}) {
      const res = await fetch(url, {
        redirect: 'manual',
        headers: { ...headers, ...(cookie ? { cookie } : {}) },
      });
      const set = res.headers.getSetCookie()[0];
      if (set && new URL(url).pathname === '/login') cookie = set.split(';')[0]!;
      return res;
    },
  };
}

/**
 * Issue 24, finding 1, end to end: a hostile app A's backend holds the victim's login JWT (the
 * backend flow hands it over) and uses it to sign itself in to another app B as the victim. B is a
 * real OpenID Connect client (openid-client) with a real HTTP callback. The attacker starts B's
 * sign-in in its own browser, calls dauth's authorize with B's parameters and the victim's JWT as
 * bearer, and loads B's callback with whatever came back.
 */
describe('a relayed login JWT does not sign its user in to another app', () => {
  let server: TestServer;
  let victim: TestUser;
  let appA: OidcTestClient;
  let appB: Awaited<ReturnType<typeof startAppB>>;

  beforeAll(async () => {
    server = await startTestServer();
    const owner = await createUser(server.url);
    appA = await createOidcClient(server.url, owner, ['http://127.0.0.1:9/a'], { name: 'App A' });
    appB = await startAppB(server.url, owner);
    victim = await createUser(server.url);
  });
  afterAll(async () => {
    await appB?.close();
    await server?.close();
  });

  /** The attack: B's flow started by the attacker, authorize called with `jwt`; answers dauth's reply. */
  async function attack(jwt: string) {
    const browser = attackerBrowser();
    const start = await browser.get(`${appB.origin}/login`);
    expect(start.status).toBe(302);
    const authorize = await browser.get(start.headers.get('location')!, bearer(jwt));
    return { browser, authorize };
  }

  it('an unbound JWT (the interface flow hands A exactly this): consent_required, no code; B signs nobody in', async () => {
    const { browser, authorize } = await attack(victim.loginToken);
    expect(authorize.status).toBe(302);
    const back = new URL(authorize.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(`${appB.origin}/callback`);
    expect(back.searchParams.get('error')).toBe('consent_required');
    expect(back.searchParams.has('code')).toBe(false);

    const landed = await browser.get(back.href);
    expect(landed.status).toBe(401);
    expect(appB.callbackOutcomes.at(-1)).toMatch(/^refused/);
    expect(await (await browser.get(`${appB.origin}/me`)).json()).toEqual({ user: null });
  });

  it('a JWT bound to A: 401 client_mismatch, no redirect to B at all', async () => {
    const { browser, authorize } = await attack(await boundLoginToken(server.url, victim, appA.clientId));
    expect(authorize.status).toBe(401);
    expect(authorize.headers.get('location')).toBeNull();
    expect(await authorize.json()).toMatchObject({ success: false, error: 'client_mismatch' });
    expect(await (await browser.get(`${appB.origin}/me`)).json()).toEqual({ user: null });
  });

  it('the same B flow signs the victim in once they chose B themselves (a control: B works)', async () => {
    // The victim signs in to B on dauth's page and allows it: consent for these scopes is on record.
    const page = new PageBrowser(server.url);
    const browser = attackerBrowser(); // here: the victim's own browser at B
    const start = await browser.get(`${appB.origin}/login`);
    const consent = await page.signIn(start.headers.get('location')!, victim);
    expect(consent.status).toBe(200);
    const back = await page.allow(await consent.text());
    expect((await browser.get(back.href)).status).toBe(200);
    expect(await (await browser.get(`${appB.origin}/me`)).json()).toEqual({ user: victim.uuid });
  });
});
