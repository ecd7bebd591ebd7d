import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EMBEDDED_CHAIN_KEYS } from '../../src/chain/devAccounts.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../helpers/environment.js';
import { serviceEntry } from '../helpers/serviceEntry.js';

/**
 * One dauth replica as an operator runs it: the real service entry (the built dist/main.js when current,
 * else src/main.ts through tsx) in a process group of its own (so a
 * test can SIGKILL it), on a PostgreSQL schema (through the URL's `search_path`), Redis and an external
 * chain, with its own relayer key picked by `REPLICA_ID`.
 */
export class ReplicaProcess {
  #child: ChildProcess | undefined;
  #output = '';
  readonly url: string;

  constructor(
    readonly index: number,
    readonly env: Record<string, string>,
  ) {
    this.url = `http://127.0.0.1:${env.PORT}`;
  }

  /** The last lines it printed (for failure messages). */
  get output(): string {
    return this.#output.slice(-6_000);
  }

  get running(): boolean {
    return this.#child !== undefined && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** Starts the process and waits until `/readyz` answers 200 (recovery and deployment done). */
  async start(timeoutMs = 120_000): Promise<void> {
    const child = spawn(process.execPath, serviceEntry(), {
      env: { ...process.env, ...this.env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#child = child;
    const keep = (chunk: Buffer) => (this.#output = (this.#output + chunk.toString()).slice(-40_000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!this.running) throw new Error(`replica ${this.index} exited during start:\n${this.output}`);
      const ready = await fetch(`${this.url}/readyz`).catch(() => undefined);
      if (ready?.status === 200) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`replica ${this.index} was not ready in ${timeoutMs} ms:\n${this.output}`);
  }

  /** `kill -9` of its whole process group, as a crashed host. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (!child?.pid || !this.running) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    process.kill(-child.pid, 'SIGKILL');
    await exited;
  }

  /** SIGTERM and wait for the graceful exit (SIGKILL after 20 s). */
  async stop(): Promise<void> {
    const child = this.#child;
    if (!child?.pid || !this.running) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    process.kill(-child.pid, 'SIGTERM');
    const timer = setTimeout(() => this.kill(), 20_000);
    await exited;
    clearTimeout(timer);
  }
}

export interface ReplicaSetOptions {
  count: number;
  rpcUrl: string;
  pgSchema: string;
  /** The shared public URL (token issuer) of the replica set. */
  publicUrl: string;
  relayerKeys: `0x${string}`[];
  adminKey: string;
  ports: number[];
}

/** The replicas' environments: one database schema, one Redis, one chain, one key list. */
export function replicaProcesses(options: ReplicaSetOptions): ReplicaProcess[] {
  const databaseUrl = new URL(TEST_DATABASE_URL);
  databaseUrl.searchParams.set('options', `-c search_path=${options.pgSchema}`);
  return Array.from({ length: options.count }, (_, i) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `dauth-replica-${i}-`));
    return new ReplicaProcess(i, {
      HOST: '127.0.0.1',
      PORT: String(options.ports[i]),
      PUBLIC_URL: options.publicUrl,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      SCRYPT_LOG_N: '14',
      RATE_LIMITS: 'login_address=1000/1m',
      DATABASE_URL: databaseUrl.toString(),
      REDIS_URL: TEST_REDIS_URL,
      MASTER_KEY: 'ef'.repeat(32),
      ADMIN_API_KEY: options.adminKey,
      CALLBACK_ALLOW_PRIVATE: 'true',
      CHAIN_RPC_URL: options.rpcUrl,
      DEPLOYER_PRIVATE_KEY: EMBEDDED_CHAIN_KEYS.deployer,
      PAYMASTER_SIGNER_PRIVATE_KEY: EMBEDDED_CHAIN_KEYS.paymasterSigner,
      OPERATOR_OWNER_PRIVATE_KEY: EMBEDDED_CHAIN_KEYS.operatorOwner,
      RELAYER_PRIVATE_KEYS: options.relayerKeys.join(','),
      REPLICA_ID: String(i),
    });
  });
}
