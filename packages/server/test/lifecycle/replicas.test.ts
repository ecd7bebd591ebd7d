import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createPgSchema } from '../helpers/databases.js';
import { postgresAvailable, TEST_DATABASE_URL } from '../helpers/environment.js';
import { freePort } from '../helpers/server.js';
import {
  authorizeUrl,
  authorizeWithBearer,
  bearer,
  createClient,
  createUser,
  exchange,
} from '../oauth/support.js';

/**
 * Two replicas on one PostgreSQL schema: an app edited, rotated or deleted on one is seen so by the
 * other at once (replicas used to cache apps as immutable).
 */
describe.skipIf(!postgresAvailable)('app changes across replicas', () => {
  const replicas: RunningServer[] = [];
  let drop: () => Promise<void>;
  const url = (i: number) => replicas[i]!.url;

  beforeAll(async () => {
    const schema = await createPgSchema();
    drop = schema.drop;
    const publicPort = await freePort();
    for (let i = 0; i < 2; i++) {
      const env = {
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
        PUBLIC_URL: `http://127.0.0.1:${publicPort}`,
        DATA_DIR: `/tmp/dauth-replica-${randomUUID()}`,
        LOG_LEVEL: 'silent',
        DATABASE_URL: TEST_DATABASE_URL,
        MASTER_KEY: 'cd'.repeat(32),
        ADMIN_API_KEY: 'replica-admin-key-0123456789',
        CALLBACK_ALLOW_PRIVATE: 'true',
        SCRYPT_LOG_N: '14',
        CLIENT_SECRET_GRACE_SECONDS: '0',
      };
      replicas.push(
        await startServer(loadConfig(env), { logger: pino({ level: 'silent' }), pgSchema: schema.schema }),
      );
    }
  });
  afterAll(async () => {
    for (const r of replicas) await r.close();
    await drop?.();
  });

  it('an edit, a rotation and a delete on replica A apply on replica B at once', async () => {
    const owner = await createUser(url(0));
    const client = await createClient(url(0), owner, ['http://127.0.0.1:9/one']);
    // Replica B has used the app (and so would have cached it).
    expect(
      (await exchange(url(1), client, (await authorizeWithBearer(url(1), owner, client)).code)).status,
    ).toBe(200);

    const patch = await fetch(`${url(0)}/v1/dev-user/clients/${client.clientId}`, {
      method: 'PATCH',
      headers: { ...bearer(owner.loginToken), 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/two'] }),
    });
    expect(patch.status).toBe(200);
    const at = (uri: string) =>
      fetch(authorizeUrl(url(1), { client_id: client.clientId, redirect_uri: uri, response_type: 'code' }), {
        redirect: 'manual',
      });
    expect((await at('http://127.0.0.1:9/one')).status).toBe(401);
    const moved = { ...client, redirectUri: 'http://127.0.0.1:9/two' };

    const rotate = await fetch(`${url(0)}/v1/dev-user/clients/${client.clientId}/rotate-secret`, {
      method: 'POST',
      headers: bearer(owner.loginToken),
    });
    const { client_secret } = (await rotate.json()) as { client_secret: string };
    // Grace 0: on B the old secret fails at once and the new one works.
    expect(
      (await exchange(url(1), moved, (await authorizeWithBearer(url(1), owner, moved)).code)).status,
    ).toBe(401);
    const rotated = { ...moved, clientSecret: client_secret };
    const tokens = (await (
      await exchange(url(1), rotated, (await authorizeWithBearer(url(1), owner, rotated)).code)
    ).json()) as { access_token: string };
    expect(
      (await fetch(`${url(1)}/v1/oauth/validate`, { headers: bearer(tokens.access_token) })).status,
    ).toBe(200);

    const del = await fetch(`${url(0)}/v1/dev-user/clients/${client.clientId}`, {
      method: 'DELETE',
      headers: bearer(owner.loginToken),
    });
    expect(del.status).toBe(200);
    // The app is gone on B at once (read from the database); its tokens' revocation arrives over the bus.
    expect((await at('http://127.0.0.1:9/two')).status).toBe(401);
    const deadline = Date.now() + 2000;
    let status = 200;
    while (status !== 401 && Date.now() < deadline) {
      status = (await fetch(`${url(1)}/v1/oauth/validate`, { headers: bearer(tokens.access_token) })).status;
      if (status !== 401) await new Promise((r) => setTimeout(r, 20));
    }
    expect(status).toBe(401);
  });
});
