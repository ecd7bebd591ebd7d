import { spawnSync } from 'node:child_process';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import {
  type ProcessIdentity,
  ReplicaInUseError,
  ReplicaLease,
} from '../../src/services/replicas/replicaLease.js';
import { LeaseStore } from '../../src/stores/leaseStore.js';
import { testDatabases } from '../helpers/databases.js';

const logger = pino({ level: 'silent' });

/** A pid that is certainly not running now: a child's, after it exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '0']);
  return child.pid!;
}

describe.each(testDatabases)('replica lease: one live process per REPLICA_ID ($name)', (database) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;
  let store: LeaseStore;
  const taken: ReplicaLease[] = [];
  let chainId = 1_000;

  beforeAll(async () => {
    ({ handle, dispose } = await database.open());
    store = new LeaseStore(handle.db);
  });
  afterEach(async () => {
    for (const lease of taken.splice(0)) await lease.release();
  });
  afterAll(() => dispose());

  /** Each test its own chain id, so their leases never meet. */
  const lease = (identity: ProcessIdentity, ttlMs = 600, replica = 0) => {
    const l = new ReplicaLease(store, chainId, replica, identity, logger, { ttlMs });
    taken.push(l);
    return l;
  };
  const here = (pid: number, dataDir = '/srv/dauth-a'): ProcessIdentity => ({ host: 'host-1', dataDir, pid });
  const nextChain = () => void chainId++;

  it('gives a free REPLICA_ID to the first process; a second one elsewhere is refused once it stays renewed', async () => {
    nextChain();
    const first = lease(here(process.pid));
    await first.acquire();
    expect(first.held).toBe(true);
    expect(first.detail).toBeUndefined();

    // Another host's process with the same REPLICA_ID waits out one TTL (the first might have died), then is refused.
    const second = lease({ host: 'host-2', dataDir: '/srv/dauth-a', pid: 4242 });
    const started = Date.now();
    const refusal = await second.acquire().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refusal).toBeInstanceOf(ReplicaInUseError);
    expect((refusal as ReplicaInUseError).message).toMatch(
      /REPLICA_ID 0 is in use on this chain by another live process/,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
    expect(second.held).toBe(false);
    // Other REPLICA_IDs and other chains are free.
    await lease({ host: 'host-2', dataDir: '/srv/dauth-a', pid: 4242 }, 600, 1).acquire();
  });

  it('refuses at once a live process of the same host and DATA_DIR', async () => {
    nextChain();
    await lease(here(process.pid)).acquire();
    // process.ppid is alive (the test runner's parent) and is not this process.
    const twin = lease(here(process.ppid), 60_000);
    const started = Date.now();
    await expect(twin.acquire()).rejects.toBeInstanceOf(ReplicaInUseError);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('takes over at once a lease left by a killed process of the same host and DATA_DIR', async () => {
    nextChain();
    const killed = lease(here(deadPid()), 60_000);
    await killed.acquire();
    // The process died without releasing it: 60 s of lease left.
    const restarted = lease(here(process.pid), 60_000);
    const started = Date.now();
    await restarted.acquire();
    expect(Date.now() - started).toBeLessThan(500);
    expect(restarted.held).toBe(true);
    expect((await store.read(restarted.name))?.holder).toBe(restarted.holder);
    // Restarted in a container, the same pid again (pid 1): the same holder, so its own lease, renewed.
    const again = lease(here(process.pid), 60_000);
    await again.acquire();
    expect(again.held).toBe(true);
  });

  it('a lease of another host waited for is taken once that process stops renewing it', async () => {
    nextChain();
    const gone = lease({ host: 'host-2', dataDir: '/srv/dauth-b', pid: 77 }, 400);
    await gone.acquire();
    await gone.release();
    // Not released but expired would do as well: write it back, then let it run out.
    await store.acquire(gone.name, gone.holder, 400);
    const next = lease(here(process.pid), 400);
    await next.acquire();
    expect(next.held).toBe(true);
  });

  it('stops sending the moment another process holds the lease, and resumes once it is its own again', async () => {
    nextChain();
    const mine = lease(here(process.pid), 60_000);
    await mine.acquire();
    // This process stalled past its lease and another took it (or an operator started a duplicate).
    await store.takeOver(mine.name, 'intruder', 60_000);
    await mine.renew();
    expect(mine.held).toBe(false);
    expect(mine.detail).toMatch(/REPLICA_ID 0 is held by another process/);
    expect(mine.detail).not.toMatch(/intruder/);
    // It does not take it back while the other renews it…
    await mine.renew();
    expect(mine.held).toBe(false);
    // …and does once it is free.
    await store.release(mine.name, 'intruder');
    await mine.renew();
    expect(mine.held).toBe(true);
    expect(mine.detail).toBeUndefined();
  });

  it('keeps sending through a failed renewal until its lease runs out', async () => {
    nextChain();
    let failing = false;
    const flaky: ConstructorParameters<typeof ReplicaLease>[0] = {
      acquire: (...args) => (failing ? Promise.reject(new Error('database down')) : store.acquire(...args)),
      takeOver: (...args) => store.takeOver(...args),
      read: (name) => store.read(name),
      release: (...args) => store.release(...args),
    };
    const mine = new ReplicaLease(flaky, chainId, 0, here(process.pid), logger, { ttlMs: 300 });
    taken.push(mine);
    await mine.acquire();
    failing = true;
    await mine.renew();
    expect(mine.held).toBe(true);
    await new Promise((r) => setTimeout(r, 320));
    expect(mine.held).toBe(false);
    expect(mine.detail).toMatch(/could not be renewed/);
    failing = false;
    await mine.renew();
    expect(mine.held).toBe(true);
  });

  it('release gives the lease up so the next process need not wait', async () => {
    nextChain();
    const first = lease({ host: 'host-2', dataDir: '/srv/x', pid: 5 }, 60_000);
    await first.acquire();
    await first.release();
    expect(await store.read(first.name)).toBeUndefined();
    const next = lease(here(process.pid), 60_000);
    const started = Date.now();
    await next.acquire();
    expect(Date.now() - started).toBeLessThan(500);
  });
});
