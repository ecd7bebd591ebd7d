import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

/** Thrown when another live process already runs this DATA_DIR's embedded chain. */
export class ChainInUseError extends Error {
  constructor(
    /** The owner's pid as it recorded it; undefined while the owner has not written it yet. */
    readonly pid: number | undefined,
    lockPath: string,
  ) {
    super(
      `The embedded chain of this DATA_DIR is in use by ${pid ? `process ${pid}` : 'another process'} ` +
        `(a running dauth?). Stop it first, or set CHAIN_RPC_URL to share its chain. Lock: ${lockPath}`,
    );
    this.name = 'ChainInUseError';
  }
}

/**
 * One process owns a DATA_DIR's embedded chain: two anvils on one state file would overwrite each
 * other's dumps, and the content usage batcher takes its lease over at start on the strength of it.
 *
 * The lock is SQLite's exclusive lock on `chain/owner.lock` (a POSIX advisory record lock, `fcntl`),
 * held on an open connection for the life of the owner. The kernel drops such a lock the moment its
 * process dies, however it dies, so a start 0 ms after a `kill -9` proceeds, while a live owner, one still
 * starting included, is refused. A pid file judged by "does that pid exist" cannot do this: a process
 * killed a moment ago still exists (dying, or a zombie not yet reaped), and a pid from another boot may
 * belong to an unrelated process. `chain/owner.pid` remains, for the refusal's message only.
 *
 * POSIX locks belong to the process, not to its children (anvil never holds it), and SQLite keeps two
 * connections of one process from both taking it, so an in-process second launch is refused too.
 */
export class ChainOwnerLock {
  private constructor(
    private connection: Database.Database | undefined,
    readonly lockPath: string,
    readonly pidPath: string,
  ) {}

  /**
   * Takes the lock of the chain directory `chainDir`, or throws `ChainInUseError`. A held lock is tried
   * again for `graceMs`: a supervisor may start us the instant after it sent SIGKILL, while the kernel
   * is still tearing the old owner down (its locks go with its last file descriptor, a few ms later).
   */
  static async acquire(chainDir: string, graceMs = 3_000): Promise<ChainOwnerLock> {
    const deadline = Date.now() + graceMs;
    for (;;) {
      const lock = ChainOwnerLock.tryAcquire(chainDir);
      if (lock instanceof ChainOwnerLock) return lock;
      if (Date.now() >= deadline) throw lock;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  private static tryAcquire(chainDir: string): ChainOwnerLock | ChainInUseError {
    const lockPath = path.join(chainDir, 'owner.lock');
    const pidPath = path.join(chainDir, 'owner.pid');
    fs.mkdirSync(chainDir, { recursive: true });
    // timeout 0: a held lock answers SQLITE_BUSY at once instead of waiting for it.
    const connection = new Database(lockPath, { timeout: 0 });
    try {
      // In EXCLUSIVE locking mode the connection keeps the exclusive lock its first write takes until it
      // closes; the write (the owner's pid) is what takes it.
      connection.pragma('locking_mode = EXCLUSIVE');
      connection.exec('BEGIN EXCLUSIVE');
      connection.exec('CREATE TABLE IF NOT EXISTS owner (pid INTEGER NOT NULL, since INTEGER NOT NULL)');
      connection.exec('DELETE FROM owner');
      connection.prepare('INSERT INTO owner (pid, since) VALUES (?, ?)').run(process.pid, Date.now());
      connection.exec('COMMIT');
    } catch (err) {
      connection.close();
      if ((err as { code?: unknown }).code === 'SQLITE_BUSY')
        return new ChainInUseError(readPid(pidPath), lockPath);
      throw err;
    }
    fs.writeFileSync(pidPath, String(process.pid));
    return new ChainOwnerLock(connection, lockPath, pidPath);
  }

  get held(): boolean {
    return this.connection !== undefined;
  }

  /** Gives the lock up (a clean stop); idempotent. */
  release(): void {
    if (!this.connection) return;
    if (readPid(this.pidPath) === process.pid) fs.rmSync(this.pidPath, { force: true });
    this.connection.close();
    this.connection = undefined;
  }
}

function readPid(pidPath: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(pidPath, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
