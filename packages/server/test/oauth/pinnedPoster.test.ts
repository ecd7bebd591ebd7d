import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PinnedPoster } from '../../src/services/oauth/pinnedPoster.js';

/** An app backend whose answer each path chooses; it counts what it was sent. */
let server: http.Server;
let port: number;
const received: { path: string; host: string | undefined; body: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ path: req.url ?? '', host: req.headers.host, body });
      if (req.url === '/ok') return void res.writeHead(200).end('{"approve":true}');
      if (req.url === '/large') return void res.writeHead(200).end('x'.repeat(10_000));
      // A refusal whose body never ends: its status is the answer.
      if (req.url === '/refuse-stalling')
        return void res.writeHead(403, { 'content-length': '100' }).write('{');
      // Never answers.
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** `app.test` resolves nowhere: a POST can only arrive through the pinned loopback address. */
const pinned = [{ address: '127.0.0.1', family: 4 as const }];
const url = (path: string) => new URL(`http://app.test:${port}${path}`);

describe('PinnedPoster', () => {
  it('posts to the pinned address under the URL host, without a node:http client request', async () => {
    const clientRequests: unknown[] = [];
    const onStart = (message: unknown) => clientRequests.push(message);
    subscribe('http.client.request.start', onStart);
    const poster = new PinnedPoster();
    try {
      const answer = await poster.post(url('/ok'), '{"a":1}', {
        headers: { 'content-type': 'application/json' },
        addresses: pinned,
        timeoutMs: 5_000,
        maxAnswerBytes: 100,
      });
      expect(answer).toEqual({ kind: 'answered', status: 200, body: Buffer.from('{"approve":true}') });
      expect(received.at(-1)).toEqual({ path: '/ok', host: `app.test:${port}`, body: '{"a":1}' });
    } finally {
      await poster.close();
      unsubscribe('http.client.request.start', onStart);
    }
    expect(clientRequests).toEqual([]);
  });

  it('bounds the body it reads, and answers a refusal at its status even when its body never ends', async () => {
    const poster = new PinnedPoster();
    try {
      const options = { headers: {}, addresses: pinned, timeoutMs: 2_000, maxAnswerBytes: 4_096 };
      expect(await poster.post(url('/large'), '{}', options)).toEqual({ kind: 'too_large', status: 200 });
      const started = Date.now();
      expect(await poster.post(url('/refuse-stalling'), '{}', options)).toEqual({
        kind: 'answered',
        status: 403,
      });
      expect(Date.now() - started).toBeLessThan(1_500);
    } finally {
      await poster.close();
    }
  });

  it('gives up after its timeout, and close() ends what is still on the wire', async () => {
    const poster = new PinnedPoster();
    const options = { headers: {}, addresses: pinned, timeoutMs: 200 };
    expect(await poster.post(url('/silent'), '{}', options)).toEqual({
      kind: 'timeout',
      error: 'no answer within 200 ms',
    });
    const waiting = poster.post(url('/silent'), '{}', { ...options, timeoutMs: 60_000 });
    const started = Date.now();
    await poster.close();
    expect(await waiting).toEqual({ kind: 'unreachable', error: 'sender closed' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await poster.post(url('/ok'), '{}', options)).toEqual({
      kind: 'unreachable',
      error: 'sender closed',
    });
  });
});
