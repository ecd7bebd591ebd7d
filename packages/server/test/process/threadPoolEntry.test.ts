import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const startSource = fileURLToPath(new URL('../../src/start.cts', import.meta.url));

/**
 * Stands in for `main.js` next to the compiled `npm start` entry: starts the thread pool the way the
 * service does (a PBKDF2 on it), then reports what the process ended up with.
 */
const PROBE = `
const { pbkdf2 } = require('node:crypto');
const fs = require('node:fs');
pbkdf2('p', 's', 1, 32, 'sha256', () => {
  process.stdout.write(JSON.stringify({
    env: process.env.UV_THREADPOOL_SIZE ?? null,
    threads: fs.readdirSync('/proc/self/task').length,
  }));
});
`;

describe.runIf(process.platform === 'linux')('the npm start entry sizes the thread pool', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-start-'));
    const compiled = ts.transpileModule(fs.readFileSync(startSource, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
    });
    fs.writeFileSync(path.join(dir, 'start.cjs'), compiled.outputText);
    fs.writeFileSync(path.join(dir, 'main.js'), PROBE);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const run = (env: Record<string, string>) =>
    JSON.parse(
      execFileSync(process.execPath, [path.join(dir, 'start.cjs')], {
        env: { PATH: process.env.PATH ?? '', ...env },
        encoding: 'utf8',
      }),
    ) as { env: string | null; threads: number };

  it('defaults to the core count (at least 2) before anything uses the pool; an explicit value wins', () => {
    const expected = Math.max(2, os.availableParallelism());
    const byDefault = run({});
    expect(byDefault.env).toBe(String(expected));
    const explicit = run({ UV_THREADPOOL_SIZE: String(expected + 6) });
    expect(explicit.env).toBe(String(expected + 6));
    // libuv really started that many threads: six more with six more asked for.
    expect(explicit.threads - byDefault.threads).toBe(6);
  });
});
