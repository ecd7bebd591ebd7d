import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createClient, createUser, post, type TestUser } from '../helpers/http.js';
import { routeHooks } from '../helpers/routeTable.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ClientStore } from '../../src/stores/clientStore.js';
import { registerPin } from '../pin/pinHelpers.js';

const mode = (file: string) => fs.statSync(file).mode & 0o777;

/** Issue 18 point 6 and the per-route limits, against one real embedded service. */
describe('hardening (issue 18 point 6)', () => {
  let server: TestServer;
  let dev: TestUser;
  beforeAll(async () => {
    server = await startTestServer({
      env: {
        RATE_LIMITS: 'readyz=3/1m, admin=5/1m, balance_adex=3/1m, content_consume=3/1m',
      },
    });
    dev = await createUser(server.url);
  }, 120_000);
  afterAll(() => server?.close());

  it('answers 400 naming the field for calls[].value above 2^256 − 1 at /v1/pin/verify', async () => {
    const user = { uuid: Number(dev.uuid), email: dev.email, token: dev.loginToken };
    const pin = await registerPin(server, user);
    const verify = (value: string) =>
      post(
        `${server.url}/v1/pin/verify`,
        {
          user_uuid: user.uuid,
          ...pin.pin,
          key_share_user: pin.key_share_user,
          calls: [{ to: '0x000000000000000000000000000000000000dEaD', value, data: '0x' }],
        },
        bearer(dev.loginToken),
      );
    const tooLarge = await verify((2n ** 256n).toString());
    expect(tooLarge.status).toBe(400);
    expect(await tooLarge.json()).toMatchObject({
      success: false,
      error: 'invalid_request',
      field: 'calls.0.value',
    });
    // The largest uint256 passes validation (the wallet then cannot pay it: not a 400).
    expect((await verify((2n ** 256n - 1n).toString())).status).not.toBe(400);
  }, 60_000);

  it('refuses 2^256 as a marketplace price or a faucet amount with 400, before anything else', async () => {
    const faucet = await post(
      `${server.url}/v1/admin/faucet`,
      { address: '0x000000000000000000000000000000000000dEaD', native: (2n ** 256n).toString() },
      bearer(server.services.secrets.adminApiKey),
    );
    expect(faucet.status).toBe(400);
  });

  it('creates DATA_DIR 0700 and the database and key files 0600', () => {
    expect(mode(server.dataDir)).toBe(0o700);
    for (const file of ['dauth.sqlite', 'master.key', 'admin-api-key']) {
      expect(mode(path.join(server.dataDir, file))).toBe(0o600);
    }
    for (const file of ['dauth.sqlite-wal', 'dauth.sqlite-shm']) {
      const full = path.join(server.dataDir, file);
      if (fs.existsSync(full)) expect(mode(full)).toBe(0o600);
    }
  });

  it('starts the embedded anvil without CORS: a web page cannot call its cheat codes', async () => {
    const rpcUrl = server.services.chain.info.rpcUrl!;
    const preflight = await fetch(rpcUrl, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://evil.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const call = await fetch(rpcUrl, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    });
    expect(call.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('limits /readyz per address (RATE_LIMITS readyz)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await fetch(`${server.url}/readyz`)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('limits admin routes per address before the key or the body is looked at', async () => {
    const statuses: number[] = [];
    // The faucet test above spent one of the five.
    for (let i = 0; i < 4; i++) {
      statuses.push((await post(`${server.url}/v1/admin/transfer-tickets`, { nonsense: true })).status);
    }
    expect(statuses.every((s) => s === 400 || s === 401)).toBe(true);
    const blocked = await post(
      `${server.url}/v1/admin/faucet`,
      { address: '0x000000000000000000000000000000000000dEaD' },
      bearer(server.services.secrets.adminApiKey),
    );
    expect(blocked.status).toBe(429);
    expect(await blocked.json()).toMatchObject({ success: false, error: 'rate_limited' });
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('limits balance_adex and increase_used_content_token per address', async () => {
    const balance = [];
    for (let i = 0; i < 4; i++) {
      balance.push(
        (
          await fetch(
            `${server.url}/v1/development-api/balance_adex/0x000000000000000000000000000000000000dEaD`,
          )
        ).status,
      );
    }
    expect(balance.slice(0, 3).every((s) => s !== 429)).toBe(true);
    expect(balance[3]).toBe(429);

    const consume = [];
    for (let i = 0; i < 4; i++) {
      consume.push(
        (
          await post(`${server.url}/v1/development-api/increase_used_content_token`, {
            encrypted_message: 'abcd',
          })
        ).status,
      );
    }
    expect(consume.slice(0, 3).every((s) => s >= 400 && s < 429)).toBe(true);
    expect(consume[3]).toBe(429);
  });

  it('sends no HSTS header over http (development)', async () => {
    expect((await fetch(`${server.url}/healthz`)).headers.get('strict-transport-security')).toBeNull();
  });

  it('refuses app names with bidi or invisible characters or mixed-script words, and stores names NFKC-normalised', async () => {
    for (const name of [
      'Game\u202Eexe.txt',
      'Pay\u200Bpal',
      'line\u2028break',
      'tab\tname',
      '\u2066Iso\u2069',
      'P\u0430ypal', // a Cyrillic а among Latin letters
      'Bl\u03bfck Party', // a Greek ο
    ]) {
      const res = await post(
        `${server.url}/v1/dev-user/clients`,
        { name, redirect_uris: ['http://127.0.0.1:9/cb'] },
        bearer(dev.loginToken),
      );
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ success: false, error: 'invalid_request', field: 'name' });
    }
    // One script per word: a name with a Latin word and a Cyrillic word is fine.
    const bilingual = await createClient(server.url, dev, ['http://127.0.0.1:9/cb'], { name: 'Game Игра' });
    expect((await server.services.clients.findClient(bilingual.clientId))?.name).toBe('Game Игра');
    const app = await createClient(server.url, dev, ['http://127.0.0.1:9/cb'], { name: 'Ｇａｍｅ ﬁ' });
    expect((await server.services.clients.findClient(app.clientId))?.name).toBe('Game fi');
  });

  it('shows an app name registered before the rule isolated and without its invisible characters', async () => {
    const clientId = `legacy${Date.now()}`;
    await new ClientStore(server.services.database.db).insert({
      clientId,
      ownerUuid: Number(dev.uuid),
      name: 'Bank\u202Etxt.exe\u200B',
      postLogoutRedirectUris: [],
      redirectUris: ['http://127.0.0.1:9/cb'],
      dapp: false,
      secretHash: '00'.repeat(32),
      createdAt: Date.now(),
    });
    const page = await fetch(
      `${server.url}/oauth/authorize?${new URLSearchParams({
        client_id: clientId,
        redirect_uri: 'http://127.0.0.1:9/cb',
        response_type: 'code',
      })}`,
    );
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<span class="app"><bdi>Banktxt.exe</bdi></span>');
    expect(html).not.toMatch(/[\u202E\u200B]/u);
  });
});

describe('an https PUBLIC_URL: __Host- cookies, HSTS, and loose modes of an older DATA_DIR tightened', () => {
  let server: TestServer;
  let dataDir: string;
  beforeAll(async () => {
    // An install from before the modes were enforced: world-readable directory and key file.
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-modes-'));
    fs.chmodSync(dataDir, 0o755);
    fs.writeFileSync(path.join(dataDir, 'master.key'), `${'cd'.repeat(32)}\n`, { mode: 0o644 });
    fs.chmodSync(path.join(dataDir, 'master.key'), 0o644);
    fs.writeFileSync(path.join(dataDir, 'dauth.sqlite'), '', { mode: 0o644 });
    fs.chmodSync(path.join(dataDir, 'dauth.sqlite'), 0o644);
    server = await startTestServer({ dataDir, env: { PUBLIC_URL: 'https://auth.example' } });
  }, 120_000);
  afterAll(() => server?.close());

  it('tightens DATA_DIR to 0700 and the key file and database to 0600 at start', () => {
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(path.join(dataDir, 'master.key'))).toBe(0o600);
    expect(mode(path.join(dataDir, 'dauth.sqlite'))).toBe(0o600);
  });

  it('sets the login page cookies with the __Host- prefix (Secure, Path=/, no Domain) and sends HSTS', async () => {
    const dev = await createUser(server.url);
    const app = await createClient(server.url, dev, ['http://127.0.0.1:9/cb']);
    const page = await fetch(
      `${server.url}/oauth/authorize?${new URLSearchParams({
        client_id: app.clientId,
        redirect_uri: app.redirectUri,
        response_type: 'code',
        state: 's',
      })}`,
    );
    expect(page.status).toBe(200);
    expect(page.headers.get('strict-transport-security')).toMatch(/max-age=\d{7,}/);
    const cookies = page.headers.getSetCookie();
    expect(cookies.length).toBeGreaterThan(0);
    for (const cookie of cookies) {
      expect(cookie).toMatch(/^__Host-dauth_/);
      expect(cookie).toMatch(/;\s*Secure/i);
      expect(cookie).toMatch(/;\s*Path=\/(;|$)/);
      expect(cookie).not.toMatch(/Domain=/i);
    }
    expect((await fetch(`${server.url}/healthz`)).headers.get('strict-transport-security')).toBeTruthy();
  });

  it('sends HSTS on every answer, refusals and unknown paths included, without a hook of the app', async () => {
    for (const url of ['/healthz', '/v1/oauth/validate', '/no-such-path']) {
      const res = await fetch(`${server.url}${url}`);
      expect(res.headers.get('strict-transport-security'), url).toBe('max-age=31536000; includeSubDomains');
    }
    const hooks = routeHooks(server.app.printRoutes({ includeHooks: true, commonPrefix: false }));
    expect(hooks.get('GET /v1/oauth/validate')).toEqual(['preHandler: handler']);
    expect(hooks.get('GET /healthz')).toEqual([]);
  });
});
