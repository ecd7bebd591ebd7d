import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { ChainInUseError, EmbeddedChain } from '../../src/chain/embeddedChain.js';

const LOCK_MODULE = fileURLToPath(new URL('../../src/chain/chainOwnerLock.ts', import.meta.url));
const CHAIN_MODULE = fileURLToPath(new URL('../../src/chain/embeddedChain.ts', import.meta.url));
const logger = pino({ level: 'silent' });
const dirs: string[] = [];
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-lock-'));
  dirs.push(dir);
  return dir;
}

/** Runs `script` (ESM, under tsx) in a child and resolves once it printed `ready`. */
async function childThat(script: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the child exited (${code}) before it was ready`)));
    createInterface({ input: child.stdout! }).on('line', (line) => line === 'ready' && resolve());
  });
  return child;
}

const holdLock = (dir: string) =>
  childThat(
    `import { ChainOwnerLock } from ${JSON.stringify(LOCK_MODULE)};
     ChainOwnerLock.acquire(${JSON.stringify(path.join(dir, 'chain'))});
     console.log('ready'); setInterval(() => {}, 60000);`,
  );

describe('embedded chain ownership of DATA_DIR (issue 32)', () => {
  it('refuses a second owner while the first lives, and admits the next one the moment it is killed', async () => {
    const dir = dataDir();
    const owner = await holdLock(dir);
    const refusal = EmbeddedChain.launch({ dataDir: dir, logger });
    await expect(refusal).rejects.toBeInstanceOf(ChainInUseError);
    await expect(refusal).rejects.toThrow(`in use by process ${owner.pid}`);
    expect(fs.existsSync(path.join(dir, 'chain', 'state.json'))).toBe(false);

    // SIGKILL, and launch at once: the killed process is not reaped yet (a zombie of ours until the event
    // loop turns), which a pid-file lock took for a live owner.
    owner.kill('SIGKILL');
    const { chain } = await EmbeddedChain.launch({ dataDir: dir, logger });
    try {
      expect(fs.readFileSync(path.join(dir, 'chain', 'owner.pid'), 'utf8')).toBe(String(process.pid));
      // In the same process a second launch is refused too.
      await expect(EmbeddedChain.launch({ dataDir: dir, logger })).rejects.toBeInstanceOf(ChainInUseError);
    } finally {
      await chain.close();
    }
    expect(fs.existsSync(path.join(dir, 'chain', 'owner.pid'))).toBe(false);
  }, 60_000);

  it('a pid file left by a process of another boot (its pid now an unrelated live process) does not block', async () => {
    const dir = dataDir();
    fs.mkdirSync(path.join(dir, 'chain'));
    // The pid of a live, unrelated process: our parent (the test runner's), which holds no lock.
    fs.writeFileSync(path.join(dir, 'chain', 'owner.pid'), String(process.ppid));
    const { chain } = await EmbeddedChain.launch({ dataDir: dir, logger });
    await chain.close();
  }, 60_000);

  it('stops an anvil that outlived its killed owner before starting its own', async () => {
    const dir = dataDir();
    // An owner that runs the embedded chain, killed alone (not its process group): its anvil lives on.
    const owner = await childThat(
      `import pino from 'pino';
       import { EmbeddedChain } from ${JSON.stringify(CHAIN_MODULE)};
       await EmbeddedChain.launch({ dataDir: ${JSON.stringify(dir)}, logger: pino({ level: 'silent' }) });
       console.log('ready'); setInterval(() => {}, 60000);`,
    );
    const orphan = Number(fs.readFileSync(path.join(dir, 'chain', 'anvil.pid'), 'utf8'));
    const alive = (pid: number) => fs.existsSync(`/proc/${pid}`) && !isZombie(pid);
    expect(alive(orphan)).toBe(true);
    owner.kill('SIGKILL');
    const lines: string[] = [];
    const recording = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const { chain } = await EmbeddedChain.launch({ dataDir: dir, logger: recording });
    try {
      expect(alive(orphan)).toBe(false);
      expect(
        lines.some(
          (l) => l.includes('an anvil of a killed dauth still runs') && l.includes(`"pid":${orphan}`),
        ),
      ).toBe(true);
      expect(Number(fs.readFileSync(path.join(dir, 'chain', 'anvil.pid'), 'utf8'))).not.toBe(orphan);
    } finally {
      await chain.close();
    }
  }, 90_000);
});

function isZombie(pid: number): boolean {
  try {
    return /\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}
