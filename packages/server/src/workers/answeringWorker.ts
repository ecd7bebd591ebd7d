import { type Transferable, Worker } from 'node:worker_threads';

/**
 * What a worker's script posts back for a request: `{ id, value }`, or `{ id, error }` with the error's
 * message. Its requests arrive as `{ id, ...message }`; `{ id: 0, crash: true }` asks it to exit (tests).
 */
type Answer = { id: number; value: unknown } | { id: number; error: string };

interface Pending {
  resolve: (value: never) => void;
  reject: (err: Error) => void;
}

export interface AnsweringWorkerOptions {
  /** The worker's code, an eval'd CommonJS script, so the same source serves `src/` (tsx) and `dist/`. */
  source: string;
  workerData: unknown;
  /** Names the thread in errors: "`<name>` failed: …", "`<name>` exited (code 1)". */
  name: string;
  /** Called once when the thread dies (an uncaught error or an exit), after its requests have failed. */
  onDeath?: (err: Error) => void;
}

/**
 * One worker thread that answers requests by id (the PBKDF2 pool's threads, the password checker's):
 * requests wait in a map until their answer comes back; a thread that dies fails every request it holds
 * with an error, so no caller waits forever, and tells its owner (`onDeath`) to replace it. The thread is
 * unref'd: an idle worker never keeps the process alive, a pending request's caller does.
 */
export class AnsweringWorker<Request extends object, Value> {
  readonly #thread: Worker;
  readonly #name: string;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #dead: Error | undefined;

  constructor(options: AnsweringWorkerOptions) {
    this.#name = options.name;
    this.#thread = new Worker(options.source, { eval: true, workerData: options.workerData });
    this.#thread.unref();
    this.#thread.on('message', (answer: Answer) => {
      const pending = this.#pending.get(answer.id);
      if (!pending) return;
      this.#pending.delete(answer.id);
      if ('error' in answer) pending.reject(new Error(`${this.#name} failed: ${answer.error}`));
      else pending.resolve(answer.value as never);
    });
    const die = (err: Error) => {
      if (this.#dead) return;
      this.#dead = err;
      this.#failAll(err);
      options.onDeath?.(err);
    };
    // An uncaught error is followed by an exit: the first of the two fails the requests.
    this.#thread.on('error', die);
    this.#thread.on('exit', (code) => die(new Error(`${this.#name} exited (code ${code})`)));
  }

  /** Requests sent and not yet answered. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Whether the thread has died (its requests failed; a new request fails at once). */
  get dead(): boolean {
    return this.#dead !== undefined;
  }

  /** Sends `message` (with `transfer`'s buffers moved, not copied) and resolves with the worker's value. */
  request(message: Request, transfer: readonly Transferable[] = []): Promise<Value> {
    if (this.#dead) return Promise.reject(this.#dead);
    const id = this.#nextId++;
    return new Promise<Value>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: never) => void, reject });
      this.#thread.postMessage({ id, ...message }, transfer);
    });
  }

  /** Stops the thread; requests still pending fail with `reason`. */
  async terminate(reason: Error): Promise<void> {
    this.#dead ??= reason;
    await this.#thread.terminate();
    this.#failAll(reason);
  }

  /** Makes the thread exit as if it had crashed, resolving once it has (tests). */
  crashForTest(): Promise<void> {
    const exited = new Promise<void>((resolve) => this.#thread.once('exit', () => resolve()));
    this.#thread.postMessage({ id: 0, crash: true });
    return exited;
  }

  #failAll(err: Error): void {
    for (const pending of this.#pending.values()) pending.reject(err);
    this.#pending.clear();
  }
}
