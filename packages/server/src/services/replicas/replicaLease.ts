import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';

/** The lease rows this needs (LeaseStore). */
export interface LeaseRecords {
  acquire(name: string, holder: string, ttlMs: number, now?: number): Promise<boolean>;
  takeOver(name: string, holder: string, ttlMs: number, now?: number): Promise<void>;
  read(name: string): Promise<{ holder: string; expiresAt: number } | undefined>;
  release(name: string, holder: string): Promise<void>;
}

/** Where a process runs: a lease left by the same host and DATA_DIR under a dead pid is its own, killed. */
export interface ProcessIdentity {
  host: string;
  dataDir: string;
  pid: number;
}

export interface ReplicaLeaseOptions {
  /** How long a lease lasts without renewal; renewed every third of it. */
  ttlMs: number;
}

export const DEFAULT_REPLICA_LEASE_TTL_MS = 30_000;

/** Another live process holds this replica's lease: two processes were given one REPLICA_ID. */
export class ReplicaInUseError extends Error {
  constructor(
    readonly replica: number,
    readonly holder: string,
  ) {
    super(
      `REPLICA_ID ${replica} is in use on this chain by another live process (${holder}): each replica needs a ` +
        "REPLICA_ID of its own (its relayer key and its wallets' nonce lane); a shared one would send operations " +
        'that can become one another (docs/chain.md, "One process per replica")',
    );
    this.name = 'ReplicaInUseError';
  }
}

/**
 * One live process per REPLICA_ID on an external chain. A replica's id picks its relayer key (whose
 * transaction nonces it alone hands out) and its wallets' EntryPoint nonce lane (nonceKeys.ts): two processes
 * with one id would hand out the same nonces, and two identical requests through them would become one
 * operation answered done twice. The lease is a row in the shared database, taken before the process sends
 * anything (its journal recovery included) and renewed every third of its TTL:
 * - at start a lease left by this host and DATA_DIR under a pid that is gone is taken over at once (one left
 *   under this process's own pid, a container's pid 1 again, is the same holder and simply renewed), so a replica restarted after `kill -9` does not wait; a lease held by a live
 *   process of this host is refused at once; one held elsewhere is waited for until it expires, then refused
 *   if it is still renewed (`ReplicaInUseError`);
 * - while running, `held` is false from the moment this process cannot show a live lease (another process
 *   took it after this one stalled, or renewals failed past its expiry): the operation pipeline then refuses to
 *   send (503, nothing sent) and `/readyz` says why, until the lease is this process's again.
 */
export class ReplicaLease {
  readonly name: string;
  readonly holder: string;
  /** Until when this process may send (its last renewal's expiry); 0 once another holder was seen. */
  #validUntil = 0;
  /** A renewal found another holder (not merely a failed write). */
  #lostToAnother = false;
  #timer: NodeJS.Timeout | undefined;
  #renewing: Promise<void> | undefined;

  constructor(
    private readonly records: LeaseRecords,
    readonly chainId: number,
    readonly replica: number,
    private readonly identity: ProcessIdentity,
    private readonly logger: Logger,
    private readonly options: ReplicaLeaseOptions,
  ) {
    this.name = `chain ${chainId} replica ${replica}`;
    this.holder = holderOf(identity);
  }

  /** May this process send to the chain now? */
  get held(): boolean {
    return Date.now() < this.#validUntil;
  }

  /** Why it may not (for `/readyz`), or undefined while it may. */
  get detail(): string | undefined {
    if (this.held) return undefined;
    return this.#lostToAnother
      ? `REPLICA_ID ${this.replica} is held by another process (see the log); nothing is sent to the chain`
      : `REPLICA_ID ${this.replica}'s lease could not be renewed; nothing is sent to the chain`;
  }

