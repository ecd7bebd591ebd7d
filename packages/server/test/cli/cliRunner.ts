import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bearer, createUser, post, type TestUser } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const serverDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built `dauth` entry point (`npm run build` first) as its own process, with only the given
 * environment besides PATH, HOME and NODE_COMPILE_CACHE, and `stdin` written to it (a password for
 * `--password-stdin`).
 */
export function runCli(
  args: string[],
  env: Record<string, string>,
  stdin = '',
  cwd = serverDir,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(serverDir, 'dist/cli.js'), ...args], {
      cwd,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        // V8's code cache of the modules the CLI loads (.ci/run sets it): each of the suite's ~55 CLI starts
        // loads the server's module graph again.
        ...(process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {}),
        ...env,
      },
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

/** A running server, the CLI's environment pointing at it, and a developer owning one registered app. */
export interface CliAppFixture {
  server: TestServer;
  env: Record<string, string>;
  owner: TestUser;
  clientId: string;
  clientSecret: string;
  close(): Promise<void>;
}

export async function startServerWithApp(app: {
  name: string;
  redirect_uris: string[];
  dapp?: boolean;
}): Promise<CliAppFixture> {
  const server = await startTestServer();
  const owner = await createUser(server.url);
  const created = (await (
    await post(`${server.url}/v1/dev-user/clients`, app, bearer(owner.loginToken))
  ).json()) as { client_id: string; client_secret: string };
  return {
    server,
    env: { DATA_DIR: server.dataDir, PUBLIC_URL: server.url },
    owner,
    clientId: created.client_id,
    clientSecret: created.client_secret,
    close: async () => {
      await server.close();
      fs.rmSync(server.dataDir, { recursive: true, force: true });
    },
  };
}

/** The error object a failed command printed: the last JSON line of stderr (warnings come first). */
export function errorOf(stderr: string): unknown {
  return JSON.parse(stderr.trim().split('\n').at(-1) ?? '');
}
