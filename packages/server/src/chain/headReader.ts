import { HttpRequestError, TimeoutError } from 'viem';
import { type ChainClient, RPC_TIMEOUT_MS } from './chainClient.js';
import { DirectRpc, DirectRpcError, SMALL_ANSWER_BYTES } from './directRpc.js';
import { redact, type RpcFailover } from './rpcFailover.js';

/** The chain's latest block number, asked of the node now (never cached). */
export type HeadReader = () => Promise<bigint>;

/**
 * The head poll's reader. The content watch asks for the head ten times a second for as long as the process
 * runs, and through viem's HTTP transport (WHATWG `fetch`: a `Request`, web streams, an abort timer) each ask
 * cost 0.6–1.1 ms of CPU and its garbage: half of an idle server's CPU (docs/performance-http.md, round 7).
 * On one plain http(s) endpoint the same JSON-RPC call goes over a kept-alive connection of undici's
 * (`DirectRpc`, ≈ 0.1–0.25 ms). Several endpoints (CHAIN_RPC_URLS) and WebSocket endpoints keep viem's client,
 * whose failover and subscriptions the lean reader does not repeat.
 *
 * Failures are viem's transport errors (`HttpRequestError`, `TimeoutError`), so the gateway translates them as
 * it does every other call's: `chain_unavailable`. Their text names the endpoint by scheme and host only (an
 * API key may sit in the path or the userinfo).
 */
export function createHeadReader(
  rpc: string | RpcFailover,
  client: ChainClient,
  timeoutMs = RPC_TIMEOUT_MS,
): HeadReader {
  if (typeof rpc === 'string' && /^https?:\/\//i.test(rpc)) return leanHeadReader(rpc, timeoutMs);
  return () => client.getBlockNumber({ cacheTime: 0 });
}

function leanHeadReader(rpcUrl: string, timeoutMs: number): HeadReader {
  // Two connections: the content watch's poll and the relayer's head watch may ask at the same moment.
  const node = new DirectRpc(rpcUrl, { timeoutMs, maxAnswerBytes: SMALL_ANSWER_BYTES, maxSockets: 2 });
  const shown = redact(rpcUrl);
  const ask = async (): Promise<bigint> => {
    // `read`: asked again on a new connection if the node dropped the kept-alive one (`eth_blockNumber` is
    // idempotent).
    const head = blockNumberOf(await node.read('eth_blockNumber', []));
    if (head === undefined) throw new DirectRpcError('not an eth_blockNumber answer');
    return head;
  };
  return () => ask().catch((err: unknown) => Promise.reject(asViemError(err, shown)));
}

function asViemError(err: unknown, shown: string): Error {
  if (!(err instanceof DirectRpcError)) return err as Error;
  if (err.timedOut) return new TimeoutError({ body: { method: 'eth_blockNumber' }, url: shown });
  return new HttpRequestError({
    url: shown,
    details: err.message,
    ...(err.status !== undefined ? { status: err.status } : {}),
    cause: err,
  });
}

/** The block number of a JSON-RPC `result`, or undefined for anything that is not one. */
export function blockNumberOf(result: unknown): bigint | undefined {
  return typeof result === 'string' && /^0x[0-9a-fA-F]{1,64}$/.test(result) ? BigInt(result) : undefined;
}
