import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { authorizeWithBearer, exchange, post, type TestUser } from '../oauth/support.js';
import { chainClient, newProvider } from '../content/contentSupport.js';
import { bearer } from '../helpers/http.js';
import { errorOf, runCli } from './cliRunner.js';

const dauth = runCli;

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
        '--post-logout-redirect-uri',
        'https://game.example/bye',
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
      post_logout_redirect_uris: ['https://game.example/bye'],
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
    expect(errorOf(taken.stderr)).toMatchObject({ success: false, error: 'email_taken' });
    const weak = await dauth(['user', 'create', '--email', 'weak@example.com', '--password', 'short'], env);
    expect(weak.code).toBe(1);
    expect(errorOf(weak.stderr)).toMatchObject({ success: false, error: 'weak_password' });
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
    expect(errorOf(nobody.stderr)).toMatchObject({ success: false, error: 'user_not_found' });
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
    expect(errorOf(badUri.stderr)).toMatchObject({ success: false, error: 'invalid_redirect_uri' });
    // Usage mistakes are JSON too (issue 31): the error, what was wrong, and the command's synopsis.
    const missing = await dauth(['client', 'create', '--name', 'x'], env);
    expect(missing.code).toBe(2);
    expect(errorOf(missing.stderr)).toEqual({
      success: false,
      error: 'usage_error',
      message: '--owner-email is required',
      usage:
        'dauth client create --owner-email <e-mail> --name <name> --redirect-uri <uri> [--redirect-uri <uri> …] [--dapp] [--post-logout-redirect-uri <uri> …]',
    });
    const unknownOption = await dauth(
      ['user', 'create', '--email', 'a@b.co', '--password', 'x', '--admin'],
      env,
    );
    expect(unknownOption.code).toBe(2);
    expect(errorOf(unknownOption.stderr)).toMatchObject({
      success: false,
      error: 'usage_error',
      message: expect.stringContaining("'--admin'"),
      usage: expect.stringContaining('dauth user create --email <e-mail>'),
    });
    const unknown = await dauth(['slots', 'explode'], env);
    expect(unknown.code).toBe(2);
    expect(errorOf(unknown.stderr)).toEqual({
      success: false,
      error: 'unknown_command',
      message: 'Unknown command: dauth slots explode; `dauth --help` lists the commands',
    });
    const badFaucet = await dauth(['faucet', '--address', '0xab', '--native', '1.5'], env);
    expect(badFaucet.code).toBe(2);
    expect(errorOf(badFaucet.stderr)).toMatchObject({
      error: 'usage_error',
      message: '--native must be a whole number (decimal digits)',
    });
    const help = await dauth(['--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('dauth client create');
  }, 120_000);
});

