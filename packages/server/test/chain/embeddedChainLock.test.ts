import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ChainInUseError, EmbeddedChain } from '../../src/chain/embeddedChain.js';

describe('embedded chain ownership of DATA_DIR', () => {
  it('refuses to start a second anvil on a state file a live process owns, and takes over a stale lock', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-lock-'));
    fs.mkdirSync(path.join(dataDir, 'chain'));
    const lockPath = path.join(dataDir, 'chain', 'owner.pid');
    // Another live process (standing in for a running dauth) holds the lock.
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    await new Promise((resolve) => other.once('spawn', resolve));
    fs.writeFileSync(lockPath, String(other.pid));
    const logger = pino({ level: 'silent' });
    try {
      await expect(EmbeddedChain.launch({ dataDir, logger })).rejects.toBeInstanceOf(ChainInUseError);
      expect(fs.existsSync(path.join(dataDir, 'chain', 'state.json'))).toBe(false);
    } finally {
      other.kill('SIGKILL');
      await new Promise((resolve) => other.once('exit', resolve));
    }
    // Its process is gone: the lock is stale and is taken over.
    const { chain } = await EmbeddedChain.launch({ dataDir, logger });
    try {
      expect(fs.readFileSync(lockPath, 'utf8')).toBe(String(process.pid));
    } finally {
      await chain.close();
    }
    expect(fs.existsSync(lockPath)).toBe(false);
  });
});
