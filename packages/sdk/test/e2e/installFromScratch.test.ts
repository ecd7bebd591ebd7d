import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inCi } from '../../../server/test/helpers/environment.js';
import { freePort, startTestServer } from '../../../server/test/helpers/server.js';
import type { TestServer } from '../../../server/test/helpers/server.js';
import { createUser, registerWallet, type TestUser } from '../../../server/test/backend/support.js';
import { commandAvailable, registerApp, runChild } from './support.js';
import type { ChildResult, RegisteredApp } from './support.js';

/**
 * Each SDK installed from scratch, as a game studio would, and its quick start run against a live
 * dauth (`startTestServer()`: embedded SQLite and anvil chain):
 *
 * - TypeScript: `npm pack` (its `prepack` builds dist/), then `npm install --offline <tarball>` into an
 *   empty project: no registry, since the SDK has no runtime dependencies.
 * - Python: a wheel built offline with the interpreter's setuptools and wheel, installed with
 *   `pip --no-index` into a fresh venv.
 * - Go: an empty module requiring `github.com/dauth/dauth/sdk/go` through a `replace` onto sdk/go,
 *   built with `GOPROXY=off`.
 *
 * Without python3 (with setuptools and wheel) or go the part skips, unless CI is set.
 */

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const sdkDir = path.join(repoRoot, 'packages', 'sdk');
const pythonDir = path.join(repoRoot, 'sdk', 'python');
const goDir = path.join(repoRoot, 'sdk', 'go');
const GO_MODULE = 'github.com/dauth/dauth/sdk/go';

/** The first interpreter that can build a wheel offline: setuptools and wheel importable. */
const wheelPython = ['python3', '/usr/bin/python3'].find(
  (candidate) =>
    spawnSync(candidate, ['-c', 'import setuptools, wheel, venv, ensurepip'], { stdio: 'ignore' }).status ===
    0,
);
const goAvailable = commandAvailable('go', ['version']);

/** The quick start prints exactly this line. */
const SLOT_LINE = /^slot (\d{19}) at (0x[0-9a-fA-F]{40})$/m;

function expectSuccess(result: ChildResult, what: string): void {
  expect(result.exitCode, `${what} failed:\n${result.output}`).toBe(0);
}

