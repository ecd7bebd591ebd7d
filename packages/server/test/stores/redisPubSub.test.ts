import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisPubSub } from '../../src/stores/redisPubSub.js';
import { redisAvailable, TEST_REDIS_URL } from '../helpers/environment.js';

/**
 * The pub/sub channel the Redis buses (revocations, chain heads) are built on. It exists only over Redis,
 * so it runs once per transport rather than per database.
 */
const transports = [{ name: 'Redis', available: redisAvailable }];

async function until(check: () => boolean, what: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each(transports.filter((t) => t.available))('RedisPubSub over $name', () => {
  it('delivers to every subscriber of its channel only, names its connection, and reports a lost subscription', async () => {
    const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
    const channel = `dauth_test_${randomUUID()}`;
    const a = new RedisPubSub(redis, channel, 'dauth-test');
    const b = new RedisPubSub(redis, channel, 'dauth-test');
    const elsewhere = new RedisPubSub(redis, `dauth_test_${randomUUID()}`, 'dauth-test');
    const heard = { a: [] as string[], b: [] as string[], elsewhere: [] as string[] };
    const connected = { a: false, b: false, elsewhere: false };
    const drops = { a: 0, b: 0, elsewhere: 0 };
    for (const [name, channelOf] of [
      ['a', a],
      ['b', b],
      ['elsewhere', elsewhere],
    ] as const) {
      channelOf.start({
        onMessage: (text) => heard[name].push(text),
        onConnected: () => (connected[name] = true),
        onDisconnected: () => {
          connected[name] = false;
          drops[name]++;
        },
      });
    }
    try {
      await until(() => connected.a && connected.b && connected.elsewhere, 'the subscriptions');
      expect(a.origin).not.toBe(b.origin);
      expect(a.connectionName).toBe(`dauth-test-${a.origin.slice(0, 8)}`);

      await a.publish('one');
      await until(() => heard.a.length === 1 && heard.b.length === 1, 'delivery');
      // Every subscriber hears the raw text, its sender included: the buses skip their own by origin.
      expect(heard).toEqual({ a: ['one'], b: ['one'], elsewhere: [] });

      // Killing b's listening connection is reported, and b subscribes again on reconnect.
      const clients = (await redis.client('LIST')) as string;
      const id = clients.split('\n').find((line) => line.includes(`name=${b.connectionName}`))!;
      await redis.client('KILL', 'ID', /id=(\d+)/.exec(id)![1]!);
      await until(() => drops.b > 0 && connected.b, 'the drop and the resubscription', 10_000);
      await b.publish('two');
      await until(() => heard.a.length === 2, 'delivery after the reconnect');
      expect(heard.a).toEqual(['one', 'two']);
    } finally {
      await Promise.all([a.close(), b.close(), elsewhere.close()]);
      redis.disconnect();
    }
  });
});

// Without a reachable transport (no Redis outside CI) the file names what it skipped instead of failing empty.
describe.runIf(transports.every((t) => !t.available))('RedisPubSub', () => {
  it.skip('needs Redis at TEST_REDIS_URL', () => {});
});
