import type { IncomingHttpHeaders } from 'node:http';
import { type Dispatcher, Pool } from 'undici';

export interface RpcCall {
  method: string;
  params: unknown[];
}

/** One call's answer in a batch: its result, or the node's error message. */
export type RpcOutcome = { result: unknown } | { error: string };

/** A bound for answers to one-value reads (`eth_blockNumber`, `eth_chainId`: under 100 bytes). */
export const SMALL_ANSWER_BYTES = 64 * 1024;

export interface DirectRpcOptions {
  /** Give up on a request after this long. Default: wait (the recovery's calls wait for the node). */
  timeoutMs?: number;
  /** Refuse an answer larger than this. Default: no bound (a replayed block's receipts can be large). */
  maxAnswerBytes?: number;
  /** Connections kept to the node. Default 1: the recovery's requests are sequential. */
  maxSockets?: number;
}

/**
 * A failed call. The message never names the URL (an API key may sit in its path or userinfo).
 * `connectionLost`: the connection closed before an answer came (a kept-alive connection the node had closed
 * while it idled, or a node that died mid-answer), so the node may or may not have run the call; the caller may
 * send it again on a new connection if the call is idempotent: `read` does, `call` does not, since some calls
 * (`anvil_mine`, a send) are not idempotent.
 */
export class DirectRpcError extends Error {
  override readonly name = 'DirectRpcError';
  readonly status: number | undefined;
  readonly timedOut: boolean;
  readonly connectionLost: boolean;

  constructor(
    message: string,
    details: { status?: number; timedOut?: boolean; connectionLost?: boolean; cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.status = details.status;
    this.timedOut = details.timedOut ?? false;
    this.connectionLost = details.connectionLost ?? false;
  }
}

/** undici's codes for a connection or an answer that did not come in time. */
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * JSON-RPC straight to the node over kept-alive connections, for the recovery's long chain of small requests
 * that must each finish before the next (no client batching delay) and the head poll's ten asks a second.
 * A plain HTTP client costs about half the time per request of `fetch` (measured against anvil: 0.6–1.0 ms
 * against 1.3–2.8 ms per call), which is most of what a replayed block costs besides anvil's own block
 * production. It is undici's `Pool` through its handler interface, not `node:http`: a `node:http` client in
 * the process shares Node's `OutgoingMessage`, `IncomingMessage` and stream code with the HTTP server, whose
 * inline caches then meet the client's objects too and every request the server answers pays for it
 * (docs/performance-http.md, round 17). The handler reads the answer's bytes as they come: no stream at all.
 */
export class DirectRpc {
  readonly #pool: Pool;
  readonly #path: string;
  readonly #headers: Record<string, string>;
  readonly #timeoutMs: number;
  readonly #maxAnswerBytes: number;
  #id = 0;

