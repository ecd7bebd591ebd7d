import { createTransport, type EIP1193RequestFn, http, type Transport, webSocket } from 'viem';
import { isTransportError } from './chainErrors.js';

/**
 * Methods that must not be repeated on another endpoint after one timed out: the first node may have
 * acted on them. A signed transaction (`eth_sendRawTransaction`) is not among them: sending it again is
 * idempotent (same hash, the nonce is in the signature), so it fails over like a read. A node-signed send
 * allocates a nonce on the node, and the anvil/evm controls change the node itself.
 */
const NOT_REPEATABLE = /^(eth_sendTransaction|eth_sign|personal_|anvil_|evm_|hardhat_)/;

/** How long an endpoint that failed is skipped before a background probe may bring it back. */
const DOWN_FOR_MS = 15_000;
/** The probe of a skipped endpoint (`eth_blockNumber`) and of `/readyz`: a hanging node is down. */
const PROBE_TIMEOUT_MS = 3_000;

export interface RpcEndpointStatus {
  /** `rpc#N host` (1-based, the order of CHAIN_RPC_URLS): never the path or userinfo, which may hold a key. */
  name: string;
  up: boolean;
  /** Why it is down (`timed out`, `HTTP 503`, `refused`). */
  reason?: string;
}

interface Endpoint {
  name: string;
  transport: Transport;
  request?: ReturnType<Transport>['request'];
  probeRequest?: ReturnType<Transport>['request'];
  downUntil: number;
  reason: string | undefined;
  probing: boolean;
}

/**
 * Several RPC endpoints of one chain (CHAIN_RPC_URLS), tried in their configured order. An endpoint that
 * times out, refuses or answers 5xx is skipped for a while and the request goes to the next; an answer of
 * the node (a revert, a JSON-RPC error) is the answer and is not tried elsewhere. A skipped endpoint comes
 * back once a background probe answers, so live requests never wait on a node known to hang.
 */
export class RpcFailover {
  readonly #endpoints: Endpoint[];
  readonly #onChange: (status: RpcEndpointStatus) => void;

  constructor(
    readonly urls: string[],
    timeoutMs: number,
    onChange: (status: RpcEndpointStatus) => void = () => {},
  ) {
    this.#onChange = onChange;
    this.#endpoints = urls.map((url, i) => ({
      name: `rpc#${i + 1} ${hostOf(url)}`,
      transport: endpointTransport(url, timeoutMs),
      downUntil: 0,
      reason: undefined,
      probing: false,
    }));
    // Probes get their own short timeout, unbatched.
    for (const [i, endpoint] of this.#endpoints.entries()) {
      endpoint.probeRequest = endpointTransport(urls[i]!, PROBE_TIMEOUT_MS, false)({ retryCount: 0 }).request;
    }
  }

  /** The viem transport of the failover. */
  transport(): Transport {
    return ({ chain, timeout }) => {
      for (const endpoint of this.#endpoints) {
        endpoint.request = endpoint.transport({
          chain,
          retryCount: 0,
          ...(timeout ? { timeout } : {}),
        }).request;
      }
      return createTransport({
        key: 'failover',
        name: 'RPC failover',
        type: 'failover',
        retryCount: 0,
        request: (({ method, params }) => this.#request(method as string, params)) as EIP1193RequestFn,
      });
    };
  }

  /** Each endpoint as last seen by live requests. */
  status(): RpcEndpointStatus[] {
    return this.#endpoints.map((e) => statusOf(e));
  }

  /** Asks every endpoint now (`/readyz`), updating what live requests skip. */
  async probeAll(): Promise<RpcEndpointStatus[]> {
    await Promise.all(this.#endpoints.map((e) => this.#probe(e)));
    return this.status();
  }

  async #request(method: string, params: unknown): Promise<unknown> {
    const now = Date.now();
    // Endpoints up first (configured order), then the skipped ones: if all are down, try them anyway.
    const order = [...this.#endpoints.filter((e) => !e.reason), ...this.#endpoints.filter((e) => e.reason)];
    for (const e of this.#endpoints) {
      if (e.reason && e.downUntil <= now) void this.#probe(e);
    }
    let last: unknown;
    for (const endpoint of order) {
      try {
        const answer = await endpoint.request!({ method, params });
        this.#markUp(endpoint);
        return answer;
      } catch (err) {
        if (!isTransportError(err)) throw err;
        this.#markDown(endpoint, err);
        if (NOT_REPEATABLE.test(method)) throw err;
        last = err;
      }
    }
    throw last;
  }

  async #probe(endpoint: Endpoint): Promise<void> {
    if (endpoint.probing) return;
    endpoint.probing = true;
    try {
      await endpoint.probeRequest!({ method: 'eth_blockNumber' });
      this.#markUp(endpoint);
    } catch (err) {
      this.#markDown(endpoint, err);
    } finally {
      endpoint.probing = false;
    }
  }

  #markUp(endpoint: Endpoint): void {
    if (!endpoint.reason) return;
    endpoint.reason = undefined;
    endpoint.downUntil = 0;
    this.#onChange(statusOf(endpoint));
  }

  #markDown(endpoint: Endpoint, err: unknown): void {
    const wasUp = !endpoint.reason;
    endpoint.reason = reasonOf(err);
    endpoint.downUntil = Date.now() + DOWN_FOR_MS;
    if (wasUp) this.#onChange(statusOf(endpoint));
  }
}

function endpointTransport(url: string, timeout: number, batch = true): Transport {
  return /^wss?:/.test(url)
    ? webSocket(url, { retryCount: 0, timeout })
    : http(url, { retryCount: 0, timeout, ...(batch ? { batch: { batchSize: 200, wait: 0 } } : {}) });
}

function statusOf(endpoint: Endpoint): RpcEndpointStatus {
  return endpoint.reason
    ? { name: endpoint.name, up: false, reason: endpoint.reason }
    : { name: endpoint.name, up: true };
}

function reasonOf(err: unknown): string {
  const chain: unknown[] = [];
  for (let e: unknown = err; e && chain.length < 8; e = (e as { cause?: unknown }).cause) chain.push(e);
  for (const e of chain) {
    const name = (e as { name?: unknown }).name;
    const status = (e as { status?: unknown }).status;
    if (name === 'TimeoutError') return 'timed out';
    if (typeof status === 'number') return `HTTP ${status}`;
    const code = (e as { code?: unknown }).code;
    if (code === 'ECONNREFUSED') return 'refused';
  }
  return isTransportError(err) ? 'unreachable' : 'error';
}

/** An RPC URL as scheme and host only: providers put API keys in the path or the userinfo. */
export function redact(rpcUrl: string): string {
  try {
    const url = new URL(rpcUrl);
    return `${url.protocol}//${url.host}`;
  } catch {
    return 'the configured URL';
  }
}

/** `host:port` of an RPC URL: providers put API keys in the path or the userinfo. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'invalid url';
  }
}
