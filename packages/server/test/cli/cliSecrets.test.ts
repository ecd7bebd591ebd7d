import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { errorOf, runCli as dauth } from './cliRunner.js';

/**
 * Decisions §8: the CLI warns on `--password` (it lands in the shell history and the process list) and
 * never sends the admin key over plain http to a host that is not loopback. Runs the built CLI.
 */
describe('dauth CLI and its secrets', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-cli-secrets-'));
  const env = { DATA_DIR: dataDir };
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('warns on --password and not on --password-stdin', async () => {
    const argv = await dauth(
      ['user', 'create', '--email', 'argv@example.com', '--password', 'correct horse 1'],
      env,
    );
    expect(argv.code).toBe(0);
    expect(argv.stderr).toContain('"warning":"password_in_argv"');
    expect(argv.stderr).toContain('--password-stdin');
    // The warning never repeats the password itself.
    expect(argv.stderr).not.toContain('correct horse 1');

    const stdin = await dauth(
      ['user', 'create', '--email', 'stdin@example.com', '--password-stdin'],
      env,
      'correct horse 2\n',
    );
    expect(stdin.code).toBe(0);
    expect(stdin.stderr).not.toContain('warning');
  });

  it.each(['http://192.0.2.10:8080', 'http://dauth.example', 'http://[2001:db8::1]:8080', 'http://10.0.0.5'])(
    'refuses to send the admin key to %s over plain http: usage error, exit 2, nothing sent',
    async (server) => {
      const result = await dauth(
        [
          'faucet',
          '--address',
          '0x000000000000000000000000000000000000dEaD',
          '--native',
          '1',
          '--server',
          server,
        ],
        { ...env, ADMIN_API_KEY: 'the-admin-key-0123456789' },
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('refusing to send the admin key over plain http');
      expect(result.stderr).toContain('"usage":"dauth faucet');
      expect(result.stderr).not.toContain('the-admin-key-0123456789');
    },
  );

  it('still sends it to a loopback server over http (the unreachable port shows it tried)', async () => {
    const result = await dauth(
      [
        'faucet',
        '--address',
        '0x000000000000000000000000000000000000dEaD',
        '--native',
        '1',
        '--server',
        'http://127.0.0.1:9',
      ],
      { ...env, ADMIN_API_KEY: 'the-admin-key-0123456789' },
    );
    expect(result.code).toBe(1);
    expect(errorOf(result.stderr)).toMatchObject({ success: false, error: 'server_unreachable' });
  });
});
