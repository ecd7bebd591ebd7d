import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { bearer, createUser, post, type TestUser } from '../helpers/http.js';

const serverDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Runs the built `dauth` entry point (`npm run build` first) as its own process. */
function dauth(
  args: string[],
  env: Record<string, string>,
  stdin = '',
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['dist/cli.js', ...args], {
      cwd: serverDir,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

describe('dauth client update | rotate-secret | delete through the running server', () => {
  let server: TestServer;
  let env: Record<string, string>;
  let owner: TestUser;
  let clientId: string;
  let oldSecret: string;
  beforeAll(async () => {
    server = await startTestServer();
    env = { DATA_DIR: server.dataDir, PUBLIC_URL: server.url };
    owner = await createUser(server.url);
    const created = (await (
      await post(
        `${server.url}/v1/dev-user/clients`,
        { name: 'Lifecycle game', redirect_uris: ['https://life.example/cb'] },
        bearer(owner.loginToken),
      )
    ).json()) as { client_id: string; client_secret: string };
    clientId = created.client_id;
    oldSecret = created.client_secret;
  }, 60_000);
  afterAll(async () => {
    await server.close();
    fs.rmSync(server.dataDir, { recursive: true, force: true });
  });

  const asOwner = () => ['--client-id', clientId, '--email', owner.email, '--password-stdin'];

  it('edits, rotates and deletes an app as its owner, and refuses another account', async () => {
    const updated = await dauth(
      ['client', 'update', ...asOwner(), '--redirect-uri', 'https://life.example/new'],
      env,
      `${owner.password}\n`,
    );
    expect(updated.code).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({
      success: true,
      client: { client_id: clientId, name: 'Lifecycle game', redirect_uris: ['https://life.example/new'] },
    });
    expect((await server.services.clients.findClient(clientId))?.redirectUris).toEqual([
      'https://life.example/new',
    ]);

    const stranger = await createUser(server.url);
    const refused = await dauth(
      [
        'client',
        'update',
        '--client-id',
        clientId,
        '--email',
        stranger.email,
        '--password-stdin',
        '--name',
        'Taken',
      ],
      env,
      `${stranger.password}\n`,
    );
    expect(refused.code).toBe(1);
    expect((JSON.parse(refused.stderr) as { success: boolean }).success).toBe(false);
    expect((await server.services.clients.findClient(clientId))?.name).toBe('Lifecycle game');

    const rotated = await dauth(['client', 'rotate-secret', ...asOwner()], env, `${owner.password}\n`);
    expect(rotated.code).toBe(0);
    const { client_secret: newSecret } = JSON.parse(rotated.stdout) as { client_secret: string };
    expect(newSecret).not.toBe(oldSecret);
    expect(await server.services.clients.verifyClientSecret(clientId, newSecret)).toBe(true);

    const deleted = await dauth(['client', 'delete', ...asOwner()], env, `${owner.password}\n`);
    expect(deleted.code).toBe(0);
    expect(JSON.parse(deleted.stdout)).toMatchObject({ success: true });
    expect(await server.services.clients.findClient(clientId)).toBeUndefined();
  }, 90_000);
});
