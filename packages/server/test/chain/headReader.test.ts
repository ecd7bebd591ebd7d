import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AnvilInstance, startAnvil } from '@dauth/contracts';
import { createPublicClient, http as viemHttp } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { translateChainError } from '../../src/chain/chainErrors.js';
import type { ChainClient } from '../../src/chain/chainClient.js';
import { blockNumberOf, createHeadReader } from '../../src/chain/headReader.js';
import { AppError } from '../../src/errors.js';
import { type FaultyProxy, startProxy } from './faults/faultNode.js';

/** What a caller of the gateway sees for a failed read: the error `atGateway` turns it into. */
async function gatewayError(read: () => Promise<bigint>): Promise<unknown> {
  try {
    await read();
  } catch (err) {
    return translateChainError(err);
  }
  throw new Error('the read did not fail');
}

/** A loopback server answering every request with `answer` and recording what it was sent. */
async function startServer(answer: (res: http.ServerResponse) => void) {
  const seen: { authorization: string | undefined; body: string }[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ authorization: req.headers.authorization, body });
      answer(res);
    });
  });
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    seen,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const unusedClient = {} as ChainClient;

describe('the head poll over a kept-alive node:http connection (real anvil)', () => {
  let node: AnvilInstance;
  let proxy: FaultyProxy;
  let viem: ChainClient;

  beforeAll(async () => {
    node = await startAnvil({ chainId: 1337 });
    proxy = await startProxy(node.rpcUrl);
    viem = createPublicClient({ transport: viemHttp(node.rpcUrl) }) as unknown as ChainClient;
  });
  afterAll(async () => {
    await proxy?.close();
    await node?.stop();
  });

  it('reads the head viem reads, and follows new blocks', async () => {
    const read = createHeadReader(node.rpcUrl, viem);
    const before = await viem.getBlockNumber({ cacheTime: 0 });
    expect(await read()).toBe(before);
    await viem.request({ method: 'anvil_mine' as never, params: ['0x3'] as never });
    expect(await read()).toBe(before + 3n);
    // Concurrent asks (the content watch and the relayer's head watch at once) each get the head.
    expect(await Promise.all([read(), read(), read()])).toEqual([before + 3n, before + 3n, before + 3n]);
  });

  it('a node answering 503 is chain_unavailable', async () => {
    const read = createHeadReader(proxy.url, unusedClient);
    proxy.mode = 'error503';
    try {
      const err = await gatewayError(read);
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ status: 503, code: 'chain_unavailable' });
    } finally {
      proxy.mode = 'forward';
    }
    expect(await read()).toBe(await viem.getBlockNumber({ cacheTime: 0 }));
  });

  it('a node that never answers is chain_unavailable after the timeout', async () => {
    const read = createHeadReader(proxy.url, unusedClient, 300);
    proxy.mode = 'hang';
    const started = Date.now();
    try {
      expect(await gatewayError(read)).toMatchObject({ status: 503, code: 'chain_unavailable' });
    } finally {
      proxy.mode = 'forward';
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('the head reader against hostile or broken endpoints', () => {
  // The reader keeps two connections (the content watch and the relayer's head watch may ask at once); undici's
  // pool opens the second as soon as the first is busy, so twenty polls use two kept-alive connections, not twenty.
  it('keeps its two connections alive across sequential polls, and sends the URL credentials as Basic auth', async () => {
    const server = await startServer((res) => {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end('{"jsonrpc":"2.0","id":1,"result":"0x2a"}');
    });
    try {
      const read = createHeadReader(`http://alice:s3cret@127.0.0.1:${server.port}/`, unusedClient);
      for (let i = 0; i < 20; i++) expect(await read()).toBe(42n);
      expect(server.connections()).toBeLessThanOrEqual(2);
      for (const { authorization } of server.seen)
        expect(authorization).toBe(`Basic ${Buffer.from('alice:s3cret').toString('base64')}`);
      expect(server.seen[0]!.authorization).toBe(`Basic ${Buffer.from('alice:s3cret').toString('base64')}`);
      expect(JSON.parse(server.seen[0]!.body)).toMatchObject({ method: 'eth_blockNumber', params: [] });
    } finally {
      await server.close();
    }
  });

  it('a JSON-RPC error, a non-JSON or malformed answer or an oversized one is chain_unavailable, and names no secret', async () => {
    const answers: ((res: http.ServerResponse) => void)[] = [
      (res) => res.end('{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"rate limited"}}'),
      (res) => res.end('<html>gateway</html>'),
      (res) => res.end('{"jsonrpc":"2.0","id":1,"result":"latest"}'),
      (res) => res.end('null'),
      (res) => res.end(`{"result":"0x1","pad":"${'x'.repeat(100_000)}"}`),
    ];
    for (const answer of answers) {
      const server = await startServer(answer);
      try {
        const read = createHeadReader(
          `http://user:pa55word@127.0.0.1:${server.port}/v2/api-key-123`,
          unusedClient,
        );
        let raw: unknown;
        await read().catch((err: unknown) => (raw = err));
        expect(translateChainError(raw)).toMatchObject({ status: 503, code: 'chain_unavailable' });
        const text = `${(raw as Error).message} ${JSON.stringify(raw)}`;
        expect(text).not.toContain('pa55word');
        expect(text).not.toContain('api-key-123');
      } finally {
        await server.close();
      }
    }
  });

  it('asks again on a new connection when the node drops a kept-alive one', async () => {
    // A node (or a proxy before it) that closes an idle connection just as the next request goes out.
    const served = new WeakMap<object, number>();
    const server = http.createServer((req, res) => {
      const n = (served.get(req.socket) ?? 0) + 1;
      served.set(req.socket, n);
      req.resume();
      req.on('end', () => {
        if (n > 1) req.socket.destroy();
        else res.writeHead(200, { 'content-type': 'application/json' }).end('{"result":"0x7"}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const read = createHeadReader(
        `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        unusedClient,
      );
      expect(await read()).toBe(7n);
      expect(await read()).toBe(7n);
      expect(await read()).toBe(7n);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('a closed port is chain_unavailable', async () => {
    const server = await startServer((res) => res.end());
    const port = server.port;
    await server.close();
    const read = createHeadReader(`http://127.0.0.1:${port}`, unusedClient);
    expect(await gatewayError(read)).toMatchObject({ status: 503, code: 'chain_unavailable' });
  });

  it('a WebSocket endpoint keeps the viem client', async () => {
    let asked = 0;
    const client = {
      getBlockNumber: async () => {
        asked += 1;
        return 7n;
      },
    } as unknown as ChainClient;
    expect(await createHeadReader('ws://127.0.0.1:1', client)()).toBe(7n);
    expect(asked).toBe(1);
  });

  it('reads only well-formed block numbers', () => {
    expect(blockNumberOf('0x10')).toBe(16n);
    expect(blockNumberOf('16')).toBeUndefined();
    expect(blockNumberOf('0x')).toBeUndefined();
    expect(blockNumberOf(`0x${'f'.repeat(65)}`)).toBeUndefined();
    expect(blockNumberOf(16)).toBeUndefined();
    expect(blockNumberOf(undefined)).toBeUndefined();
  });
});
