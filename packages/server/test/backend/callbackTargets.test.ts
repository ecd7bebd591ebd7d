import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { CallbackSender } from '../../src/services/backendIntegration/callbackSender.js';
import {
  CallbackTargetPolicy,
  classifyAddress,
  type HostResolver,
} from '../../src/services/oauth/callbackTargetPolicy.js';
import { BackendCodeStore } from '../../src/stores/backendCodeStore.js';
import { bearer, createUser, post, startCallbackServer, type TestUser } from './support.js';
import { expectError } from '../oauth/support.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** A resolver the test controls: names map to fixed answers, anything else does not resolve. */
function fixedResolver(answers: Record<string, string[]>): HostResolver {
  return async (hostname) => {
    const addresses = answers[hostname];
    if (!addresses) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

describe('address classes (decisions §7 callback targets)', () => {
  it.each([
    ['127.0.0.1', 'private'],
    ['127.8.9.10', 'private'],
    ['0.0.0.0', 'private'],
    ['10.1.2.3', 'private'],
    ['172.20.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['::1', 'private'],
    ['::', 'private'],
    ['fd12:3456::1', 'private'],
    ['::ffff:127.0.0.1', 'private'],
    ['::ffff:7f00:1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::7f00:1', 'private'],
    ['169.254.169.254', 'forbidden'],
    ['::ffff:169.254.169.254', 'forbidden'],
    ['fe80::1', 'forbidden'],
    ['fd00:ec2::254', 'forbidden'],
    ['100.64.0.1', 'forbidden'],
    ['100.127.255.254', 'forbidden'],
    ['224.0.0.1', 'forbidden'],
    ['255.255.255.255', 'forbidden'],
    ['not-an-ip', 'forbidden'],
    ['93.184.215.14', 'public'],
    ['100.128.0.1', 'public'],
    ['2606:4700::1111', 'public'],
    // Decisions §8: an IPv6 address embedding an IPv4 address is judged by that address too.
    ['64:ff9b::a9fe:a9fe', 'forbidden'],
    ['64:ff9b::169.254.169.254', 'forbidden'],
    ['64:ff9b:1::a9fe:a9fe', 'forbidden'],
    ['::ffff:0:a9fe:a9fe', 'forbidden'],
    ['::ffff:0:169.254.169.254', 'forbidden'],
    ['::ffff:0:7f00:1', 'private'],
    ['::ffff:0:a00:1', 'private'],
    ['::a9fe:a9fe', 'forbidden'],
    ['2002:a9fe:a9fe::1', 'forbidden'],
    ['2002:7f00:1::1', 'private'],
    ['2001:0:4136:e378:8000:63bf:5601:5601', 'forbidden'],
    ['64:ff9b::808:808', 'private'],
    ['::ffff:0:808:808', 'public'],
  ])('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });
});

describe('the registration check', () => {
  const resolve = fixedResolver({
    'game.example': ['93.184.215.14'],
    'rebind.example': ['93.184.215.14', '127.0.0.1'],
    'metadata.example': ['169.254.169.254'],
  });
  const strict = new CallbackTargetPolicy({ allowPrivate: false, requireHttps: true, resolve });
  const embedded = new CallbackTargetPolicy({ allowPrivate: true, requireHttps: false, resolve });

  it.each([
    'https://127.0.0.1/cb',
    'https://0x7f.1/cb',
    'https://2130706433/cb',
    'https://017700000001/cb',
    'https://127.1/cb',
    'https://[::ffff:127.0.0.1]/cb',
    'https://[::1]/cb',
    'https://10.0.0.5/cb',
    'https://rebind.example/cb',
  ])('refuses %s when private targets are off', async (uri) => {
    expect(await strict.registrationProblem(uri)).toMatch(/loopback or private/);
  });

  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://[fe80::1]/cb',
    'http://100.64.0.1/cb',
    'http://metadata.example/cb',
    'http://[::ffff:a9fe:a9fe]/cb',
    'http://[64:ff9b::a9fe:a9fe]/cb',
    'http://[64:ff9b:1::a9fe:a9fe]/cb',
    'http://[::ffff:0:a9fe:a9fe]/cb',
    'http://[::a9fe:a9fe]/cb',
    'http://[2002:a9fe:a9fe::1]/cb',
    'http://[2001:0:4136:e378:8000:63bf:5601:5601]/cb',
  ])('refuses %s always, even where private targets are allowed', async (uri) => {
    expect(await embedded.registrationProblem(uri)).toMatch(/link-local, metadata or reserved/);
    expect(await strict.registrationProblem(uri)).toBeDefined();
  });

  it('accepts public https targets, and names that do not resolve yet', async () => {
    expect(await strict.registrationProblem('https://game.example/cb')).toBeUndefined();
    expect(await strict.registrationProblem('https://not-live-yet.example/cb')).toBeUndefined();
  });

  it('in production takes http only for loopback hosts', async () => {
    expect(await strict.registrationProblem('http://game.example/cb')).toMatch(/must use https/);
    const localBackends = new CallbackTargetPolicy({ allowPrivate: true, requireHttps: true, resolve });
    expect(await localBackends.registrationProblem('http://127.0.0.1:3000/cb')).toBeUndefined();
    expect(await localBackends.registrationProblem('http://10.0.0.5/cb')).toMatch(/must use https/);
    expect(await embedded.registrationProblem('http://game.example/cb')).toBeUndefined();
  });
});

describe('redirect URIs on a running service with CALLBACK_ALLOW_PRIVATE=false', () => {
  let server: TestServer;
  let embedded: TestServer;
  let dev: TestUser;
  let embeddedDev: TestUser;
  beforeAll(async () => {
    server = await startTestServer({ env: { CALLBACK_ALLOW_PRIVATE: 'false' } });
    embedded = await startTestServer();
    dev = await createUser(server.url);
    embeddedDev = await createUser(embedded.url);
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await embedded?.close();
  });

  const register = (base: string, user: TestUser, uri: string) =>
    post(`${base}/v1/dev-user/clients`, { name: 'Game', redirect_uris: [uri] }, bearer(user.loginToken));

  it.each([
    ['a loopback address', 'http://127.0.0.1:9/cb'],
    ['a loopback address in hex', 'http://0x7f.0.0.1:9/cb'],
    ['an IPv4-mapped loopback', 'http://[::ffff:127.0.0.1]:9/cb'],
    ['a DNS name resolving to 127.0.0.1', 'http://localhost:9/cb'],
    ['a metadata address', 'http://169.254.169.254/latest/meta-data/'],
  ])('refuses %s with 400 invalid_redirect_uri', async (_what, uri) => {
    await expectError(await register(server.url, dev, uri), 400, 'invalid_redirect_uri');
  });

  it('the embedded default allows loopback game backends but never metadata', async () => {
    expect((await register(embedded.url, embeddedDev, 'http://127.0.0.1:9/cb')).status).toBe(201);
    await expectError(
      await register(embedded.url, embeddedDev, 'http://169.254.169.254/cb'),
      400,
      'invalid_redirect_uri',
    );
  });
});

const connections = (server: http.Server) =>
  new Promise<number>((resolve, reject) =>
    server.getConnections((err, count) => (err ? reject(err) : resolve(count))),
  );

describe('the callback at send time', () => {
  let database: DatabaseHandle;
  beforeAll(async () => {
    database = openDatabase({ sqlitePath: ':memory:' });
    await migrateToLatest(database.db);
  });
  afterAll(() => database?.close());

  const delivery = (redirectUri: string, state: string) => ({
    redirectUri,
    code: 'c0de',
    codeHash: `hash-${state}`,
    state,
  });

  it('re-checks the address the name resolves to now: a rebound name is refused and nothing is sent', async () => {
    const app = await startCallbackServer();
    const port = new URL(app.origin).port;
    // At registration the name pointed at a public address; at send time it answers loopback.
    const resolve = fixedResolver({ 'rebound.example': ['127.0.0.1'] });
    const sender = new CallbackSender(new BackendCodeStore(database.db), {
      targets: new CallbackTargetPolicy({ allowPrivate: false, requireHttps: false, resolve }),
      backoffMs: [0],
    });
    try {
      expect(await sender.deliver(delivery(`http://rebound.example:${port}/callback`, 's1'))).toBe('refused');
      expect(await sender.deliver(delivery(`${app.origin}/callback`, 's2'))).toBe('refused');
      expect(app.requests).toEqual([]);
    } finally {
      await sender.close();
      await app.close();
    }
  });

  it('close() ends an attempt still waiting for its answer: aborted, no retry, the code invalidated', async () => {
    // A callback route that never answers.
    const silent = http.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const codes = new BackendCodeStore(database.db);
    const now = Date.now();
    await codes.insert({
      codeHash: 'hash-s4',
      clientId: 'app',
      userUuid: 1,
      slotId: '1',
      redirectUri: `http://127.0.0.1:${port}/callback`,
      createdAt: now,
      expiresAt: now + 60_000,
    });
    const sender = new CallbackSender(codes, { attemptTimeoutMs: 60_000, backoffMs: [0] });
    const outcomes: string[] = [];
    const waiting = sender.deliver(delivery(`http://127.0.0.1:${port}/callback`, 's4'));
    void waiting.then((outcome) => outcomes.push(outcome));
    try {
      // The request is on the wire once the server holds its connection.
      for (let i = 0; i < 200 && (await connections(silent)) === 0; i++) await sleep(10);
      expect(await connections(silent)).toBe(1);
      expect(sender.pending).toBe(1);
      const started = Date.now();
      await sender.close();
      expect(await waiting).toBe('aborted');
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(outcomes).toEqual(['aborted']);
      expect(sender.pending).toBe(0);
      expect((await codes.find('hash-s4'))?.usedAt).toBeDefined();
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('connects to the vetted address while the request still names the registered host', async () => {
    const app = await startCallbackServer();
    const port = new URL(app.origin).port;
    let lookups = 0;
    const resolve: HostResolver = async (hostname) => {
      lookups++;
      expect(hostname).toBe('game.test');
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const sender = new CallbackSender(new BackendCodeStore(database.db), {
      targets: new CallbackTargetPolicy({ allowPrivate: true, requireHttps: false, resolve }),
    });
    try {
      // `game.test` exists in no DNS: the request can only arrive through the pinned address.
      expect(await sender.deliver(delivery(`http://game.test:${port}/callback`, 's3'))).toBe('delivered');
      expect(lookups).toBe(1);
      expect(app.requests).toHaveLength(1);
      expect(app.requests[0]!.url.host).toBe(`game.test:${port}`);
      expect(JSON.parse(app.requests[0]!.body)).toEqual({ success: 1, code: 'c0de', state: 's3' });
    } finally {
      await sender.close();
      await app.close();
    }
  });
});
