import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prettyLogs } from '../../src/logger.js';
import { prefersHtml } from '../../src/http/pages/html.js';
import { passkeyObstacle, startBanner, startLocations } from '../../src/startBanner.js';
import { loadConfig } from '../../src/config.js';
import { chromiumAvailable, launchTestBrowser } from '../helpers/browser.js';
import { createClient, createUser, type TestClient } from '../helpers/http.js';
import { freePort, startTestServer, type TestServer } from '../helpers/server.js';
import { serviceEntry } from '../helpers/serviceEntry.js';
import { authorizeUrl } from '../oauth/support.js';

/** What Chromium sends when a person opens a link. */
const BROWSER_ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

describe('browser-facing pages (issue 31)', () => {
  let server: TestServer;
  let client: TestClient;

  beforeAll(async () => {
    server = await startTestServer();
    const user = await createUser(server.url);
    client = await createClient(server.url, user, ['http://127.0.0.1:9/callback']);
  });
  afterAll(async () => server?.close());

  const badRedirect = () =>
    authorizeUrl(server.url, {
      client_id: client.clientId,
      redirect_uri: 'https://evil.example/steal',
      response_type: 'code',
      state: 's',
    });
  const unknownClient = () =>
    authorizeUrl(server.url, {
      client_id: 'no-such-client',
      redirect_uri: 'http://127.0.0.1:9/callback',
      response_type: 'code',
    });

  it('an authorize error that cannot go back to the app is an HTML page for a browser, never a redirect', async () => {
    for (const url of [badRedirect(), unknownClient()]) {
      const res = await fetch(url, { headers: { accept: BROWSER_ACCEPT }, redirect: 'manual' });
      expect(res.status).toBe(401);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      const body = await res.text();
      expect(body).toContain('<h1>This sign-in link does not work</h1>');
      expect(body).toContain('did not register the address it asked to return to (redirect_uri)');
      expect(body).toContain('Error 401 redirect_uri_mismatch: redirect_uri mismatch');
      // The login page's look (same stylesheet), and no link to the unverified address.
      expect(body).toContain('box-shadow:0 2px 16px');
      expect(body).not.toContain('evil.example');
    }
  });

  it('an API client keeps the JSON error shape (decisions §2, RFC 6749 error_description)', async () => {
    for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/html;q=0.5']) {
      const res = await fetch(badRedirect(), {
        headers: accept ? { accept } : {},
        redirect: 'manual',
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({
        success: false,
        error: 'redirect_uri_mismatch',
        message: 'redirect_uri mismatch',
        error_description: 'redirect_uri mismatch',
      });
    }
  });

  it('a malformed authorize request (no client_id) is a page for a browser, JSON for an API client', async () => {
    const url = `${server.url}/oauth/authorize?response_type=code`;
    const page = await fetch(url, { headers: { accept: BROWSER_ACCEPT } });
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('The sign-in link is incomplete or malformed.');
    const api = await fetch(url);
    expect(api.status).toBe(400);
    expect(await api.json()).toMatchObject({ success: false, error: 'invalid_request' });
  });

  it('`/` sends a browser to /console and tells an API client where things are', async () => {
    const page = await fetch(`${server.url}/`, { headers: { accept: BROWSER_ACCEPT }, redirect: 'manual' });
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toBe('/console');
    const api = await fetch(`${server.url}/`);
    expect(api.status).toBe(200);
    expect(await api.json()).toEqual({
      service: 'dauth',
      console: '/console',
      docs: '/docs',
      openid_configuration: '/.well-known/openid-configuration',
    });
  });

  it.skipIf(!chromiumAvailable)('Chromium shows the error page, and `/` lands on the console', async () => {
    const browser = await launchTestBrowser();
    try {
      const page = await browser.context.newPage();
      const response = await page.goto(unknownClient());
      expect(response?.status()).toBe(401);
      expect(await page.textContent('h1')).toBe('This sign-in link does not work');
      expect(await page.textContent('#error-code')).toBe(
        'Error 401 redirect_uri_mismatch: redirect_uri mismatch',
      );
      expect(page.url()).toBe(unknownClient());
      await page.goto(`${server.url}/`);
      // The console's own router then picks its page (`#/signin` for a visitor without a session).
      expect(page.url().split('#')[0]).toBe(`${server.url}/console`);
      expect(await page.title()).toContain('dauth');
    } finally {
      await browser.close();
    }
  });
});

describe('negotiation, log format and start banner', () => {
  it('prefersHtml: text/html ranked at least as high as application/json; */* alone is an API client', () => {
    expect(prefersHtml(BROWSER_ACCEPT)).toBe(true);
    expect(prefersHtml('text/html')).toBe(true);
    expect(prefersHtml('application/json;q=0.5, text/html')).toBe(true);
    expect(prefersHtml(undefined)).toBe(false);
    expect(prefersHtml('*/*')).toBe(false);
    expect(prefersHtml('application/json')).toBe(false);
    expect(prefersHtml('text/html;q=0.4, application/json')).toBe(false);
    expect(prefersHtml('text/html;q=0')).toBe(false);
    expect(prefersHtml('text/html;q=banana')).toBe(false);
  });

  it('logs are human-readable on a terminal and JSON otherwise, unless LOG_FORMAT says', () => {
    expect(prettyLogs('auto', true)).toBe(true);
    expect(prettyLogs('auto', false)).toBe(false);
    expect(prettyLogs('auto', undefined)).toBe(false);
    expect(prettyLogs('json', true)).toBe(false);
    expect(prettyLogs('pretty', false)).toBe(true);
  });

  it('the start says when passkeys cannot work at PUBLIC_URL (an IP address), and what to set (issue 41)', () => {
    const atIp = startLocations({
      publicUrl: 'http://127.0.0.1:8080',
      listeningUrl: 'http://127.0.0.1:8080',
      dataDir: '/d',
      adminKeyFromEnvironment: true,
    });
    expect(startBanner(atIp)).toContain(
      '  passkeys   passkeys unavailable: browsers refuse an IP address (127.0.0.1) as relying party; ' +
        'set PUBLIC_URL to a host name (http://localhost:8080 on this machine)',
    );
    expect(passkeyObstacle('https://[::1]:8443')).toContain('(::1)');
    expect(passkeyObstacle('http://localhost:8080')).toBeUndefined();
    expect(passkeyObstacle('https://auth.example.com')).toBeUndefined();
    // The default PUBLIC_URL is one passkeys work at: localhost, its relying party id.
    const defaults = loadConfig({ PORT: '8080' });
    expect(defaults.publicUrl).toBe('http://localhost:8080');
    expect(defaults.webauthn.rpId).toBe('localhost');
    expect(passkeyObstacle(defaults.publicUrl)).toBeUndefined();
  });

  it('the start names the console, the API docs and the admin key file', () => {
    const locations = startLocations({
      publicUrl: 'http://localhost:8080',
      listeningUrl: 'http://127.0.0.1:8080',
      dataDir: '/srv/dauth/data',
      adminKeyFromEnvironment: false,
    });
    expect(startBanner(locations)).toBe(
      [
        '',
        'dauth is ready at http://localhost:8080',
        '  console    http://localhost:8080/console',
        '  API docs   http://localhost:8080/docs',
        '  admin key  /srv/dauth/data/admin-api-key',
        '',
        '',
      ].join('\n'),
    );
    expect(
      startLocations({
        publicUrl: 'http://127.0.0.1:0',
        listeningUrl: 'http://127.0.0.1:43123',
        dataDir: '/d',
        adminKeyFromEnvironment: true,
      }),
    ).toEqual({
      url: 'http://127.0.0.1:43123',
      console: 'http://127.0.0.1:43123/console',
      docs: 'http://127.0.0.1:43123/docs',
      adminKey: 'the ADMIN_API_KEY environment variable',
      passkeys: expect.stringContaining('passkeys unavailable') as string,
    });
  });

  it('the real process prints the locations and pretty lines with LOG_FORMAT=pretty, JSON lines by default', async () => {
    const seed = await startTestServer();
    const { dataDir } = seed;
    await seed.close();
    // Each start on a port of its own, taken just before it: reusing the seed's port across both starts left
    // it free for minutes, long enough for a parallel suite's server to take it (a CI run saw the second
    // start never listen). A start that exits, or cannot listen, says why.
    const run = async (format: string | undefined) => {
      const url = `http://127.0.0.1:${await freePort()}`;
      const child = spawn(process.execPath, serviceEntry(), {
        env: {
          ...process.env,
          HOST: '127.0.0.1',
          PORT: new URL(url).port,
          PUBLIC_URL: url,
          DATA_DIR: dataDir,
          LOG_LEVEL: 'info',
          ...(format ? { LOG_FORMAT: format } : {}),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      let gone = false;
      const exited = new Promise((resolve) => child.once('exit', resolve)).then(() => (gone = true));
      for (let i = 0; i < 600 && !gone && !stdout.includes('dauth is listening'); i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(stdout, `dauth did not start listening; stderr:\n${stderr}`).toContain('dauth is listening');
      await new Promise((r) => setTimeout(r, 300));
      child.kill('SIGTERM');
      await exited;
      return { stdout, url };
    };
    const { stdout: pretty, url: prettyUrl } = await run('pretty');
    expect(pretty).toContain(`  console    ${prettyUrl}/console\n`);
    expect(pretty).toContain(`  API docs   ${prettyUrl}/docs\n`);
    expect(pretty).toContain(`  admin key  ${dataDir}/admin-api-key\n`);
    expect(pretty).toMatch(/INFO.*: dauth is listening/);
    expect(pretty).not.toContain('{"level":30');
    const { stdout: json, url } = await run(undefined);
    expect(json).not.toContain('  console    ');
    const listening = json
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((entry) => entry.msg === 'dauth is listening');
    expect(listening).toMatchObject({
      level: 30,
      console: `${url}/console`,
      docs: `${url}/docs`,
      adminKey: `${dataDir}/admin-api-key`,
    });
    // A seed server and two real starts (the embedded chain each): minutes on a loaded shared machine.
  }, 240_000);
});
