import { availableParallelism } from 'node:os';
import { activeSpan, inSpan } from '../observability/spans.js';
import { AnsweringWorker } from '../workers/answeringWorker.js';
import { WorkQueue } from '../workers/workQueue.js';

/**
 * PBKDF2 on worker threads of its own (docs/performance-pin.md), not on libuv's shared pool: PIN
 * derivations no longer compete with file I/O, DNS, WebCrypto or scrypt for libuv's threads, and
 * each worker thread is reniced (Linux) so that the event loop's thread wins a contended core at
 * once while the workers keep every otherwise idle core busy.
 *
 * - `size` workers (PIN_WORKERS, the core count by default), each holding at most `perWorker` jobs
 *   (the next one waits in the worker's own message queue, so it does not idle while the event loop
 *   hands over); at most `maxQueued` more wait in a FIFO here, past that 503 `overloaded` (WorkQueue).
 * - The password travels in a transferred buffer the worker wipes after use; the derived key comes
 *   back in a transferred buffer of its own (the worker wipes its copy), which the caller wipes.
 * - A worker that dies fails its jobs with an error and is replaced; `close()` terminates the pool.
 */
export interface Pbkdf2PoolOptions {
  /** Worker threads (default: the core count). */
  size?: number;
  /** Jobs handed to one worker at once (default 2). */
  perWorker?: number;
  /** Jobs allowed to wait for a worker; more are refused with 503 `overloaded` (default 256). */
  maxQueued?: number;
  /** Nice value of the worker threads on Linux (default 19; 0 leaves them at the process's). */
  nice?: number;
}

export type Pbkdf2Digest = 'sha256' | 'sha512';

/** One job as the worker receives it (the buffers are transferred). */
interface DeriveMessage {
  password: ArrayBuffer;
  salt: ArrayBuffer;
  iterations: number;
  keylen: number;
  digest: Pbkdf2Digest;
  crash: boolean;
}

type PoolWorker = AnsweringWorker<DeriveMessage, ArrayBuffer>;

/**
 * The worker's code, run as an eval'd CommonJS script so the same source serves `src/` (tsx, vitest)
 * and `dist/` (node). setpriority(PRIO_PROCESS, tid) renices only the calling thread on Linux; the
 * thread id is the last part of /proc/thread-self. Elsewhere that fails and the thread keeps its priority.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { pbkdf2Sync } = require('node:crypto');
if (workerData.nice !== 0 && process.platform === 'linux') {
  try {
    const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) require('node:os').setPriority(tid, workerData.nice);
  } catch {}
}
parentPort.on('message', (m) => {
  const password = new Uint8Array(m.password);
  let derived;
  try {
    if (m.crash) process.exit(1);
    derived = pbkdf2Sync(password, Buffer.from(m.salt), m.iterations, m.keylen, m.digest);
    const out = new Uint8Array(m.keylen);
    out.set(derived);
    parentPort.postMessage({ id: m.id, value: out.buffer }, [out.buffer]);
  } catch (err) {
    parentPort.postMessage({ id: m.id, error: String(err && err.message) });
  } finally {
    password.fill(0);
    if (derived) derived.fill(0);
  }
});
`;

export class Pbkdf2Pool {
  readonly size: number;
  readonly perWorker: number;
  readonly #nice: number;
  readonly #queue: WorkQueue;
  readonly #workers: PoolWorker[] = [];
  #closed = false;

  constructor(options: Pbkdf2PoolOptions = {}) {
    this.size = Math.max(1, options.size ?? availableParallelism());
    this.perWorker = Math.max(1, options.perWorker ?? 2);
    this.#nice = options.nice ?? 19;
    this.#queue = new WorkQueue(this.size * this.perWorker, options.maxQueued ?? 256);
    for (let i = 0; i < this.size; i++) this.#workers.push(this.#spawn());
  }

  /** Jobs in flight or waiting for a worker's slot (metrics, tests). */
  get queued(): number {
    return this.#queue.queued;
  }

  /** Jobs handed to workers at most at once. */
  get concurrency(): number {
    return this.#queue.concurrency;
  }

  /** Jobs handed to workers now. */
  get inFlight(): number {
    return this.#workers.reduce((n, w) => n + w.pending, 0);
  }

  /**
   * PBKDF2-HMAC(`password`, `salt`, `iterations`, `keylen`) as a Buffer the caller wipes. The password
   * is copied into the buffer sent to the worker; the caller still owns (and wipes) its own.
   */
  derive(
    password: Uint8Array,
    salt: string | Uint8Array,
    iterations: number,
    keylen: number,
    digest: Pbkdf2Digest,
  ): Promise<Buffer> {
    if (this.#closed) return Promise.reject(new Error('the PBKDF2 pool is closed'));
    const job = () =>
      this.#queue.run(() => this.#dispatch(password, salt, iterations, keylen, digest, false));
    // Traced under a request's span only (docs/operations.md, "Traces"): the wait for a worker included.
    if (!activeSpan()) return job();
    return inSpan(
      'pbkdf2',
      {
        attributes: {
          'dauth.pbkdf2.iterations': iterations,
          'dauth.pbkdf2.digest': digest,
          'dauth.pbkdf2.queued': this.queued,
        },
      },
      job,
    );
  }

  /** Test hook: the worker that takes this job exits as if it had crashed. */
  crashOneWorkerForTest(): Promise<Buffer> {
    return this.#queue.run(() => this.#dispatch(new Uint8Array(1), 'x', 1, 1, 'sha256', true));
  }

  /** Terminates every worker; jobs still running fail. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const workers = this.#workers.splice(0);
    await Promise.all(workers.map((w) => w.terminate(new Error('the PBKDF2 pool was closed'))));
  }

  #dispatch(
    password: Uint8Array,
    salt: string | Uint8Array,
    iterations: number,
    keylen: number,
    digest: Pbkdf2Digest,
    crash: boolean,
  ): Promise<Buffer> {
    if (this.#closed) return Promise.reject(new Error('the PBKDF2 pool is closed'));
    // The least busy worker; WorkQueue guarantees one has a free slot.
    let target = this.#workers[0]!;
    for (const w of this.#workers) if (w.pending < target.pending) target = w;
    const sent = new Uint8Array(password.length);
    sent.set(password);
    const saltBytes = typeof salt === 'string' ? Buffer.from(salt, 'utf8') : salt;
    const saltCopy = new Uint8Array(saltBytes.length);
    saltCopy.set(saltBytes);
    return target
      .request({ password: sent.buffer, salt: saltCopy.buffer, iterations, keylen, digest, crash }, [
        sent.buffer,
        saltCopy.buffer,
      ])
      .then((key) => Buffer.from(key));
  }

  /** A worker that dies (its jobs already failed) is replaced at once, unless the pool is closing. */
  #spawn(): PoolWorker {
    const worker: PoolWorker = new AnsweringWorker({
      source: WORKER_SOURCE,
      workerData: { nice: this.#nice },
      name: 'PBKDF2 worker',
      onDeath: () => {
        const index = this.#workers.indexOf(worker);
        if (index < 0) return;
        if (this.#closed) this.#workers.splice(index, 1);
        else this.#workers[index] = this.#spawn();
      },
    });
    return worker;
  }
}
