import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable, launchTestBrowser } from '../helpers/browser.js';
import { inCi } from '../helpers/environment.js';
import { freePort } from '../helpers/server.js';
import {
  expectationPattern,
  exportedVariables,
  parseWalkthrough,
  runWalkthrough,
  WalkthroughError,
} from '../helpers/walkthrough.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const docPath = path.join(root, 'docs/quickstart.md');

/** The page's commands need these besides Node; CI installs them (.ci/run). */
const tools = ['bash', 'curl', 'jq', 'openssl', 'sha256sum'];
const missingTools = tools.filter((tool) => {
  try {
    execFileSync('bash', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return false;
  } catch {
    return true;
  }
});
if (missingTools.length > 0 && inCi) throw new Error(`CI must have ${missingTools.join(', ')}`);

/** A clean environment: the walkthrough's variables and the basics a terminal has, nothing of vitest's. */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'LANG', 'TMPDIR']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

describe('the walkthrough runner', () => {
  it('fails on a command that fails, on output that differs, and on an unmarked shell block', async () => {
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-walkthrough-unit-'));
    const options = { cwd, env: baseEnv(), stepTimeoutMs: 10_000, serverTimeoutMs: 10_000 };
    const doc = (code: string, expected: string) =>
      `<!-- walkthrough:run -->\n\n\`\`\`sh\nX=41\n\`\`\`\n\n<!-- walkthrough:run -->\n\n\`\`\`sh\n${code}\n\`\`\`\n\n<!-- walkthrough:expect -->\n\n\`\`\`text\n${expected}\n\`\`\`\n`;

    const ok = await runWalkthrough(
      parseWalkthrough(doc('echo "{\\"n\\": $((X + 1))}"', '{"n": …}')),
      options,
    );
    expect(ok.outputs.map((o) => o.output)).toEqual(['', '{"n": 42}\n']);
    await ok.stop();

    await expect(runWalkthrough(parseWalkthrough(doc('false; echo never', '…')), options)).rejects.toThrow(
      WalkthroughError,
    );
    await expect(
      runWalkthrough(parseWalkthrough(doc('echo "{\\"n\\": 43}"', '{"n": 42}')), options),
    ).rejects.toThrow(/does not match/);
    await expect(
      runWalkthrough(parseWalkthrough(doc('dauth-no-such-command --flag', '…')), options),
    ).rejects.toThrow(/line 9 failed/);
    expect(() => parseWalkthrough('```sh\necho untested\n```\n')).toThrow(/without a walkthrough marker/);
    fs.rmSync(cwd, { recursive: true, force: true });
  });

  it('reads `…` as anything and whitespace runs as any whitespace', () => {
    const pattern = expectationPattern('{\n  "a": …,\n  "b": true\n}');
    expect(pattern.test('{\n    "a": "x y",\n "b": true\n}')).toBe(true);
    expect(pattern.test('{"a": 1, "b": false}')).toBe(false);
  });
});

describe.skipIf(missingTools.length > 0)('docs/quickstart.md, run as written', () => {
  it('takes a fresh server from sign-up through the code flow to the SDK example', async () => {
    const steps = parseWalkthrough(fs.readFileSync(docPath, 'utf8'));
    // The page's shape: the server is started as the page says, the env block names the three
    // places, and every other shell block runs.
    expect(steps.filter((s) => s.kind === 'server')).toHaveLength(1);
    const envBlocks = steps.filter((s) => s.kind === 'env');
    expect(envBlocks).toHaveLength(1);
    const documented = exportedVariables(envBlocks[0]!.code);
    expect([...documented.keys()].sort()).toEqual(['APP', 'DAUTH', 'GAME']);
    // The page's DAUTH is where `npm start` listens by default.
    expect(documented.get('DAUTH')).toBe('http://localhost:8080');
    expect(steps.filter((s) => s.kind === 'run').length).toBeGreaterThanOrEqual(10);
    expect(steps.filter((s) => s.kind === 'run' || s.kind === 'server').every((s) => s.expect)).toBe(true);

    // The page's variables with this test's ports; PORT and DATA_DIR are the server's environment,
    // which the `dauth` commands read too (the page says to export the same in their terminal).
    const [port, appPort, gamePort] = [await freePort(), await freePort(), await freePort()];
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-quickstart-'));
    const env = {
      ...baseEnv(),
      PORT: String(port),
      DATA_DIR: dataDir,
      DAUTH: `http://localhost:${port}`,
      APP: `http://127.0.0.1:${appPort}`,
      GAME: `http://127.0.0.1:${gamePort}`,
    };
    const run = await runWalkthrough(steps, {
      cwd: root,
      env,
      stepTimeoutMs: 90_000,
      // `npm start` builds first (tsc -b: quick when up to date), then starts the chain and deploys.
      serverTimeoutMs: 240_000,
    });
    try {
      const all = run.outputs.map((o) => o.output).join('');
      // The slot the SDK example printed: a uint256 id (19 digits for a new slot) and a content wallet.
      expect(all).toMatch(/slot \d{19} at 0x[0-9a-fA-F]{40}/);
      // The secret was shown once, in the registration's answer.
      expect(all).toMatch(/"client_secret":"[A-Za-z0-9_-]{43}"/);

      // Step 4's browser way, as the page tells it: open the authorize URL, sign in, press Allow,
      // and the browser goes to the app's callback with a code that the app can exchange.
      if (chromiumAvailable) await browserWay(steps, all, env.DAUTH, env.APP);
    } finally {
      await run.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 480_000);
});

/** The code flow's browser steps, with the values the page's commands used and printed. */
async function browserWay(
  steps: ReturnType<typeof parseWalkthrough>,
  output: string,
  dauth: string,
  app: string,
): Promise<void> {
  const signUp = steps.find((s) => s.kind === 'run' && s.code.includes('/v1/dev-user/register'))!;
  const [, email, password] = /"email":"([^"]+)","password":"([^"]+)"/.exec(signUp.code)!;
  const [, clientId, clientSecret] = /"client_id":"([0-9a-f]{32})","client_secret":"([^"]+)"/.exec(output)!;
  const authorizeUrl = output.split('\n').find((line) => line.startsWith(`${dauth}/oauth/authorize?`))!;
  expect(authorizeUrl).toContain(clientId);
  const browser = await launchTestBrowser();
  try {
    const page = await browser.context.newPage();
    await page.goto(authorizeUrl);
    await page.getByLabel('E-mail').fill(email!);
    await page.getByLabel('Password').fill(password!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Nothing listens at the callback, as on the page: the request is what counts.
    const callback = page.waitForRequest((r) => r.url().startsWith(`${app}/callback?`));
    await page.getByRole('button', { name: 'Allow' }).click();
    const url = new URL((await callback).url());
    expect(url.searchParams.get('state')).toBe('xyz');
    const token = await fetch(`${dauth}/oauth/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: url.searchParams.get('code')!,
        redirect_uri: `${app}/callback`,
      }),
    });
    expect(token.status).toBe(200);
    expect(await token.json()).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
  } finally {
    await browser.close();
  }
}
