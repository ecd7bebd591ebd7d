import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AnvilInstance, entryPointAbi, startAnvil } from '@dauth/contracts';
import {
  type Address,
  createPublicClient,
  createWalletClient,
  type Hash,
  type Hex,
  http as httpTransport,
  parseAbiItem,
  parseEther,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_DEV_KEYS } from '../../../src/chain/devAccounts.js';
import type { ChainServices } from '../../../src/composition/chain.js';

/**
 * An external anvil for the fault tests: started with automine (a deployment in seconds), then switched to
 * a block every `blockTime` seconds, the pace of a public L2. Its cheat methods inject the faults.
 */
export interface FaultNode extends NodeClient {
  anvil: AnvilInstance;
  stop(): Promise<void>;
}

/** What the fault tests do to any anvil by its URL (a child process that was handed only the URL included). */
export interface NodeClient {
  rpcUrl: string;
  reader: ReturnType<typeof createPublicClient>;
  rpc(method: string, params?: unknown[]): Promise<unknown>;
  /** Funds the service's deployer and relayer keys (100 ETH each). */
  fund(...addresses: Address[]): Promise<void>;
  /** The paymaster's EntryPoint deposit (sponsorship needs it on an external chain). */
  depositForPaymaster(chain: ChainServices): Promise<void>;
  /** Switches from automine to a block every `seconds`. */
  intervalMining(seconds: number): Promise<void>;
  /** The pending transactions of `from` in the node's pool. */
  pending(from: Address): Promise<PoolTransaction[]>;
  /** Waits until `from` has a transaction in the pool (polling), and returns it. */
  waitForPending(from: Address, timeoutMs?: number): Promise<PoolTransaction>;
}

export interface PoolTransaction {
  hash: Hash;
  nonce: number;
  maxFeePerGas: bigint;
  input: Hex;
}

export async function startFaultNode(
  options: { port?: number; statePath?: string; args?: string[] } = {},
): Promise<FaultNode> {
  const anvil = await startAnvil({
    ...(options.port ? { port: options.port } : {}),
    ...(options.statePath ? { statePath: options.statePath } : {}),
    ...(options.args ? { args: options.args } : {}),
  });
  return faultNodeOf(anvil);
}

export function faultNodeOf(anvil: AnvilInstance): FaultNode {
  return { ...nodeClientOf(anvil.rpcUrl), anvil, stop: () => anvil.stop() };
}

export function nodeClientOf(rpcUrl: string): NodeClient {
  const reader = createPublicClient({ transport: httpTransport(rpcUrl) });
  const bank = createWalletClient({
    account: privateKeyToAccount(ANVIL_DEV_KEYS[0]),
    transport: httpTransport(rpcUrl),
  });
  let id = 0;
  const rpc = async (method: string, params: unknown[] = []) => {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    });
    const answer = (await response.json()) as { result?: unknown; error?: { message: string } };
    if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
    return answer.result;
  };
  const pending = async (from: Address): Promise<PoolTransaction[]> => {
    type Pool = Record<
      string,
      Record<string, { hash: Hash; nonce: string; maxFeePerGas?: string; gasPrice?: string; input: Hex }>
    >;
    const content = (await rpc('txpool_content')) as { pending: Pool; queued?: Pool };
    // A transaction the base fee has priced out waits in `queued` (anvil moves it there), still in the pool.
    const own = [content.pending, content.queued ?? {}].flatMap((pool) =>
      Object.entries(pool)
        .filter(([a]) => a.toLowerCase() === from.toLowerCase())
        .flatMap(([, byNonce]) => Object.values(byNonce)),
    );
    return own.map((t) => ({
      hash: t.hash,
      nonce: Number(t.nonce),
      maxFeePerGas: BigInt(t.maxFeePerGas ?? t.gasPrice ?? 0),
      input: t.input,
    }));
  };
  return {
    rpcUrl,
    reader,
    rpc,
    pending,
    fund: async (...addresses) => {
      for (const to of addresses) {
        const hash = await bank.sendTransaction({ chain: null, to, value: parseEther('100') });
        await reader.waitForTransactionReceipt({ hash, pollingInterval: 100 });
      }
    },
    depositForPaymaster: async (chain) => {
      const hash = await bank.writeContract({
        chain: null,
        address: chain.info.contracts.entry_point,
        abi: entryPointAbi,
        functionName: 'depositTo',
        args: [chain.info.contracts.paymaster],
        value: parseEther('10'),
      });
      await reader.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    },
    intervalMining: async (seconds) => {
      await rpc('evm_setAutomine', [false]);
      await rpc('evm_setIntervalMining', [seconds]);
    },
    waitForPending: async (from, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const [first] = await pending(from);
        if (first) return first;
        if (Date.now() > deadline) throw new Error(`no pending transaction of ${from} in time`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}

export const addressOf = (key: `0x${string}`) => privateKeyToAccount(key).address;

const userOperationEvent = parseAbiItem(
  'event UserOperationEvent(bytes32 indexed userOpHash, address indexed sender, address indexed paymaster, uint256 nonce, bool success, uint256 actualGasCost, uint256 actualGasUsed)',
);

/** How many times the final chain holds the operation `userOpHash` (exactly once is the goal). */
export async function operationCount(
  node: FaultNode,
  entryPoint: Address,
  userOpHash: Hash,
): Promise<number> {
  const logs = await node.reader.getLogs({
    address: entryPoint,
    event: userOperationEvent,
    args: { userOpHash },
    fromBlock: 0n,
    toBlock: 'latest',
  });
  return logs.length;
}

/** Waits until `check` holds (polling every 200 ms), or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

type Mode = 'forward' | 'hang' | 'error503';

/** A loopback JSON-RPC proxy in front of the node that can hang or answer 503 on command (a flaky provider). */
export interface FaultyProxy {
  url: string;
  mode: Mode;
  /** Requests passed on to the node (not held, not refused). */
  forwarded: number;
  /** Forwarded requests the node did not answer (each answered 502), and the last one's error. */
  upstreamFailures: number;
  lastUpstreamError?: string;
  close(): Promise<void>;
}

export async function startProxy(target: string): Promise<FaultyProxy> {
  const held = new Set<http.ServerResponse>();
  const proxy: FaultyProxy = {
    url: '',
    mode: 'forward',
    forwarded: 0,
    upstreamFailures: 0,
    close: async () => {},
  };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      if (proxy.mode === 'hang') {
        held.add(response);
        return;
      }
      if (proxy.mode === 'error503') {
        response.writeHead(503, { 'content-type': 'text/plain' }).end('upstream unavailable');
        return;
      }
      proxy.forwarded += 1;
      fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: Buffer.concat(chunks),
      })
        .then(async (answer) => {
          // The body first: a node that breaks off mid-answer is a 502, not a second set of headers.
          const text = await answer.text();
          response.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
        })
        .catch((err: unknown) => {
          proxy.upstreamFailures += 1;
          const cause = (err as { cause?: { code?: string; message?: string } }).cause;
          proxy.lastUpstreamError = `${(err as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ''}`;
          if (!response.headersSent) response.writeHead(502);
          response.end();
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = async () => {
    for (const response of held) response.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return proxy;
}