describe('dauth CLI for a newcomer (issue 41: the first hour)', () => {
  it('answers `dauth <command> --help` with that command’s usage on stdout, exit 0', async () => {
    const help = await dauth(['user', 'login', '--help'], {});
    expect(help.code).toBe(0);
    expect(help.stderr).toBe('');
    expect(help.stdout).toMatch(/^dauth user login --email <e-mail>/);
    const short = await dauth(['client', 'create', '-h'], {});
    expect(short.code).toBe(0);
    expect(short.stdout).toContain('dauth client create --owner-email <e-mail>');
  });

  it('refuses to invent an empty ./data when DATA_DIR is unset and none exists here, naming where it looked', async () => {
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-cli-cwd-'));
    try {
      const login = await dauth(
        ['user', 'login', '--email', 'dev@example.com', '--password-stdin'],
        {},
        'a password\n',
        cwd,
      );
      expect(login.code).toBe(2);
      expect(errorOf(login.stderr)).toMatchObject({
        success: false,
        error: 'invalid_configuration',
        message: expect.stringContaining(`no dauth data in ${fs.realpathSync(cwd)}/data`),
      });
      expect(fs.existsSync(path.join(cwd, 'data'))).toBe(false);
      // An explicit DATA_DIR is a choice: it still opens (and creates) that directory.
      const explicit = await dauth(['client', 'list', '--owner-email', 'dev@example.com'], {
        DATA_DIR: path.join(cwd, 'chosen'),
      });
      expect(errorOf(explicit.stderr)).toMatchObject({ error: 'user_not_found' });
      expect(fs.existsSync(path.join(cwd, 'chosen', 'dauth.sqlite'))).toBe(true);
    } finally {
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('dauth CLI beside a running server on the same DATA_DIR (issue 15)', () => {
  let server: TestServer;
  let env: Record<string, string>;
  beforeAll(async () => {
    server = await startTestServer();
    // The server's own environment: same DATA_DIR (so same database and secrets) and PUBLIC_URL.
    env = { DATA_DIR: server.dataDir, PUBLIC_URL: server.url, SCRYPT_LOG_N: '14' };
  }, 60_000);
  afterAll(async () => {
    await server.close();
    fs.rmSync(server.dataDir, { recursive: true, force: true });
  });

  it('creates a user, logs in and manages apps without touching the chain the server holds', async () => {
    const created = await dauth(
      ['user', 'create', '--email', 'beside@example.com', '--password', 'correct horse 2'],
      env,
    );
    expect(created.stderr).not.toContain('ChainInUseError');
    expect(created.stderr).not.toContain('in use');
    expect(created.code).toBe(0);
    const uuid = (JSON.parse(created.stdout) as { uuid: string }).uuid;

    const login = await dauth(
      ['user', 'login', '--email', 'beside@example.com', '--password-stdin'],
      env,
      'correct horse 2\n',
    );
    expect(login.code).toBe(0);
    const jwt = JSON.parse(login.stdout) as { success: boolean; token: string; uuid: string };
    expect(jwt).toMatchObject({ success: true, uuid });
    // First-party: bound to the console and CLI (decisions §8), so it opens no app's authorize.
    expect(
      JSON.parse(Buffer.from(jwt.token.split('.')[1]!, 'base64url').toString('utf8')) as { azp: string },
    ).toMatchObject({ azp: 'dauth:console' });
    // The JWT the CLI printed is accepted by the running server.
    const app = (await (
      await post(
        `${server.url}/v1/dev-user/clients`,
        { name: 'Made over HTTP', redirect_uris: ['https://beside.example/cb'] },
        bearer(jwt.token),
      )
    ).json()) as { client_id: string };
    expect(app.client_id).toEqual(expect.any(String));

    const list = await dauth(['client', 'list', '--owner-email', 'Beside@Example.com'], env);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toMatchObject({
      success: true,
      owner_uuid: uuid,
      clients: [
        { client_id: app.client_id, name: 'Made over HTTP', redirect_uris: ['https://beside.example/cb'] },
      ],
    });
    expect(list.stdout).not.toContain('secret');
    // The owner is --owner-email in every command; the old names still work, with a JSON warning.
    const oldName = await dauth(['client', 'list', '--owner', 'Beside@Example.com'], env);
    expect(oldName.code).toBe(0);
    expect(JSON.parse(oldName.stdout)).toEqual(JSON.parse(list.stdout));
    expect(errorOf(oldName.stderr)).toEqual({
      warning: 'deprecated_option',
      message: '--owner is deprecated: use --owner-email',
    });
    const both = await dauth(['client', 'list', '--owner', 'a@b.co', '--owner-email', 'a@b.co'], env);
    expect(both.code).toBe(2);
    expect(errorOf(both.stderr)).toMatchObject({
      error: 'usage_error',
      message: 'give --owner-email only (--owner is its old name)',
    });

    const wrong = await dauth(
      ['user', 'login', '--email', 'beside@example.com', '--password', 'nope nope 1'],
      env,
    );
    expect(wrong.code).toBe(1);
    expect(errorOf(wrong.stderr)).toMatchObject({ success: false, error: 'invalid_credentials' });
  }, 60_000);

  it('shows a provider, and its key and IV only with --reveal', async () => {
    const provider = await newProvider(server);
    const plain = await dauth(['provider', 'show', '--client-id', provider.clientId], env);
    expect(plain.code).toBe(0);
    const shown = JSON.parse(plain.stdout) as Record<string, unknown>;
    expect(shown).toMatchObject({
      success: true,
      client_id: provider.clientId,
      providers: [
        { cuid: provider.cuid, state: 'registered', release_per: 50, owner_addr: provider.ownerAddr },
      ],
      payload_mode: 'ctr',
    });
    expect(shown).not.toHaveProperty('key');
    expect(plain.stdout).not.toContain(provider.key);

    const revealed = await dauth(['provider', 'show', '--client-id', provider.clientId, '--reveal'], env);
    expect(revealed.code).toBe(0);
    expect(JSON.parse(revealed.stdout)).toMatchObject({ key: provider.key, iv: provider.iv });
  }, 60_000);

  it('funds an address and imports slots through the running server', async () => {
    const address = '0x00000000000000000000000000000000c11fa0ce';
    const before = await chainClient(server).getBalance({ address });
    const funded = await dauth(['faucet', '--address', address, '--native', '12345'], env);
    expect(funded.code).toBe(0);
    expect(JSON.parse(funded.stdout)).toMatchObject({
      success: true,
      native_balance: String(before + 12345n),
    });
    expect(await chainClient(server).getBalance({ address })).toBe(before + 12345n);

    // No amount: the defaults, 10 ether and 1,000 tokens (18 decimals).
    const defaults = await dauth(['faucet', '--address', address], env);
    expect(defaults.code).toBe(0);
    expect(JSON.parse(defaults.stdout)).toMatchObject({
      success: true,
      native_balance: String(before + 12345n + 10n * 10n ** 18n),
    });
    const tokenBalance = BigInt((JSON.parse(defaults.stdout) as { token_balance: string }).token_balance);
    expect(tokenBalance).toBeGreaterThanOrEqual(1000n * 10n ** 18n);
    expect(await chainClient(server).getBalance({ address })).toBe(before + 12345n + 10n * 10n ** 18n);

    const badKey = await dauth(['faucet', '--address', address, '--native', '1', '--server', server.url], {
      ...env,
      ADMIN_API_KEY: 'not-the-admin-key-0123456789',
    });
    expect(badKey.code).toBe(1);
    expect((errorOf(badKey.stderr) as { success: boolean }).success).toBe(false);
    expect(await chainClient(server).getBalance({ address })).toBe(before + 12345n + 10n * 10n ** 18n);

    // slots import beside the running server: through its admin API, never chain_in_use. A record
    // naming no registered app fails alone, in the server's answer.
    const file = path.join(server.dataDir, 'slots.json');
    fs.writeFileSync(file, JSON.stringify([{ id: '12345', owner_uuid: 1, client_id: 'no-such-app' }]));
    const imported = await dauth(['slots', 'import', file], env);
    expect(imported.stderr).not.toMatch(/chain_in_use|ChainInUse/);
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({
      success: false,
      failed: 1,
      results: [{ line: 1, id: '12345', status: 'failed' }],
    });

    const help = await dauth(['--help'], env);
    for (const command of [
      'user create',
      'user login',
      'client create',
      'client list',
      'client update',
      'client rotate-secret',
      'client delete',
      'provider show',
      'faucet',
      'slots import',
    ]) {
      expect(help.stdout).toContain(`dauth ${command}`);
    }
  }, 90_000);
});
