import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable } from '../helpers/environment.js';
import { type ReplicaPair, startReplicaPair } from '../helpers/replicaPair.js';
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
  let pair: ReplicaPair | undefined;
  const url = (i: number) => (i === 0 ? pair!.a : pair!.b).url;

  beforeAll(async () => {
    pair = await startReplicaPair(false, {
      CALLBACK_ALLOW_PRIVATE: 'true',
      SCRYPT_LOG_N: '14',
      CLIENT_SECRET_GRACE_SECONDS: '0',
    });
  });
  afterAll(async () => {
    await pair?.close();
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
