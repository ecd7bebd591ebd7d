import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './support/appServer.js';
import { FakeDauth } from './support/fakeDauth.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const example = fileURLToPath(new URL('../examples/express-backend.ts', import.meta.url));
// A login JWT whose payload is {"sub":"42"}; the fake service does not check signatures.
const jwt = `h.${Buffer.from('{"sub":"42"}').toString('base64url')}.s`;

/** The README's example backend, run as its own process against the fake service. */
describe('examples/express-backend.ts', () => {
  let dauth: FakeDauth;
  let baseUrl: string;
  let child: ReturnType<typeof spawn>;

  beforeAll(async () => {
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    dauth = await FakeDauth.start({ redirectUri: `${baseUrl}/dauth/callback` });
    // `@dauth/sdk` resolves to the built dist/ (`npm run build` runs before `npm test` in CI).
    child = spawn(process.execPath, ['--import', 'tsx', example], {
      cwd: repoRoot,
      env: {
        ...process.env,
        DAUTH_CLIENT_ID: 'client-1',
        DAUTH_CLIENT_SECRET: 'secret-1',
        DAUTH_REDIRECT_URI: `${baseUrl}/dauth/callback`,
        DAUTH_URL: dauth.url,
        // No PORT: the example listens on its redirect URI's port (issue 31).
        PORT: undefined,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (line.startsWith('game backend on')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`example exited with ${String(code)}`)));
    });
  });

  afterAll(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await dauth.close();
  });

  const post = async (path: string, body: unknown): Promise<{ status: number; body: unknown }> => {
    const response = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };

  it('logs a user in and out', async () => {
    expect(await post('/login', { jwt })).toEqual({
      status: 200,
      body: { slot_id: '1234567890123456789', nickname: 'neo' },
    });
    expect(dauth.requestsTo('/v1/oauth/status/login').at(-1)?.body).toBe(
      '{"user_id":"42","client_id":"client-1"}',
    );
    expect(await post('/logout', { slot_id: '1234567890123456789' })).toEqual({
      status: 200,
      body: { logged_out: true },
    });
    expect(dauth.requestsTo('/v1/oauth-meta/user/logout')).toHaveLength(1);
  });

  it('the README opens with the quick start, verbatim and at most 15 lines', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const source = readFileSync(new URL('../examples/quickstart.mjs', import.meta.url), 'utf8').trimEnd();
    expect(source.split('\n').length).toBeLessThanOrEqual(15);
    const firstBlock = readme.indexOf('```js\n');
    expect(readme.slice(0, firstBlock)).not.toContain('```');
    expect(readme.slice(firstBlock).startsWith('```js\n' + source + '\n```')).toBe(true);
  });

  it('answers failures with the mapped status', async () => {
    expect(await post('/login', {})).toEqual({ status: 400, body: { error: 'missing jwt' } });
    expect(await post('/login', { jwt: 'expired-jwt' })).toEqual({
      status: 401,
      body: { error: 'EXPIRED_TOKEN' },
    });
  });
});
