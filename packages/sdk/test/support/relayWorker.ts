/**
 * One backend process for the Redis relay test, run as its own OS process:
 *   node --import tsx relayWorker.ts callback   serves the callback route, prints {"url": …}
 *   node --import tsx relayWorker.ts caller     runs one getSlotInfo, prints {"slot": …} or {"error": …}
 * Configuration comes from the environment (REDIS_URL, RELAY_PREFIX, AUTH_SERVER_URL, REDIRECT_URI).
 */
import { Redis } from 'ioredis';
import { createCallbackHandler, DauthClient, RedisCallbackRelay, toHttpStatus } from '../../src/index.js';
import { serve } from './appServer.js';

const role = process.argv[2];
const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};

const publisher = new Redis(env('REDIS_URL'));
const subscriber = new Redis(env('REDIS_URL'));
const relay = new RedisCallbackRelay({ publisher, subscriber, channelPrefix: env('RELAY_PREFIX') });
const print = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value)}\n`);
};

async function closeRedis(): Promise<void> {
  await relay.close();
  await Promise.all([publisher.quit(), subscriber.quit()]);
}

if (role === 'callback') {
  // The redirect_uri is only known once this server listens; the client here only takes callbacks.
  const client = new DauthClient({
    clientId: 'client-1',
    clientSecret: 'secret-1',
    redirectUri: 'http://127.0.0.1/unused',
    authServerUrl: env('AUTH_SERVER_URL'),
    callbackRelay: relay,
  });
  const handle = createCallbackHandler(client);
  const server = await serve((request, response) => {
    handle(request, response);
  });
  print({ url: server.url });
  process.stdin.resume();
  process.stdin.on('end', () => {
    void client
      .shutdown()
      .then(() => server.close())
      .then(closeRedis);
  });
} else if (role === 'caller') {
  const client = new DauthClient({
    clientId: 'client-1',
    clientSecret: 'secret-1',
    redirectUri: env('REDIRECT_URI'),
    authServerUrl: env('AUTH_SERVER_URL'),
    callbackRelay: relay,
  });
  try {
    const slot = await client.getSlotInfo({ jwt: 'user-jwt', timeout: Number(env('TIMEOUT_MS')) });
    print({ slot: { id: slot.id.value, kind: slot.id.kind, code: slot.code } });
  } catch (error) {
    print({ error: (error as Error).message, status: toHttpStatus(error) });
  }
  await client.shutdown();
  await closeRedis();
} else {
  throw new Error(`unknown role ${String(role)}`);
}
