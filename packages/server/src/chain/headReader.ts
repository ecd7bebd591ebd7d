import http from 'node:http';
import https from 'node:https';
import { HttpRequestError, TimeoutError } from 'viem';
import type { ChainClient } from './chainClient.js';
import type { RpcFailover } from './rpcFailover.js';

/** The chain's latest block number, asked of the node now (never cached). */
export type HeadReader = () => Promise<bigint>;

/** An `eth_blockNumber` answer is ~60 bytes; anything near this is not one. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * The head poll's reader. The content watch asks for the head ten times a second for as long as the process
 * runs, and through viem's HTTP transport (WHATWG `fetch`: a `Request`, web streams, an abort timer) each ask
 * cost 0.6–1.1 ms of CPU and its garbage: half of an idle server's CPU (docs/performance-http.md, round 7).
 * On one plain http(s) endpoint the same JSON-RPC call is made over a kept-alive `node:http` connection
 * (≈ 0.1–0.25 ms). Several endpoints (CHAIN_RPC_URLS) and WebSocket endpoints keep viem's client, whose
 * failover and subscriptions the lean reader does not repeat.
 *
 * Failures are viem's transport errors (`HttpRequestError`, `TimeoutError`), so the gateway translates them as
 * it does every other call's: `chain_unavailable`. Their text names the endpoint by scheme and host only (an
 * API key may sit in the path or the userinfo).
 */
export function createHeadReader(
  rpc: string | RpcFailover,
  client: ChainClient,
  timeoutMs = 10_000,
): HeadReader {
  if (typeof rpc === 'string' && /^https?:\/\//i.test(rpc)) return leanHeadReader(rpc, timeoutMs);
  return () => client.getBlockNumber({ cacheTime: 0 });
}

function leanHeadReader(rpcUrl: string, timeoutMs: number): HeadReader {
  const url = new URL(rpcUrl);
  const secure = url.protocol === 'https:';
  const transport = secure ? https : http;
  // Two sockets: the content watch's poll and the relayer's head watch may ask at the same moment.
  const agent = new transport.Agent({ keepAlive: true, maxSockets: 2 });
  const shown = `${url.protocol}//${url.host}`;
  let id = 0;
  const read = (): Promise<bigint> =>
    ask().catch((err: unknown) => {
      // A kept-alive socket the node closed while it idled fails the request sent on it: ask again once on a
      // new one (Node's documented pattern; `eth_blockNumber` is idempotent).
      if ((err as { reusedSocket?: boolean }).reusedSocket) return ask();
      throw err;
    });
  const ask = (): Promise<bigint> =>
    new Promise<bigint>((resolve, reject) => {
      const body = `{"jsonrpc":"2.0","id":${++id},"method":"eth_blockNumber","params":[]}`;
      const fail = (details: string, status?: number) =>
        reject(new HttpRequestError({ url: shown, details, ...(status !== undefined ? { status } : {}) }));
      const request = transport.request(
        url,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_ANSWER_BYTES) {
              response.destroy();
              fail(`answer larger than ${MAX_ANSWER_BYTES} bytes`);
            } else chunks.push(chunk);
          });
          response.on('error', (err) => fail(err.message));
          response.on('end', () => {
            if (size > MAX_ANSWER_BYTES) return;
            const status = response.statusCode ?? 0;
            if (status < 200 || status >= 300) return fail(`HTTP ${status}`, status);
            const head = blockNumberOf(Buffer.concat(chunks).toString('utf8'));
            if (head === undefined) return fail('not an eth_blockNumber answer');
            resolve(head);
          });
        },
      );
      request.setTimeout(timeoutMs, () => {
        request.destroy();
        reject(new TimeoutError({ body: { method: 'eth_blockNumber' }, url: shown }));
      });
      request.on('error', (err: NodeJS.ErrnoException) => {
        const error = new HttpRequestError({ url: shown, details: err.message, cause: err });
        if (request.reusedSocket && err.code === 'ECONNRESET') Object.assign(error, { reusedSocket: true });
        reject(error);
      });
      request.end(body);
    });
  return read;
}

/** The block number of a JSON-RPC answer, or undefined for an error answer or anything else. */
export function blockNumberOf(text: string): bigint | undefined {
  try {
    const answer = JSON.parse(text) as { result?: unknown };
    return typeof answer.result === 'string' && /^0x[0-9a-fA-F]{1,64}$/.test(answer.result)
      ? BigInt(answer.result)
      : undefined;
  } catch {
    return undefined;
  }
}
