import { createRequire } from 'node:module';
import { WorkQueue } from '../../workers/workQueue.js';
import { AnsweringWorker } from '../../workers/answeringWorker.js';

/** What zxcvbn said of one password (the policy that turns it into a hint is `PasswordStrength`'s). */
export interface ZxcvbnVerdict {
  /** The password is on the common-password list (any case). */
  common: boolean;
  /** zxcvbn's score 0–4 of the checked part; absent when `common` or when no score was asked for. */
  score?: number;
  warning?: string | null;
  suggestions?: string[];
}

/** The matchers' limits the checker is built with. */
export interface ZxcvbnLimits {
  /** The part of a password zxcvbn looks at (characters). */
  maxLength: number;
  /** How many l33t substitutions zxcvbn tries. */
  l33tMaxSubstitutions: number;
}

/** Checks handed to the worker at once (the next waits in its port, so it never idles at a hand-over). */
const IN_WORKER = 2;
/** Checks allowed to wait beyond those; more are refused with 503 `overloaded`. */
const MAX_WAITING = 256;

/**
 * The worker's code, an eval'd CommonJS script (the same source serves `src/` under tsx and vitest, and
 * `dist/`); the zxcvbn packages are required by the paths the main thread resolved.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
let zxcvbn;
let common;
function load() {
  if (zxcvbn) return;
  const { ZxcvbnFactory } = require(workerData.modules.core);
  const commonPackage = require(workerData.modules.common);
  const english = require(workerData.modules.english);
  zxcvbn = new ZxcvbnFactory({
    translations: english.translations,
    graphs: commonPackage.adjacencyGraphs,
    dictionary: { ...commonPackage.dictionary, ...english.dictionary },
    l33tMaxSubstitutions: workerData.limits.l33tMaxSubstitutions,
    maxLength: workerData.limits.maxLength,
  });
  common = new Set(commonPackage.dictionary['passwords-common'].map((p) => String(p).toLowerCase()));
}
parentPort.on('message', (m) => {
  try {
    if (m.crash) process.exit(1);
    load();
    if (common.has(m.password.toLowerCase())) return parentPort.postMessage({ id: m.id, value: { common: true } });
    if (!m.score) return parentPort.postMessage({ id: m.id, value: { common: false } });
    const result = zxcvbn.check(m.password.slice(0, workerData.limits.maxLength), m.inputs);
    const { warning, suggestions } = result.feedback;
    parentPort.postMessage({ id: m.id, value: { common: false, score: result.score, warning, suggestions } });
  } catch (err) {
    parentPort.postMessage({ id: m.id, error: String((err && err.message) || err) });
  }
});
`;

interface CheckMessage {
  password: string;
  inputs: string[];
  score: boolean;
}

/**
 * zxcvbn on a worker thread of its own (docs/security.md, "Weak passwords"): its ranked dictionaries
 * (about 30 MB of small strings and maps, 0.2–0.3 s to build) and each check (1–20 ms) stay off the event
 * loop and out of the main heap, whose every full collection would otherwise mark them. The thread starts
 * with the service and builds the dictionaries at the first check; a thread that dies fails its checks with
 * an error (the requests answer 500) and the next check starts a new one.
 */
export class ZxcvbnWorker {
  readonly #queue = new WorkQueue(IN_WORKER, MAX_WAITING);
  readonly #modules: { core: string; common: string; english: string };
  /** The thread; a dead one is replaced at the next check (its checks were failed, a replacement's never are). */
  #worker: AnsweringWorker<CheckMessage, ZxcvbnVerdict> | undefined;
  #closed = false;

  constructor(private readonly limits: ZxcvbnLimits) {
    const require = createRequire(import.meta.url);
    this.#modules = {
      core: require.resolve('@zxcvbn-ts/core'),
      common: require.resolve('@zxcvbn-ts/language-common'),
      english: require.resolve('@zxcvbn-ts/language-en'),
    };
    // The thread starts with the service, the dictionaries at the first check. Spawning it later, after the
    // start-up collection (startupGarbage.ts), cost token validation 16–27 % more CPU in the regression guard
    // (docs/performance-pin.md, round 7).
    this.#ensure();
  }

  /**
   * The verdict on `password` (zxcvbn looks at its first `maxLength` characters; the common-password list
   * at all of it), with `inputs` as zxcvbn's user inputs; `score: false` asks for the list only.
   */
  verdict(password: string, inputs: string[], score = true): Promise<ZxcvbnVerdict> {
    return this.#queue.run(() => this.#send({ password, inputs, score }));
  }

  /** Stops the thread (the service's close); checks still pending fail. */
  async close(): Promise<void> {
    this.#closed = true;
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate(new Error('the password checker was closed'));
  }

  /** Kills the thread, resolving once it has exited (tests: its checks fail, the next one starts a new thread). */
  crashForTest(): Promise<void> {
    return this.#ensure().crashForTest();
  }

  #send(message: CheckMessage): Promise<ZxcvbnVerdict> {
    if (this.#closed) return Promise.reject(new Error('the password checker was closed'));
    return this.#ensure().request(message);
  }

  #ensure(): AnsweringWorker<CheckMessage, ZxcvbnVerdict> {
    if (this.#worker && !this.#worker.dead) return this.#worker;
    this.#worker = new AnsweringWorker<CheckMessage, ZxcvbnVerdict>({
      source: WORKER_SOURCE,
      workerData: { modules: this.#modules, limits: this.limits },
      name: 'password checker',
    });
    return this.#worker;
  }
}
