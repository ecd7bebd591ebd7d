import type { IncomingHttpHeaders } from 'node:http';
import { type Dispatcher, Pool } from 'undici';
import { pinnedLookup, type ResolvedAddress } from './callbackTargetPolicy.js';

/** How one POST ended. `body` is the answer's, when it was asked for (`maxAnswerBytes`) and within the bound. */
export type PinnedAnswer =
  | { kind: 'answered'; status: number; body?: Buffer }
  | { kind: 'too_large'; status: number }
  | { kind: 'timeout'; error: string }
  | { kind: 'unreachable'; error: string };

export interface PinnedPostOptions {
  headers: Record<string, string>;
  /** The addresses the callback-target policy vetted: the connection goes to these only. Undefined: DNS. */
  addresses: ResolvedAddress[] | undefined;
  /** From the call to the answer's headers, and to its end when the body is read. */
  timeoutMs: number;
  /**
   * Read a 2xx answer's body up to this many bytes (larger: `too_large`). Default 0: the status only. Any other
   * answer settles at its status, as soon as its headers are in.
   */
  maxAnswerBytes?: number;
  /** Keep the connection for the next POST to the same target. Default true. */
  keepAlive?: boolean;
}

/** Pools kept at once (one per target origin and vetted address set); the oldest is closed past it. */
const MAX_POOLS = 256;
/** What is read of an answer whose body nobody asked for before its connection is dropped. */
const DISCARD_LIMIT_BYTES = 64 * 1024;

/**
 * POSTs to apps' backends (backend callbacks, webhook deliveries, the sponsorship approval hook) on undici's
 * pools, through its handler interface, never following a redirect. Not `node:http`: a `node:http` client in
 * the process shares Node's HTTP classes with the server, and every answer the server writes pays for it
 * (docs/performance-http.md, round 17).
 *
 * The connection goes to the policy's vetted addresses only (`pinnedLookup`), while the URL's host still names
 * the request (Host header, TLS SNI and certificate check). undici takes a `lookup` per pool, not per request,
 * so there is a pool per origin and vetted address set: a host whose addresses change gets a new pool, and a
 * kept-alive connection is only ever reused for the addresses it was vetted for.
 */
export class PinnedPoster {
  readonly #pools = new Map<string, Pool>();
  readonly #inFlight = new Set<AnswerCollector>();
  #closed = false;

  post(url: URL, body: string, options: PinnedPostOptions): Promise<PinnedAnswer> {
    if (this.#closed) return Promise.resolve({ kind: 'unreachable', error: 'sender closed' });
    return new Promise((resolve) => {
      const collector = new AnswerCollector(options.maxAnswerBytes ?? 0, (answer) => {
        this.#inFlight.delete(collector);
        resolve(answer);
      });
      this.#inFlight.add(collector);
      collector.startTimer(options.timeoutMs);
      this.#pool(url, options.addresses).dispatch(
        {
          method: 'POST',
          path: `${url.pathname}${url.search}`,
          headers: options.headers,
          body,
          // Bounded by the collector's own timer (the call's whole budget); undici's would restart per phase.
          headersTimeout: 0,
          bodyTimeout: 0,
          reset: options.keepAlive === false,
        },
        collector,
      );
    });
  }

  /** Ends what is on the wire (as `unreachable`) and closes every connection. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const collector of [...this.#inFlight]) collector.abandon('sender closed');
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(pools.map((pool) => pool.destroy().catch(() => undefined)));
  }

  #pool(url: URL, addresses: ResolvedAddress[] | undefined): Pool {
    const pinned = addresses?.map((a) => `${a.family}/${a.address}`).join(',') ?? 'dns';
    const key = `${url.origin} ${pinned}`;
    let pool = this.#pools.get(key);
    if (pool) return pool;
    pool = new Pool(url.origin, {
      connections: 64,
      ...(addresses ? { connect: { lookup: pinnedLookup(addresses) } } : {}),
    });
    this.#pools.set(key, pool);
    if (this.#pools.size > MAX_POOLS) {
      const [oldestKey, oldest] = this.#pools.entries().next().value!;
      this.#pools.delete(oldestKey);
      void oldest.close().catch(() => undefined);
    }
    return pool;
  }
}

/** One POST's answer as undici hands it over: its status, and its body when asked for. Settles once. */
class AnswerCollector implements Dispatcher.DispatchHandler {
  #controller: Dispatcher.DispatchController | undefined;
  #settled = false;
  #abandoned: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #status = 0;
  #size = 0;
  readonly #chunks: Buffer[] = [];

  constructor(
    private readonly maxAnswerBytes: number,
    private readonly settleWith: (answer: PinnedAnswer) => void,
  ) {}

  startTimer(timeoutMs: number): void {
    this.#timer = setTimeout(() => {
      const error = `no answer within ${timeoutMs} ms`;
      this.#settle({ kind: 'timeout', error });
      this.#stop(error);
    }, timeoutMs);
  }

  /** Gives up on the POST (the sender is closing): settled as unreachable, its connection dropped. */
  abandon(reason: string): void {
    this.#settle({ kind: 'unreachable', error: reason });
    this.#stop(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    // Timed out or abandoned while undici was still connecting: never sent.
    if (this.#abandoned !== undefined) controller.abort(new Error(this.#abandoned));
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    _headers: IncomingHttpHeaders,
  ): void {
    if (statusCode < 200) return; // an informational answer; the final one follows
    this.#status = statusCode;
    if (!this.#readsBody()) this.#settle({ kind: 'answered', status: statusCode });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#size += chunk.length;
    if (!this.#readsBody()) {
      // Read to its end so the connection can be kept, unless the backend sends far more than a status needs.
      if (this.#size > DISCARD_LIMIT_BYTES) controller.abort(new Error('answer body too large to discard'));
      return;
    }
    if (this.#size > this.maxAnswerBytes) {
      this.#settle({ kind: 'too_large', status: this.#status });
      controller.abort(new Error(`answer larger than ${this.maxAnswerBytes} bytes`));
      return;
    }
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    this.#settle({ kind: 'answered', status: this.#status, body: Buffer.concat(this.#chunks) });
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, err: Error): void {
    this.#settle({ kind: 'unreachable', error: err.message });
  }

  /** Whether this answer's body is collected: asked for, and a 2xx answer. */
  #readsBody(): boolean {
    return this.maxAnswerBytes > 0 && this.#status >= 200 && this.#status < 300;
  }

  #settle(answer: PinnedAnswer): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#timer);
    this.settleWith(answer);
  }

  #stop(reason: string): void {
    this.#abandoned = reason;
    this.#controller?.abort(new Error(reason));
  }
}
