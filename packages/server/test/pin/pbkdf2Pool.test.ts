import { pbkdf2Sync } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Pbkdf2Pool } from '../../src/crypto/pbkdf2Pool.js';
import { isAppError } from '../../src/errors.js';

const pools: Pbkdf2Pool[] = [];
const poolOf = (options: ConstructorParameters<typeof Pbkdf2Pool>[0]) => {
  const pool = new Pbkdf2Pool(options);
  pools.push(pool);
  return pool;
};
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

describe('Pbkdf2Pool: PBKDF2 on dedicated worker threads', () => {
  it('derives the same bytes as crypto.pbkdf2 (share_pin SHA-256 and the BIP-39 seed SHA-512)', async () => {
    const pool = poolOf({ size: 2 });
    const password = Buffer.from('ab'.repeat(32), 'utf8');
    const pin = await pool.derive(password, 'dauth/share_pin/v1', 100_000, 32, 'sha256');
    expect(pin.equals(pbkdf2Sync(password, 'dauth/share_pin/v1', 100_000, 32, 'sha256'))).toBe(true);
    const mnemonic = Buffer.from(
      'legal winner thank year wave sausage worth useful legal winner thank yellow',
    );
    const seed = await pool.derive(mnemonic, Buffer.from('mnemonic'), 2048, 64, 'sha512');
    expect(seed.equals(pbkdf2Sync(mnemonic, 'mnemonic', 2048, 64, 'sha512'))).toBe(true);
    // The caller's password is left as it was (the pool sends, and its worker wipes, a copy).
    expect(password.toString('utf8')).toBe('ab'.repeat(32));
  });

  it('hands each worker at most `perWorker` jobs, queues `maxQueued` and refuses the rest with overloaded', async () => {
    const pool = poolOf({ size: 2, perWorker: 1, maxQueued: 3 });
    expect(pool.concurrency).toBe(2);
    let peak = 0;
    const jobs = Array.from({ length: 8 }, () => {
      const job = pool.derive(Buffer.from('pw'), 'salt', 20_000, 32, 'sha256');
      peak = Math.max(peak, pool.inFlight);
      return job;
    });
    expect(pool.inFlight).toBe(2);
    expect(pool.queued).toBe(3);
    const results = await Promise.allSettled(jobs);
    expect(peak).toBe(2);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(rejected).toHaveLength(3);
    for (const r of rejected) {
      expect(isAppError(r.reason)).toBe(true);
      expect(r.reason).toMatchObject({ status: 503, code: 'overloaded' });
    }
    expect(pool.queued).toBe(0);
    expect(pool.inFlight).toBe(0);
  });

  it('fails the jobs of a crashed worker cleanly and replaces the worker', async () => {
    const pool = poolOf({ size: 1, perWorker: 2 });
    const crash = pool.crashOneWorkerForTest();
    // A job sent beside it to the dying worker fails too; either way it settles.
    const beside = Promise.allSettled([pool.derive(Buffer.from('pw'), 'salt', 1000, 32, 'sha256')]);
    await expect(crash).rejects.toThrow(/worker exited/);
    await beside;
    const after = await pool.derive(Buffer.from('pw'), 'salt', 1000, 32, 'sha256');
    expect(after.equals(pbkdf2Sync('pw', 'salt', 1000, 32, 'sha256'))).toBe(true);
    expect(pool.inFlight).toBe(0);
  });

  it('closes: running jobs fail, later ones are refused, and the threads are gone', async () => {
    const threadsBefore = threadCount();
    const pool = new Pbkdf2Pool({ size: 2 });
    await pool.derive(Buffer.from('pw'), 'salt', 1000, 32, 'sha256');
    const running = pool.derive(Buffer.from('pw'), 'salt', 2_000_000, 32, 'sha256');
    const failed = expect(running).rejects.toThrow(/closed/);
    await pool.close();
    await failed;
    await expect(pool.derive(Buffer.from('pw'), 'salt', 1, 32, 'sha256')).rejects.toThrow(/closed/);
    if (threadsBefore !== undefined) {
      await expect.poll(threadCount, { timeout: 5000 }).toBeLessThanOrEqual(threadsBefore);
    }
  });

  it.runIf(process.platform === 'linux')('renices its worker threads (Linux), and only them', async () => {
    const before = niceByThread();
    const pool = poolOf({ size: 2, nice: 7 });
    await Promise.all([1, 2].map(() => pool.derive(Buffer.from('pw'), 'salt', 1000, 32, 'sha256')));
    const after = niceByThread();
    const reniced = [...after].filter(([tid, nice]) => !before.has(tid) && nice === 7);
    expect(reniced.length).toBeGreaterThanOrEqual(2);
    // The main thread keeps its priority.
    expect(after.get(process.pid)).toBe(before.get(process.pid));
  });

  it.runIf(process.platform === 'linux')(
    'leaves its threads at the process priority with nice 0',
    async () => {
      const before = niceByThread();
      const pool = poolOf({ size: 2, nice: 0 });
      await Promise.all([1, 2].map(() => pool.derive(Buffer.from('pw'), 'salt', 1000, 32, 'sha256')));
      const added = [...niceByThread()].filter(([tid]) => !before.has(tid));
      expect(added.length).toBeGreaterThanOrEqual(2);
      for (const [, nice] of added) expect(nice).toBe(before.get(process.pid));
    },
  );
});

function threadCount(): number | undefined {
  try {
    return readdirSync('/proc/self/task').length;
  } catch {
    return undefined;
  }
}

/** tid → nice value, from /proc/self/task/<tid>/stat (field 19). */
function niceByThread(): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(tid), Number(fields[16]));
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}
