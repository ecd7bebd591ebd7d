import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureSecrets } from '../../src/secrets.js';

/**
 * The embedded default's generated keys (decisions §1: `DATA_DIR/master.key`, `DATA_DIR/admin-api-key`).
 * A key file is created whole or not at all, and a file that is not a key is refused, never used: before,
 * the file was created and then written, so a process starting beside the first one could read it empty
 * (an empty admin key, a zero-length master key), and a file a crash left empty was taken as the key.
 */
const run = promisify(execFile);
const secretsModule = path.resolve(import.meta.dirname, '../../src/secrets.ts');

describe('generated key files', () => {
  const dirs: string[] = [];
  const freshDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-secrets-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  it('generates each key once, whole, readable by the service user only, with nothing left beside it', () => {
    const dataDir = freshDir();
    const first = ensureSecrets({ dataDir, masterKey: undefined, adminApiKey: undefined });
    expect(first.masterKey).toHaveLength(32);
    expect(first.adminKeyGenerated).toBe(true);
    expect(fs.readFileSync(path.join(dataDir, 'master.key'), 'utf8')).toBe(
      `${first.masterKey.toString('hex')}\n`,
    );
    expect(fs.readFileSync(path.join(dataDir, 'admin-api-key'), 'utf8')).toBe(`${first.adminApiKey}\n`);
    for (const file of ['master.key', 'admin-api-key']) {
      expect(fs.statSync(path.join(dataDir, file)).mode & 0o777).toBe(0o600);
    }
    expect(fs.readdirSync(dataDir).sort()).toEqual(['admin-api-key', 'master.key']);

    const again = ensureSecrets({ dataDir, masterKey: undefined, adminApiKey: undefined });
    expect(again.masterKey.equals(first.masterKey)).toBe(true);
    expect(again).toMatchObject({ adminApiKey: first.adminApiKey, adminKeyGenerated: false });
  });

  it('refuses a key file a crash left empty or cut short, and says what to do', () => {
    const emptyMaster = freshDir();
    fs.writeFileSync(path.join(emptyMaster, 'master.key'), '', { mode: 0o600 });
    expect(() =>
      ensureSecrets({ dataDir: emptyMaster, masterKey: undefined, adminApiKey: undefined }),
    ).toThrow(/master\.key is damaged: it must hold 64 hex digits\. Restore it from the backup/);
    fs.writeFileSync(path.join(emptyMaster, 'master.key'), 'ab'.repeat(20));
    expect(() =>
      ensureSecrets({ dataDir: emptyMaster, masterKey: undefined, adminApiKey: undefined }),
    ).toThrow(/master\.key is damaged/);

    const emptyAdmin = freshDir();
    fs.writeFileSync(path.join(emptyAdmin, 'admin-api-key'), '\n', { mode: 0o600 });
    expect(() =>
      ensureSecrets({ dataDir: emptyAdmin, masterKey: 'cd'.repeat(32), adminApiKey: undefined }),
    ).toThrow(/admin-api-key is damaged: it must hold at least 16 characters/);
  });

  it('gives processes starting at once on a new DATA_DIR the same keys', async () => {
    const dataDir = freshDir();
    const script = `
      const { ensureSecrets } = await import(${JSON.stringify(secretsModule)});
      const s = ensureSecrets({ dataDir: ${JSON.stringify(dataDir)}, masterKey: undefined, adminApiKey: undefined });
      console.log(JSON.stringify([s.masterKey.toString('hex'), s.adminApiKey, s.adminKeyGenerated]));`;
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]).then(
          ({ stdout }) => JSON.parse(stdout) as [string, string, boolean],
        ),
      ),
    );
    const [masterKey, adminKey] = answers[0]!;
    expect(masterKey).toMatch(/^[0-9a-f]{64}$/);
    for (const answer of answers) expect(answer.slice(0, 2)).toEqual([masterKey, adminKey]);
    // Exactly one process generated (and would print) the admin key.
    expect(answers.filter((a) => a[2])).toHaveLength(1);
    expect(fs.readdirSync(dataDir).sort()).toEqual(['admin-api-key', 'master.key']);
  }, 60_000);
});