  /** Takes the lease (see the class comment) and starts renewing it; throws `ReplicaInUseError`. */
  async acquire(): Promise<void> {
    const { ttlMs } = this.options;
    const deadline = Date.now() + ttlMs + 1_000;
    for (;;) {
      const now = Date.now();
      const current = await this.records.read(this.name);
      if (current && current.holder !== this.holder && current.expiresAt > now) {
        const other = parseHolder(current.holder);
        const sameHome = other !== undefined && other.home === homeOf(this.identity);
        // (The same pid on the same home, a container's pid 1 again, is the same holder: renewed below.)
        if (sameHome && !isProcessAlive(other.pid)) {
          this.logger.warn(
            { lease: this.name, previous: current.holder },
            'taking over the replica lease of a previous process of this DATA_DIR (it was stopped without releasing it)',
          );
          await this.records.takeOver(this.name, this.holder, ttlMs, now);
          this.#took(now);
          return;
        }
        if (sameHome || now >= deadline) throw new ReplicaInUseError(this.replica, current.holder);
        // Another host's, or another DATA_DIR's: a process that died there stops renewing it; wait that out.
        await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, ttlMs / 3)));
        continue;
      }
      if (await this.records.acquire(this.name, this.holder, ttlMs, now)) {
        this.#took(now);
        return;
      }
      // Someone took it between the read and the write: read again.
    }
  }

  #took(at: number): void {
    this.#validUntil = at + this.options.ttlMs;
    this.#lostToAnother = false;
    this.#timer ??= setInterval(() => void this.renew(), this.options.ttlMs / 3);
    this.#timer.unref();
  }

  /** One renewal (the timer's; tests call it). A failed write leaves `held` to run out at the last expiry. */
  renew(): Promise<void> {
    this.#renewing ??= this.#renew().finally(() => (this.#renewing = undefined));
    return this.#renewing;
  }

  async #renew(): Promise<void> {
    const at = Date.now();
    let renewed: boolean;
    try {
      renewed = await this.records.acquire(this.name, this.holder, this.options.ttlMs, at);
    } catch (err) {
      this.logger.warn(
        { err, lease: this.name },
        'cannot renew the replica lease; sends stop when it runs out',
      );
      return;
    }
    if (renewed) {
      if (!this.held)
        this.logger.warn({ lease: this.name }, "the replica lease is this process's again; sending resumes");
      this.#took(at);
      return;
    }
    // Fenced from this moment; the log line (once per loss) names the other holder.
    this.#validUntil = 0;
    if (this.#lostToAnother) return;
    this.#lostToAnother = true;
    const current = await this.records.read(this.name).catch(() => undefined);
    this.logger.error(
      { lease: this.name, holder: current?.holder },
      "another process holds this replica's lease (one REPLICA_ID given to two processes); nothing is sent to the chain until it is free",
    );
  }

  /** Stops renewing and gives the lease up (a clean stop: the next process need not wait). */
  async release(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#renewing;
    if (this.held) await this.records.release(this.name, this.holder).catch(() => undefined);
    this.#validUntil = 0;
  }
}

/** This process, as its lease names it. */
export function currentProcess(dataDir: string): ProcessIdentity {
  return { host: os.hostname(), dataDir: path.resolve(dataDir), pid: process.pid };
}

/**
 * `<pid>@<host, cut to 24>#<home>`, under the lease table's 64 characters: `home` is a hash of the host and the
 * resolved DATA_DIR, which is what tells a predecessor of this process from another process.
 */
function holderOf(identity: ProcessIdentity): string {
  return `${identity.pid}@${identity.host.slice(0, 24)}#${homeOf(identity)}`;
}

function homeOf(identity: Pick<ProcessIdentity, 'host' | 'dataDir'>): string {
  return createHash('sha256').update(`${identity.host}\0${identity.dataDir}`).digest('hex').slice(0, 16);
}

function parseHolder(holder: string): { pid: number; home: string } | undefined {
  const match = /^(\d+)@.*#([0-9a-f]{16})$/.exec(holder);
  return match ? { pid: Number(match[1]), home: match[2]! } : undefined;
}

/** Signal 0 checks for a process without touching it; EPERM means it exists under another user. */
function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
