import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DirectRpc, DirectRpcError } from '../../src/chain/directRpc.js';

/**
 * A JSON-RPC endpoint that answers `eth_chainId` and counts what it was sent; on a connection's second request
 * it closes the connection instead of answering when `dropSecond` is set (a node or proxy closing a kept-alive
 * connection just as the next request goes out).
 */
let server: http.Server;
let url: string;
let received: string[] = [];
let dropSecond = false;

beforeAll(async () => {
  const perSocket = new WeakMap<object, number>();
  server = http.createServer((req, res) => {
    const n = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, n);
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const parsed = JSON.parse(body) as { id: number; method: string } | { id: number; method: string }[];
      const calls = Array.isArray(parsed) ? parsed : [parsed];
      received.push(...calls.map((c) => c.method));
      if (dropSecond && n > 1) return void req.socket.destroy();
      const answers = calls.map(({ id }) => ({ jsonrpc: '2.0', id, result: '0x539' }));
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(Array.isArray(parsed) ? answers : answers[0]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('DirectRpc', () => {
  // The reason it is not node:http (docs/performance-http.md, round 17): a node:http client in the process
  // shares Node's HTTP classes with the server, whose every answer then runs slower. Node announces each of its
  // client requests on this channel; DirectRpc must never make one.
  it('calls the node without a node:http client request', async () => {
    const clientRequests: unknown[] = [];
    const onStart = (message: unknown) => clientRequests.push(message);
    subscribe('http.client.request.start', onStart);
    const node = new DirectRpc(url);
    try {
      expect(await node.call('eth_chainId', [])).toBe('0x539');
      expect(await node.read('eth_chainId', [])).toBe('0x539');
      expect(await node.batch([{ method: 'eth_chainId', params: [] }])).toEqual([{ result: '0x539' }]);
    } finally {
      node.close();
      unsubscribe('http.client.request.start', onStart);
    }
    expect(clientRequests).toEqual([]);
  });

  it('sends a read again when its connection closes before the answer, never a call', async () => {
    dropSecond = true;
    try {
      const reader = new DirectRpc(url);
      received = [];
      expect(await reader.read('eth_chainId', [])).toBe('0x539');
      // The second request goes out on the kept-alive connection, which closes under it: asked again anew.
      expect(await reader.read('eth_chainId', [])).toBe('0x539');
      expect(received).toEqual(['eth_chainId', 'eth_chainId', 'eth_chainId']);
      reader.close();

      const caller = new DirectRpc(url);
      received = [];
      expect(await caller.call('anvil_mine', [])).toBe('0x539');
      const lost = await caller.call('anvil_mine', []).catch((err: unknown) => err);
      expect(lost).toBeInstanceOf(DirectRpcError);
      expect(lost).toMatchObject({ connectionLost: true, timedOut: false });
      // Not sent twice: the node may have mined already.
      expect(received).toEqual(['anvil_mine', 'anvil_mine']);
      caller.close();
    } finally {
      dropSecond = false;
    }
  });

  it('a refused connection is not a lost one (the watchdog tells a dead node by ECONNREFUSED)', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const node = new DirectRpc(`http://127.0.0.1:${port}`, { timeoutMs: 1_000 });
    const err = await node.read('eth_chainId', []).catch((e: unknown) => e);
    node.close();
    expect(err).toMatchObject({ connectionLost: false, timedOut: false, cause: { code: 'ECONNREFUSED' } });
  });
});
