import express from 'express';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DauthClient } from '../src/index.js';
import type { CallbackOutcome } from '../src/index.js';
import { expressCallbackHandler } from '../src/express.js';
import { fastifyCallbackHandler } from '../src/fastify.js';
import { serve } from './support/appServer.js';
import type { RunningServer } from './support/appServer.js';
import { FakeDauth } from './support/fakeDauth.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** Records what reaches handleCallback. */
function recorder(): { bodies: unknown[]; handleCallback(body: unknown): CallbackOutcome } {
  const bodies: unknown[] = [];
  return {
    bodies,
    handleCallback: (body) => {
      bodies.push(body);
      return 'ignored';
    },
  };
}

async function post(url: string, body: string, contentType: string): Promise<number> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body });
  return response.status;
}

async function startFastify(register: (app: FastifyInstance) => void): Promise<RunningServer> {
  const app = Fastify();
  register(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    close: () => app.close(),
  };
}

describe('expressCallbackHandler', () => {
  it('completes a slot-info call end to end', async () => {
    const app = express();
    // The handler needs the client and the client needs the server's URL; the closure resolves
    // `client` at request time, after it exists.
    app.post('/dauth/callback', (request, response, next) =>
      expressCallbackHandler(client)(request, response, next),
    );
    const server = await serve(app);
    const dauth = await FakeDauth.start({ redirectUri: `${server.url}/dauth/callback` });
    const client = new DauthClient({
      clientId: 'client-1',
      clientSecret: 'secret-1',
      redirectUri: `${server.url}/dauth/callback`,
      authServerUrl: dauth.url,
    });
    closers.push(server.close, dauth.close.bind(dauth), client.shutdown.bind(client));

    const slot = await client.getSlotInfo({ jwt: 'user-jwt' });
    expect(slot.id.value).toBe('1234567890123456789');
    expect(dauth.callbackStatuses).toEqual([200]);
  });

  it('reads the body itself without express.json, and uses a parsed body with it', async () => {
    const bare = recorder();
    const parsed = recorder();
    const app = express();
    app.post('/bare', expressCallbackHandler(bare));
    app.post('/parsed', express.json(), expressCallbackHandler(parsed));
    const server = await serve(app);
    closers.push(server.close);

    const body = JSON.stringify({ success: 1, code: 'c', state: 's' });
    expect(await post(`${server.url}/bare`, body, 'application/json')).toBe(200);
    expect(await post(`${server.url}/parsed`, body, 'application/json')).toBe(200);
    expect(
      await post(`${server.url}/bare`, 'success=1&code=f&state=t', 'application/x-www-form-urlencoded'),
    ).toBe(200);
    expect(await post(`${server.url}/bare?success=1&code=q&state=u`, '', 'text/plain')).toBe(200);
    expect(bare.bodies).toEqual([
      { success: 1, code: 'c', state: 's' },
      { success: '1', code: 'f', state: 't' },
      { success: '1', code: 'q', state: 'u' },
    ]);
    expect(parsed.bodies).toEqual([{ success: 1, code: 'c', state: 's' }]);
  });

  it('refuses an oversized body with 413 and answers 200 to garbage', async () => {
    const receiver = recorder();
    const app = express();
    app.post('/cb', expressCallbackHandler(receiver));
    const server = await serve(app);
    closers.push(server.close);

    expect(await post(`${server.url}/cb`, 'x'.repeat(70_000), 'application/json')).toBe(413);
    expect(await post(`${server.url}/cb`, '{not json', 'application/json')).toBe(200);
    expect(receiver.bodies).toEqual([{}]);
  });
});

describe('fastifyCallbackHandler', () => {
  it('completes a slot-info call end to end', async () => {
    const server = await startFastify((app) =>
      app.post('/dauth/callback', (request, reply) => fastifyCallbackHandler(client)(request, reply)),
    );
    const dauth = await FakeDauth.start({ redirectUri: `${server.url}/dauth/callback` });
    const client = new DauthClient({
      clientId: 'client-1',
      clientSecret: 'secret-1',
      redirectUri: `${server.url}/dauth/callback`,
      authServerUrl: dauth.url,
    });
    closers.push(server.close, dauth.close.bind(dauth), client.shutdown.bind(client));

    const slot = await client.getSlotInfo({ jwt: 'user-jwt', timeout: 5_000 });
    expect(slot.id.value).toBe('1234567890123456789');
    expect(dauth.callbackStatuses).toEqual([200]);
  });

  it('passes the parsed body, falling back to the query string', async () => {
    const receiver = recorder();
    const server = await startFastify((app) => app.post('/cb', fastifyCallbackHandler(receiver)));
    closers.push(server.close);

    expect(await post(`${server.url}/cb`, '{"success":1,"code":"c","state":"s"}', 'application/json')).toBe(
      200,
    );
    const query = await fetch(`${server.url}/cb?success=1&code=q&state=u`, { method: 'POST' });
    expect(query.status).toBe(200);
    expect(receiver.bodies).toEqual([
      { success: 1, code: 'c', state: 's' },
      { success: '1', code: 'q', state: 'u' },
    ]);
  });
});

describe('createCallbackHandler (node:http)', () => {
  it('accepts POST only', async () => {
    const { createCallbackHandler } = await import('../src/index.js');
    const receiver = recorder();
    const server = await serve(createCallbackHandler(receiver));
    closers.push(server.close);

    const get = await fetch(`${server.url}/cb?success=1&code=c&state=s`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(receiver.bodies).toEqual([]);
  });
});
