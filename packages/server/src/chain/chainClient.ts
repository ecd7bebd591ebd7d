import {
  type Chain,
  createPublicClient,
  defineChain,
  http,
  type PublicClient,
  type Transport,
  webSocket,
} from 'viem';
import { activeSpan, inSpan, SpanKind } from '../observability/spans.js';
import type { RpcFailover } from './rpcFailover.js';

export type ChainClient = PublicClient<Transport, Chain>;

/** How long any JSON-RPC call waits for the node before it is `chain_unavailable`. */
export const RPC_TIMEOUT_MS = 10_000;

export interface ChainClientOptions {
  /** Per-request timeout; a node that does not answer in time is `chain_unavailable`. */
  timeoutMs?: number;
}

/**
 * The one viem client of a node. No transport retries: the gateway turns a silent node into
 * `chain_unavailable` at once, and the operation submitter has its own resend loop.
 */
export function createChainClient(
  rpc: string | RpcFailover,
  chainId: number,
  options: ChainClientOptions = {},
): ChainClient {
  const timeout = options.timeoutMs ?? RPC_TIMEOUT_MS;
  const rpcUrl = typeof rpc === 'string' ? rpc : rpc.urls[0]!;
  // Several endpoints (CHAIN_RPC_URLS): the failover transport; one: the plain transport as before.
  const transport =
    typeof rpc !== 'string'
      ? rpc.transport()
      : /^wss?:/.test(rpcUrl)
        ? webSocket(rpcUrl, { retryCount: 0, timeout })
        : http(rpcUrl, { retryCount: 0, timeout, batch: { batchSize: 200, wait: 0 } });
  return createPublicClient({
    chain: chainDefinition(chainId, rpcUrl),
    transport: tracedTransport(transport),
    // Results of reads must be fresh: nonces and code change with every bundle.
    cacheTime: 0,
    pollingInterval: 250,
  });
}

/**
 * Each JSON-RPC call as a CLIENT span (`rpc.method`) under the active span (docs/operations.md, "Traces"):
 * a request's reads and a bundle's sends. Calls outside any span (the head poll, the journal's loops
 * between their own spans) are not traced: each would be a trace of one span.
 */
function tracedTransport(transport: Transport): Transport {
  return ((parameters) => {
    const made = transport(parameters);
    const request = made.request;
    const traced = ((args, options) => {
      if (!activeSpan()) return request(args, options);
      return inSpan(
        args.method,
        { kind: SpanKind.CLIENT, attributes: { 'rpc.system': 'jsonrpc', 'rpc.method': args.method } },
        () => request(args, options),
      );
    }) as typeof request;
    return { ...made, request: traced };
  }) as Transport;
}

/** Reads the chain id of the node at `rpcUrl` (a silent node throws a transport error). */
export async function readChainId(rpc: string | RpcFailover, timeoutMs = RPC_TIMEOUT_MS): Promise<number> {
  const client = createChainClient(rpc, 0, { timeoutMs });
  return client.getChainId();
}

function chainDefinition(chainId: number, rpcUrl: string): Chain {
  return defineChain({
    id: chainId,
    name: chainId === 31337 ? 'dauth embedded chain' : `chain ${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}