describe('the SDKs installed from scratch run their quick start against a live dauth', () => {
  let server: TestServer;
  let app: RegisteredApp;
  let work: string;
  const users = new Map<string, { user: TestUser; redirectUri: string }>();

  beforeAll(async () => {
    server = await startTestServer();
    work = mkdtempSync(path.join(tmpdir(), 'dauth-sdk-install-'));
    const developer = await createUser(server.url, 'Studio');
    for (const language of ['ts', 'python', 'go']) {
      const user = await createUser(server.url, `${language}Player`);
      await registerWallet(server.url, user);
      users.set(language, { user, redirectUri: `http://127.0.0.1:${await freePort()}/dauth/callback` });
    }
    app = await registerApp(
      server.url,
      developer.loginToken,
      'Installed SDKs game',
      [...users.values()].map((u) => u.redirectUri),
    );
  });

  afterAll(async () => {
    await server?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  function quickStartEnv(language: string): Record<string, string> {
    const { user, redirectUri } = users.get(language)!;
    return {
      DAUTH_URL: server.url,
      DAUTH_CLIENT_ID: app.clientId,
      DAUTH_CLIENT_SECRET: app.clientSecret,
      DAUTH_REDIRECT_URI: redirectUri,
      USER_JWT: user.loginToken,
    };
  }

  /** The quick start printed the slot the service recorded for the user, digit for digit. */
  async function expectRecordedSlot(language: string, output: string): Promise<void> {
    const printed = SLOT_LINE.exec(output);
    expect(printed, output).not.toBeNull();
    const recorded = await server.services.slots.slotAt(
      app.clientId,
      Number(users.get(language)!.user.uuid),
      0,
    );
    expect(printed![1]).toBe(recorded?.id);
    expect(printed![2]!.toLowerCase()).toBe(recorded?.contentAddress.toLowerCase());
  }

  it('TypeScript: npm pack, npm install --offline into an empty project, node quickstart.mjs', async () => {
    const packDir = path.join(work, 'pack');
    const project = path.join(work, 'ts-project');
    mkdirSync(packDir, { recursive: true });
    cpSync(path.join(sdkDir, 'examples', 'quickstart.mjs'), path.join(project, 'quickstart.mjs'));
    expectSuccess(
      await runChild('npm', ['pack', '--pack-destination', packDir], {
        cwd: sdkDir,
        env: {},
        timeoutMs: 180_000,
      }),
      'npm pack',
    );
    const tarball = path.join(packDir, 'dauth-sdk-0.1.0.tgz');
    const listing = spawnSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).stdout.split('\n');
    expect(listing).toEqual(
      expect.arrayContaining([
        'package/package.json',
        'package/README.md',
        'package/dist/index.js',
        'package/dist/index.d.ts',
        'package/dist/express.js',
        'package/dist/fastify.d.ts',
        'package/dist/content/contentConsumer.js',
        'package/examples/quickstart.mjs',
      ]),
    );
    // Only what runs: no sources, tests, build info or source maps.
    expect(listing.filter((file) => /^package\/(src|test)\/|\.tsbuildinfo$|\.map$/.test(file))).toEqual([]);

    writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'studio-backend', private: true, type: 'module' }),
    );
    const install = await runChild(
      'npm',
      ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball],
      { cwd: project, env: {}, timeoutMs: 120_000, isolated: true },
    );
    expectSuccess(install, 'npm install of the tarball');
    // Zero runtime dependencies: the SDK is the only package installed.
    expect(readdirSync(path.join(project, 'node_modules')).filter((name) => !name.startsWith('.'))).toEqual([
      '@dauth',
    ]);

    // The export map's types resolve from the tarball (NodeNext), with the repository's compiler.
    writeFileSync(
      path.join(project, 'check.ts'),
      [
        "import { ContentConsumer, DauthClient, toHttpStatus, WalletRequiredError } from '@dauth/sdk';",
        "const client: DauthClient = new DauthClient({ clientId: 'c', clientSecret: 's', redirectUri: 'http://127.0.0.1/cb' });",
        "const consumer = new ContentConsumer({ clientId: 'c', cipher: { form: 'gcm', key: '00'.repeat(32) } });",
        'export const checked: [DauthClient, ContentConsumer, number] = [client, consumer, toHttpStatus(new WalletRequiredError())];',
        '',
      ].join('\n'),
    );
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          typeRoots: [path.join(repoRoot, 'node_modules', '@types')],
          types: ['node'],
        },
        files: ['check.ts'],
      }),
    );
    const typecheck = await runChild(
      process.execPath,
      [path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project],
      { cwd: project, env: {}, timeoutMs: 120_000 },
    );
    expectSuccess(typecheck, 'tsc against the installed package');

    const run = await runChild(process.execPath, ['quickstart.mjs'], {
      cwd: project,
      env: quickStartEnv('ts'),
      timeoutMs: 60_000,
      isolated: true,
    });
    expectSuccess(run, 'the quick start');
    await expectRecordedSlot('ts', run.output);
  }, 400_000);

  it.skipIf(!wheelPython && !inCi)(
    'Python: a wheel built offline, installed with pip --no-index into a fresh venv, python quickstart.py',
    async () => {
      expect(wheelPython, 'python3 with setuptools, wheel and venv is required when CI is set').toBeDefined();
      const python = wheelPython!;
      // Built from a copy, so that the build leaves nothing (build/, *.egg-info) in the repository.
      const source = path.join(work, 'python-src');
      cpSync(pythonDir, source, { recursive: true, filter: (from) => !from.includes('__pycache__') });
      const wheels = path.join(work, 'wheels');
      const pipEnv = { PIP_NO_INDEX: '1', PIP_DISABLE_PIP_VERSION_CHECK: '1', PYTHONDONTWRITEBYTECODE: '1' };
      expectSuccess(
        await runChild(
          python,
          ['-m', 'pip', 'wheel', '.', '--no-deps', '--no-build-isolation', '-w', wheels],
          {
            cwd: source,
            env: pipEnv,
            timeoutMs: 120_000,
          },
        ),
        'pip wheel',
      );
      const wheel = path.join(wheels, 'dauth_sdk-0.1.0-py3-none-any.whl');
      const venv = path.join(work, 'venv');
      expectSuccess(
        await runChild(python, ['-m', 'venv', venv], { cwd: work, env: {}, timeoutMs: 120_000 }),
        'venv',
      );
      const venvPython = path.join(venv, 'bin', 'python');
      expectSuccess(
        await runChild(venvPython, ['-m', 'pip', 'install', '--no-index', wheel], {
          cwd: work,
          env: pipEnv,
          timeoutMs: 120_000,
        }),
        'pip install of the wheel',
      );
      const project = path.join(work, 'py-project');
      cpSync(path.join(pythonDir, 'examples', 'quickstart.py'), path.join(project, 'quickstart.py'));
      // The package comes from the venv's site-packages, with its type marker and the asyncio client.
      const where = await runChild(
        venvPython,
        [
          '-c',
          'import dauth_sdk, os; print(dauth_sdk.__file__); print(os.path.exists(os.path.join(os.path.dirname(dauth_sdk.__file__), "py.typed")), dauth_sdk.AsyncDauthClient.__name__)',
        ],
        { cwd: project, env: {}, timeoutMs: 30_000 },
      );
      expectSuccess(where, 'import dauth_sdk');
      expect(where.output).toContain(path.join(venv, 'lib'));
      expect(where.output).toContain('True AsyncDauthClient');

      const run = await runChild(venvPython, ['quickstart.py'], {
        cwd: project,
        env: { ...quickStartEnv('python'), PYTHONDONTWRITEBYTECODE: '1' },
        timeoutMs: 60_000,
      });
      expectSuccess(run, 'the quick start');
      await expectRecordedSlot('python', run.output);
    },
    400_000,
  );

  it.skipIf(!goAvailable && !inCi)(
    'Go: an empty module requiring the SDK through a replace, GOPROXY=off, go vet and go run',
    async () => {
      expect(goAvailable, 'go is required when CI is set').toBe(true);
      const project = path.join(work, 'go-project');
      cpSync(path.join(goDir, 'examples', 'quickstart', 'main.go'), path.join(project, 'main.go'));
      const goEnv = { GOPROXY: 'off', GOFLAGS: '-mod=mod', GOWORK: 'off' };
      const go = (args: string[], what: string, env: Record<string, string> = {}) =>
        runChild('go', args, { cwd: project, env: { ...goEnv, ...env }, timeoutMs: 240_000 }).then(
          (result) => {
            expectSuccess(result, what);
            return result;
          },
        );
      await go(['mod', 'init', 'example.com/studio-backend'], 'go mod init');
      await go(
        ['mod', 'edit', `-require=${GO_MODULE}@v0.0.0`, `-replace=${GO_MODULE}=${goDir}`],
        'go mod edit',
      );
      await go(['vet', './...'], 'go vet');
      await go(['build', '-o', 'studio-backend', '.'], 'go build');
      const run = await runChild(path.join(project, 'studio-backend'), [], {
        cwd: project,
        env: quickStartEnv('go'),
        timeoutMs: 60_000,
      });
      expectSuccess(run, 'the quick start');
      await expectRecordedSlot('go', run.output);
    },
    400_000,
  );
});
