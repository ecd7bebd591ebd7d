import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server.js';
import {
  cutSubscription,
  type ReplicaPair,
  replicaBuses,
  startReplicaPair,
  until,
} from '../helpers/replicaPair.js';
import {
  authorizeWithBearer,
  bearer,
  createClient,
  createUser,
  exchange,
  post,
  type TestClient,
  type TestUser,
} from './support.js';

/**
 * The client cache (docs/oauth.md, "The client cache") across two replicas sharing one PostgreSQL schema:
 * B holds the app's row after serving it, A changes the app, and B must see the change at once. The cache's
 * TTL is 30 s, far longer than these tests wait, so only the invalidation over the bus can make them pass.
 */
describe.each(replicaBuses)('the client cache across replicas over $name', ({ redis, available }) => {
  let replicas: ReplicaPair | undefined;
  let user: TestUser;

  beforeAll(async () => {
    if (!available) return;
    replicas = await startReplicaPair(redis);
    user = await createUser(replicas.a.url);
    for (const r of [replicas.a, replicas.b]) await until(async () => r.services.revocations.inSync, 5000);
  });
  afterAll(() => replicas?.close());

  /** A code from `r` exchanged on `r`: the status of the exchange (B then holds the client's row). */
  const exchangeOn = async (r: RunningServer, client: TestClient): Promise<number> => {
    const { code } = await authorizeWithBearer(r.url, user, client);
    return (await exchange(r.url, client, code)).status;
  };

  /** Rotates the app's secret through replica A; the app with its new secret. */
  const rotateOnA = async (client: TestClient): Promise<TestClient> => {
    const rotated = await post(
      `${replicas!.a.url}/v1/dev-user/clients/${client.clientId}/rotate-secret`,
      {},
      bearer(user.loginToken),
    );
    expect(rotated.status).toBe(200);
    return { ...client, clientSecret: ((await rotated.json()) as { client_secret: string }).client_secret };
  };

  it('a secret rotated on A is accepted by B at once, though B held the old row', async (ctx) => {
    if (!replicas) return ctx.skip();
    const client = await createClient(replicas.a.url, user, ['https://app.example/cb']);
    expect(await exchangeOn(replicas.b, client)).toBe(200);
    expect(await exchangeOn(replicas.b, client)).toBe(200);
    const fresh = await rotateOnA(client);
    // At once: whether or not the invalidation has arrived, the redemption's commit re-checks the row.
    expect(await exchangeOn(replicas.b, fresh)).toBe(200);
    // The old secret stays valid through its grace period on both.
    expect(await exchangeOn(replicas.b, client)).toBe(200);
  });

  it('an app deleted on A is refused by B at once, though B held its row', async (ctx) => {
    if (!replicas) return ctx.skip();
    const client = await createClient(replicas.a.url, user, ['https://app.example/cb']);
    expect(await exchangeOn(replicas.b, client)).toBe(200);
    const { code } = await authorizeWithBearer(replicas.b.url, user, client);
    const deleted = await fetch(`${replicas.a.url}/v1/dev-user/clients/${client.clientId}`, {
      method: 'DELETE',
      headers: bearer(user.loginToken),
    });
    expect(deleted.status).toBe(200);
    expect((await exchange(replicas.b.url, client, code)).status).toBe(401);
  });

  it('B drops the row it held as soon as A publishes a change (the invalidation over the bus)', async (ctx) => {
    if (!replicas) return ctx.skip();
    const cacheOf = (r: RunningServer) => r.services.clients.cache!;
    const client = await createClient(replicas.a.url, user, ['https://app.example/cb']);
    expect(await exchangeOn(replicas.b, client)).toBe(200);
    expect(cacheOf(replicas.b).holds(client.clientId)).toBe(true);
    const rotated = await post(
      `${replicas.a.url}/v1/dev-user/clients/${client.clientId}/rotate-secret`,
      {},
      bearer(user.loginToken),
    );
    expect(rotated.status).toBe(200);
    expect(cacheOf(replicas.a).holds(client.clientId)).toBe(false);
    // The TTL is 30 s: only the published invalidation can drop it within a second.
    const latency = await until(async () => !cacheOf(replicas!.b).holds(client.clientId), 1000);
    console.log(`B dropped the row ${latency.toFixed(1)} ms after A's rotation answered`);
    expect(await exchangeOn(replicas.b, client)).toBe(200);
    expect(cacheOf(replicas.b).holds(client.clientId)).toBe(true);
    const deleted = await fetch(`${replicas.a.url}/v1/dev-user/clients/${client.clientId}`, {
      method: 'DELETE',
      headers: bearer(user.loginToken),
    });
    expect(deleted.status).toBe(200);
    await until(async () => !cacheOf(replicas!.b).holds(client.clientId), 1000);
  });

  it('redirect URIs changed on A are what B accepts at once', async (ctx) => {
    if (!replicas) return ctx.skip();
    const client = await createClient(replicas.a.url, user, ['https://app.example/cb']);
    expect(await exchangeOn(replicas.b, client)).toBe(200);
    const patched = await fetch(`${replicas.a.url}/v1/dev-user/clients/${client.clientId}`, {
      method: 'PATCH',
      headers: { ...bearer(user.loginToken), 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['https://app.example/next'] }),
    });
    expect(patched.status).toBe(200);
    const moved = { ...client, redirectUri: 'https://app.example/next' };
    const authorizeOnB = () =>
      fetch(
        `${replicas!.b.url}/oauth/authorize?${new URLSearchParams({
          client_id: client.clientId,
          redirect_uri: moved.redirectUri,
          response_type: 'code',
        }).toString()}`,
        { headers: bearer(user.loginToken), redirect: 'manual' },
      ).then((res) => res.status);
    await until(async () => (await authorizeOnB()) === 302, 1000);
    expect(await exchangeOn(replicas.b, moved)).toBe(200);
  });

  it('a replica whose subscription dropped forgets what it held, so a change it missed is seen', async (ctx) => {
    if (!replicas) return ctx.skip();
    const client = await createClient(replicas.a.url, user, ['https://app.example/cb']);
    expect(await exchangeOn(replicas.b, client)).toBe(200);
    expect(await cutSubscription(replicas.b, redis)).toBe(1);
    const fresh = await rotateOnA(client);
    // Whether B heard it, or reads the database while out of sync, or dropped everything on re-sync: it accepts.
    await until(async () => (await exchangeOn(replicas!.b, fresh)) === 200, 2000);
    await until(async () => replicas!.b.services.revocations.inSync, 10_000);
    expect(await exchangeOn(replicas.b, fresh)).toBe(200);
  });
});
