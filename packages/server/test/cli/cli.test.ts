import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { authorizeWithBearer, exchange, post, type TestUser } from '../oauth/support.js';

const serverDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real `dauth` entry point (TypeScript sources through tsx) as its own process. */
function dauth(args: string[], env: Record<string, string>, stdin?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--conditions=development', '--import', 'tsx', 'src/cli.ts', ...args],
      {
        cwd: serverDir,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
}

describe('dauth CLI', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-cli-'));
  const env = { DATA_DIR: dataDir };
  let server: TestServer | undefined;
  afterAll(async () => {
    await server?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates a user and an app that then work against the server on the same data directory', async () => {
    const user = await dauth(
      ['user', 'create', '--email', 'Cli@Example.com', '--password', 'correct horse 1', '--nickname', 'Cli'],
      env,
    );
    expect(user.code).toBe(0);
    const created = JSON.parse(user.stdout) as Record<string, string>;
    expect(created).toMatchObject({ success: true, email: 'cli@example.com', nickname: 'Cli' });
    expect(created.uuid).toMatch(/^[1-9]\d*$/);
    expect(user.stderr).toContain('Generated ADMIN_API_KEY');

    const second = await dauth(
      ['user', 'create', '--email', 'pipe@example.com', '--password-stdin'],
      env,
      'from stdin 123\n',
    );
    expect(second.code).toBe(0);

    const client = await dauth(
      [
        'client',
        'create',
        '--owner-email',
        'cli@example.com',
        '--name',
        'CLI game',
        '--redirect-uri',
        'https://game.example/cb',
        '--redirect-uri',
        'http://127.0.0.1:3000/cb',
        '--dapp',
      ],
      env,
    );
    expect(client.code).toBe(0);
    expect(client.stderr).not.toContain('ADMIN_API_KEY');
    const app = JSON.parse(client.stdout) as Record<string, unknown>;
    expect(app).toMatchObject({
      success: true,
      name: 'CLI game',
      redirect_uris: ['https://game.example/cb', 'http://127.0.0.1:3000/cb'],
      dapp: true,
      owner_uuid: created.uuid,
    });

    // The server on the same DATA_DIR sees both: the user logs in, the app's secret works.
    server = await startTestServer({ dataDir });
    for (const [email, password] of [
      ['cli@example.com', 'correct horse 1'],
      ['pipe@example.com', 'from stdin 123'],
    ]) {
      expect((await post(`${server.url}/v1/dev-user/login_devuser`, { email, password })).status).toBe(200);
    }
    const login = (await (
      await post(`${server.url}/v1/dev-user/login_devuser`, {
        email: 'cli@example.com',
        password: 'correct horse 1',
      })
    ).json()) as {
      token: string;
      uuid: string;
    };
    const testUser: TestUser = {
      email: 'cli@example.com',
      password: 'correct horse 1',
      nickname: 'Cli',
      uuid: login.uuid,
      loginToken: login.token,
    };
    const testClient = {
      clientId: app.client_id as string,
      clientSecret: app.client_secret as string,
      redirectUri: 'https://game.example/cb',
    };
    const { code } = await authorizeWithBearer(server.url, testUser, testClient);
    const tokens = await exchange(server.url, testClient, code);
    expect(tokens.status).toBe(200);
    expect(((await tokens.json()) as { user_id: string }).user_id).toBe(created.uuid);
    await server.close();
    server = undefined;
  }, 60_000);

  it('reports errors as JSON on stderr with exit 1, and usage mistakes with exit 2', async () => {
    const taken = await dauth(
      ['user', 'create', '--email', 'cli@example.com', '--password', 'another pass'],
      env,
    );
    expect(taken.code).toBe(1);
    expect(JSON.parse(taken.stderr)).toMatchObject({ success: false, error: 'email_taken' });
    const weak = await dauth(['user', 'create', '--email', 'weak@example.com', '--password', 'short'], env);
    expect(weak.code).toBe(1);
    expect(JSON.parse(weak.stderr)).toMatchObject({ success: false, error: 'weak_password' });
    const nobody = await dauth(
      [
        'client',
        'create',
        '--owner-email',
        'nobody@example.com',
        '--name',
        'x',
        '--redirect-uri',
        'https://a.example/cb',
      ],
      env,
    );
    expect(nobody.code).toBe(1);
    expect(JSON.parse(nobody.stderr)).toMatchObject({ success: false, error: 'user_not_found' });
    const badUri = await dauth(
      [
        'client',
        'create',
        '--owner-email',
        'cli@example.com',
        '--name',
        'x',
        '--redirect-uri',
        'https://a.example/cb#x',
      ],
      env,
    );
    expect(JSON.parse(badUri.stderr)).toMatchObject({ success: false, error: 'invalid_redirect_uri' });
    const missing = await dauth(['client', 'create', '--name', 'x'], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--owner-email is required');
    const unknownOption = await dauth(
      ['user', 'create', '--email', 'a@b.co', '--password', 'x', '--admin'],
      env,
    );
    expect(unknownOption.code).toBe(2);
    const unknown = await dauth(['slots', 'explode'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('dauth user create');
    const help = await dauth(['--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('dauth client create');
  }, 60_000);
});
