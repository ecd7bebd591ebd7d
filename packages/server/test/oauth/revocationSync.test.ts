import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import type { RunningServer } from '../../src/server.js';
import { RevocationRegistry } from '../../src/services/oauth/revocationRegistry.js';
import { PgRevocationBus } from '../../src/stores/oauthRevocationBus.js';
import { OAuthRevocationStore } from '../../src/stores/oauthRevocationStore.js';
import { createPgSchema } from '../helpers/databases.js';
import { postgresAvailable, TEST_DATABASE_URL } from '../helpers/environment.js';
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
  type TokenResult,
} from './support.js';

describe.each(replicaBuses)('revocations across replicas over $name', ({ redis, available }) => {
  let replicas: ReplicaPair | undefined;
  let user: TestUser;
  let client: TestClient;

  beforeAll(async () => {
    if (!available) return;
    replicas = await startReplicaPair(redis);
    user = await createUser(replicas.a.url);
    client = await createClient(replicas.a.url, user, ['https://app.example/cb']);
  });
  afterAll(() => replicas?.close());

  const tokensFromA = async (): Promise<TokenResult> => {
    const { code } = await authorizeWithBearer(replicas!.a.url, user, client);
    return (await (await exchange(replicas!.a.url, client, code)).json()) as TokenResult;
  };
  const validateOn = (r: RunningServer, token: string) =>
    fetch(`${r.url}/v1/oauth/validate`, { headers: bearer(token) }).then((res) => res.status);
  const revokeOnA = (token: string) =>
    post(`${replicas!.a.url}/oauth/revoke`, {
      token,
      client_id: client.clientId,
      client_secret: client.clientSecret,
    });

  it('uses the expected bus and starts in sync', async (ctx) => {
    if (!replicas) return ctx.skip();
    for (const r of [replicas.a, replicas.b]) {
      expect(r.services.revocations.bus?.kind).toBe(redis ? 'redis' : 'postgres');
      await until(() => r.services.revocations.inSync, 5000);
    }
  });

  it('a revocation on one replica reaches a replica that had the token cached as valid', async (ctx) => {
    if (!replicas) return ctx.skip();
    const pair = await tokensFromA();
    expect(await validateOn(replicas.b, pair.access_token)).toBe(200);
    expect((await revokeOnA(pair.refresh_token)).status).toBe(200);
    // The revoking replica refuses before its revoke call has even answered.
    expect(await validateOn(replicas.a, pair.access_token)).toBe(401);
    const latency = await until(async () => (await validateOn(replicas!.b, pair.access_token)) === 401, 2000);
    console.log(`revocation visible on the other replica after ≤ ${latency.toFixed(1)} ms`);
  });

  it('a login JWT logged out on one replica is refused on the other, which had it cached as valid', async (ctx) => {
    if (!replicas) return ctx.skip();
    const login = await post(`${replicas.a.url}/v1/dev-user/login_devuser`, {
      email: user.email,
      password: user.password,
    });
    const token = ((await login.json()) as { token: string }).token;
    const listOn = (r: RunningServer) =>
      fetch(`${r.url}/v1/dev-user/clients`, { headers: bearer(token) }).then((res) => res.status);
    expect(await listOn(replicas.b)).toBe(200);
    expect((await post(`${replicas.a.url}/v1/dev-user/logout`, {}, bearer(token))).status).toBe(200);
    expect(await listOn(replicas.a)).toBe(401);
    await until(async () => (await listOn(replicas!.b)) === 401, 2000);
  });

  it('after its subscription was cut, a replica still refuses tokens revoked meanwhile, then re-syncs', async (ctx) => {
    if (!replicas) return ctx.skip();
    const pair = await tokensFromA();
    expect(await validateOn(replicas.b, pair.access_token)).toBe(200);
    expect(await cutSubscription(replicas.b, redis)).toBe(1);
    expect((await revokeOnA(pair.refresh_token)).status).toBe(200);
    // Whether B heard it, re-loaded it, or checks the database while out of sync: it refuses.
    await until(async () => (await validateOn(replicas!.b, pair.access_token)) === 401, 2000);
    await until(() => replicas!.b.services.revocations.inSync, 10_000);
    expect(await validateOn(replicas.b, pair.access_token)).toBe(401);
    // And it hears later revocations again.
    const next = await tokensFromA();
    expect(await validateOn(replicas.b, next.access_token)).toBe(200);
    expect((await revokeOnA(next.access_token)).status).toBe(200);
    await until(async () => (await validateOn(replicas!.b, next.access_token)) === 401, 2000);
  });
});

describe('revocation registry without its bus', () => {
  it('checks the database for every token while out of sync, so a missed message changes nothing', async (ctx) => {
    if (!postgresAvailable) return ctx.skip();
    const schema = await createPgSchema();
    const handle = openDatabase({ databaseUrl: TEST_DATABASE_URL, pgSchema: schema.schema, poolSize: 2 });
    try {
      await migrateToLatest(handle.db);
      const store = new OAuthRevocationStore(handle.db);
      // Nothing listens on port 1: the subscription never comes up.
      const deaf = new RevocationRegistry(store, {
        bus: new PgRevocationBus(handle.db, 'postgres://postgres@127.0.0.1:1/test', 'dauth_rev_test'),
        startWaitMs: 200,
      });
      await deaf.start();
      expect(deaf.inSync).toBe(false);
      // Another replica revokes (it writes the database; its message never reaches `deaf`).
      const other = new RevocationRegistry(store);
      await other.start();
      const grantId = randomUUID();
      const claims = { use: 'access' as const, userId: '1', jti: randomUUID(), exp: 0, iat: 0, grantId };
      expect(await deaf.isRevoked(claims)).toBe(false);
      await other.revoke({ kind: 'grant', value: grantId, expiresAt: Date.now() + 60_000 });
      expect(await deaf.isRevoked(claims)).toBe(true);
      expect(await deaf.isRevoked({ ...claims, grantId: randomUUID() })).toBe(false);
      await deaf.close();
      await other.close();
    } finally {
      await handle.close();
      await schema.drop();
    }
  });
});