  constructor(url: string, options: DirectRpcOptions = {}) {
    const target = new URL(url);
    this.#pool = new Pool(target.origin, {
      connections: options.maxSockets ?? 1,
      pipelining: 1,
      // A node that never accepts the connection gives up with the call's own bound (undici's default: 10 s).
      ...(options.timeoutMs === undefined ? {} : { connectTimeout: options.timeoutMs }),
    });
    this.#path = `${target.pathname}${target.search}`;
    this.#headers = { 'content-type': 'application/json' };
    // URL credentials as HTTP Basic authentication, as node:http sends them (a node behind a proxy that asks).
    if (target.username !== '' || target.password !== '') {
      const credentials = `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`;
      this.#headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
    }
    // 0: no timeout (undici's default would give up after 300 s; the recovery's calls wait for the node).
    this.#timeoutMs = options.timeoutMs ?? 0;
    this.#maxAnswerBytes = options.maxAnswerBytes ?? Number.POSITIVE_INFINITY;
  }

  async call(method: string, params: unknown[]): Promise<unknown> {
    const answer = (await this.#post({ jsonrpc: '2.0', id: ++this.#id, method, params })) as RpcAnswer;
    if (answer === null || typeof answer !== 'object')
      throw new DirectRpcError(`${method}: not a JSON-RPC answer`);
    if (answer.error) throw new DirectRpcError(`${method}: ${answer.error.message ?? 'error'}`);
    return answer.result;
  }

  /**
   * `call` for a method that may run twice (a read): a request whose connection closed before the answer (the
   * node closed a kept-alive one while it idled) is sent once more, on a new connection.
   */
  async read(method: string, params: unknown[]): Promise<unknown> {
    try {
      return await this.call(method, params);
    } catch (err) {
      if (err instanceof DirectRpcError && err.connectionLost) return this.call(method, params);
      throw err;
    }
  }

  /**
   * Several calls in one request. The node may run them concurrently (anvil does), so only calls whose
   * order does not matter may share a batch.
   */
  async batch(calls: RpcCall[]): Promise<RpcOutcome[]> {
    const first = this.#id + 1;
    const body = calls.map((c) => ({ jsonrpc: '2.0', id: ++this.#id, method: c.method, params: c.params }));
    const answers = (await this.#post(body)) as RpcAnswer[];
    if (!Array.isArray(answers)) throw new DirectRpcError('the node did not answer the batch with a list');
    const byId = new Map(answers.map((a) => [a.id, a]));
    return calls.map((c, i) => {
      const answer = byId.get(first + i);
      if (!answer) return { error: `${c.method}: no answer in the batch` };
      return answer.error ? { error: answer.error.message ?? 'error' } : { result: answer.result };
    });
  }

  close(): void {
    void this.#pool.destroy().catch(() => {});
  }

  #post(body: unknown): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.#pool.dispatch(
        {
          method: 'POST',
          path: this.#path,
          headers: this.#headers,
          body: JSON.stringify(body),
          headersTimeout: this.#timeoutMs,
          bodyTimeout: this.#timeoutMs,
        },
        new AnswerReader(this.#maxAnswerBytes, resolve, reject),
      );
    });
  }
}

/** Collects one answer's bytes (within a bound) and settles the call with its JSON or a `DirectRpcError`. */
class AnswerReader implements Dispatcher.DispatchHandler {
  #status = 0;
  #size = 0;
  readonly #chunks: Buffer[] = [];

  constructor(
    private readonly maxAnswerBytes: number,
    private readonly resolve: (answer: unknown) => void,
    private readonly reject: (err: DirectRpcError) => void,
  ) {}

  /** Nothing to do; its presence tells undici this handler uses its current handler interface. */
  onRequestStart(): void {}

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    _headers: IncomingHttpHeaders,
  ): void {
    this.#status = statusCode;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#size += chunk.length;
    if (this.#size <= this.maxAnswerBytes) this.#chunks.push(chunk);
    else {
      const status = this.#status;
      controller.abort(
        new DirectRpcError(`the node's answer is larger than ${this.maxAnswerBytes} bytes`, { status }),
      );
    }
  }

  onResponseEnd(): void {
    // Any JSON is the node's answer, whatever the status (some nodes send JSON-RPC errors with a 4xx); anything
    // else is a proxy's or gateway's page.
    try {
      this.resolve(JSON.parse(Buffer.concat(this.#chunks).toString('utf8')));
    } catch {
      const status = this.#status;
      this.reject(new DirectRpcError(`the node answered HTTP ${status} without JSON`, { status }));
    }
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, err: Error): void {
    if (err instanceof DirectRpcError) return this.reject(err);
    const code = (err as { code?: unknown }).code;
    const status = this.#status === 0 ? undefined : this.#status;
    if (typeof code === 'string' && TIMEOUT_CODES.has(code)) {
      return this.reject(
        new DirectRpcError('the node did not answer in time', { timedOut: true, cause: err }),
      );
    }
    // UND_ERR_SOCKET: the connection closed under the request ("other side closed"), before its answer ended.
    const connectionLost = code === 'UND_ERR_SOCKET' || code === 'ECONNRESET';
    this.reject(
      new DirectRpcError(err.message, {
        ...(status === undefined ? {} : { status }),
        connectionLost,
        cause: err,
      }),
    );
  }
}

interface RpcAnswer {
  id: number;
  result?: unknown;
  error?: { message?: string };
}
