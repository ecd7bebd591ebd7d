import http from 'node:http';
import https from 'node:https';

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
 * `reusedSocket`: the request went out on a kept-alive connection the node had closed while it idled, so it
 * never reached the node; the caller may send it again on a new one if the call is idempotent (Node's
 * documented pattern): `read` does, `call` does not, since some calls (`anvil_mine`, a send) are not idempotent.
 */
export class DirectRpcError extends Error {
  override readonly name = 'DirectRpcError';
  readonly status: number | undefined;
  readonly timedOut: boolean;
  readonly reusedSocket: boolean;

  constructor(
    message: string,
    details: { status?: number; timedOut?: boolean; reusedSocket?: boolean; cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.status = details.status;
    this.timedOut = details.timedOut ?? false;
    this.reusedSocket = details.reusedSocket ?? false;
  }
}

/**
 * JSON-RPC straight to the node over one kept-alive connection, for the recovery's long chain of small
 * requests that must each finish before the next (no client batching delay). node:http costs about half
 * the time per request of `fetch` (measured against anvil: 0.6–1.0 ms against 1.3–2.8 ms per call), which
 * is most of what a replayed block costs besides anvil's own block production. The head poll uses it too
 * (chain/headReader.ts), with a timeout and a bound on the answer.
 */
export class DirectRpc {
  readonly #url: URL;
  readonly #agent: http.Agent;
  readonly #timeoutMs: number | undefined;
  readonly #maxAnswerBytes: number;
  #id = 0;

  constructor(url: string, options: DirectRpcOptions = {}) {
    this.#url = new URL(url);
    const Agent = this.#url.protocol === 'https:' ? https.Agent : http.Agent;
    this.#agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 1 });
    this.#timeoutMs = options.timeoutMs;
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
   * `call` for a method that may run twice (a read): a request lost on a kept-alive connection the node closed
   * while it idled is sent once more, on a new connection.
   */
  async read(method: string, params: unknown[]): Promise<unknown> {
    try {
      return await this.call(method, params);
    } catch (err) {
      if (err instanceof DirectRpcError && err.reusedSocket) return this.call(method, params);
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
    this.#agent.destroy();
  }

  #post(body: unknown): Promise<unknown> {
    const payload = JSON.stringify(body);
    const request = this.#url.protocol === 'https:' ? https.request : http.request;
    return new Promise((resolve, reject) => {
      const req = request(
        this.#url,
        {
          method: 'POST',
          agent: this.#agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        },
        (res) => {
          const status = res.statusCode ?? 0;
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size <= this.#maxAnswerBytes) return void chunks.push(chunk);
            res.destroy();
            reject(
              new DirectRpcError(`the node's answer is larger than ${this.#maxAnswerBytes} bytes`, {
                status,
              }),
            );
          });
          res.on('error', (err) => reject(new DirectRpcError(err.message, { status, cause: err })));
          res.on('end', () => {
            // Any JSON is the node's answer, whatever the status (some nodes send JSON-RPC errors with a 4xx);
            // anything else is a proxy's or gateway's page.
            try {
              resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
            } catch {
              reject(new DirectRpcError(`the node answered HTTP ${status} without JSON`, { status }));
            }
          });
        },
      );
      if (this.#timeoutMs !== undefined) {
        const timeoutMs = this.#timeoutMs;
        req.setTimeout(timeoutMs, () => {
          req.destroy();
          reject(new DirectRpcError(`the node did not answer in ${timeoutMs} ms`, { timedOut: true }));
        });
      }
      req.on('error', (err: NodeJS.ErrnoException) => {
        const reusedSocket = req.reusedSocket && err.code === 'ECONNRESET';
        reject(new DirectRpcError(err.message, { reusedSocket, cause: err }));
      });
      req.end(payload);
    });
  }
}

interface RpcAnswer {
  id: number;
  result?: unknown;
  error?: { message?: string };
}
