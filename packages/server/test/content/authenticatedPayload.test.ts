import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  buy,
  consume,
  encryptPayload,
  get,
  newPlayer,
  newProvider,
  onChain,
  payloadOf,
  post,
  type Player,
  type Provider,
  sealGcm,
} from './contentSupport.js';

const now = () => Math.floor(Date.now() / 1000);

describe('authenticated payloads (AES-256-GCM, opt-in then required)', () => {
  let server: TestServer;
  let provider: Provider;
  let player: Player;
  let gcmKey: string;

  beforeAll(async () => {
    server = await startTestServer();
    provider = await newProvider(server);
    player = await newPlayer(server, provider);
    expect((await buy(server, provider, player, '100000')).status).toBe(200);
  });
  afterAll(() => server?.close());

  const setMode = (mode: string, token = provider.developer.token) =>
    post<{ payload_mode: string; gcm_key?: string }>(
      server,
      '/v1/development-api/payload_mode',
      { client_id: provider.clientId, mode },
      token,
    );

  async function unchanged(
    body: { encrypted_message: string; client_id?: string },
    status: number,
    error: string,
  ) {
    const before = await onChain(server, provider.cuid, player.slot);
    const res = await consume(server, body);
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ success: false, error });
    expect(await onChain(server, provider.cuid, player.slot)).toEqual(before);
  }

  it('starts in the spec’s CTR form; switching on both forms issues the GCM key once', async () => {
    const initial = await get(
      server,
      `/v1/development-api/payload_mode?client_id=${provider.clientId}`,
      provider.developer.token,
    );
    expect(initial.body).toEqual({
      success: true,
      client_id: provider.clientId,
      payload_mode: 'ctr',
      consume_auth: 'none',
      has_gcm_key: false,
    });
    // A GCM message is refused while the provider has not switched it on.
    await unchanged(
      {
        encrypted_message: sealGcm(
          randomBytes(32).toString('hex'),
          provider.clientId,
          payloadOf(provider, player, 1n),
        ),
        client_id: provider.clientId,
      },
      401,
      'invalid_payload',
    );
    const on = await setMode('ctr+gcm');
    expect(on.status).toBe(200);
    expect(on.body.gcm_key).toMatch(/^[0-9a-f]{64}$/);
    gcmKey = on.body.gcm_key!;
    const again = await setMode('ctr+gcm');
    expect(again.body).toEqual({ success: true, client_id: provider.clientId, payload_mode: 'ctr+gcm' });
  });

  it('accepts both forms in ctr+gcm; a GCM message needs client_id, a fresh iat and counts once', async () => {
    const before = await onChain(server, provider.cuid, player.slot);
    const ctr = await consume(server, {
      encrypted_message: encryptPayload(provider, payloadOf(provider, player, 5n)),
    });
    expect(ctr.status).toBe(200);
    const sealed = sealGcm(gcmKey, provider.clientId, payloadOf(provider, player, 7n, { iat: now() }));
    const gcm = await consume(server, { encrypted_message: sealed, client_id: provider.clientId });
    expect(gcm.status).toBe(200);
    expect(gcm.body.used_balances).toBe((before.used + 12n).toString());
    // A replay of the same message (same IV) returns the original answer and is not counted again.
    const replay = await consume(server, { encrypted_message: sealed, client_id: provider.clientId });
    expect(replay.body).toEqual(gcm.body);
    expect(await onChain(server, provider.cuid, player.slot)).toEqual({
      balance: before.balance - 12n,
      used: before.used + 12n,
    });

    await unchanged({ encrypted_message: sealed }, 400, 'invalid_request');
    await unchanged(
      {
        encrypted_message: sealGcm(
          gcmKey,
          provider.clientId,
          payloadOf(provider, player, 1n, { iat: now() - 3600 }),
        ),
        client_id: provider.clientId,
      },
      401,
      'stale_payload',
    );
    await unchanged(
      {
        encrypted_message: sealGcm(gcmKey, provider.clientId, payloadOf(provider, player, 1n)),
        client_id: provider.clientId,
      },
      401,
      'stale_payload',
    );
  });

  it('rejects every tampered GCM message, unlike CTR where a flipped bit can change the amount', async () => {
    const sealed = sealGcm(gcmKey, provider.clientId, payloadOf(provider, player, 1n, { iat: now() }));
    const raw = Buffer.from(sealed.slice(5), 'hex');
    for (const index of [0, 12, 30, raw.length - 1]) {
      const copy = Buffer.from(raw);
      copy[index]! ^= 0x04;
      await unchanged(
        { encrypted_message: `gcm1:${copy.toString('hex')}`, client_id: provider.clientId },
        401,
        'invalid_payload',
      );
    }
    // Bound to the client id: the same key and message presented as another client's fail.
    await unchanged(
      { encrypted_message: sealed, client_id: `${provider.clientId}x` },
      401,
      'invalid_payload',
    );

    // The legacy form's weakness, shown: flipping one bit of the ciphertext turns amount "1" into "0"→"1"…
    const ctr = encryptPayload(provider, payloadOf(provider, player, 1n));
    const plain = Buffer.from(JSON.stringify(payloadOf(provider, player, 1n)));
    const at = plain.indexOf(Buffer.from('"amount":"1"')) + '"amount":"'.length;
    const forged = Buffer.from(ctr, 'hex');
    forged[at]! ^= '1'.charCodeAt(0) ^ '9'.charCodeAt(0);
    const before = await onChain(server, provider.cuid, player.slot);
    const res = await consume(server, { encrypted_message: forged.toString('hex') });
    expect(res.status).toBe(200);
    expect(BigInt(res.body.used_balances) - before.used).toBe(9n);
  });

  it('once GCM is required, the CTR form is refused and GCM still works', async () => {
    expect((await setMode('gcm')).body).toMatchObject({ payload_mode: 'gcm' });
    const ctr = encryptPayload(provider, payloadOf(provider, player, 1n));
    await unchanged({ encrypted_message: ctr }, 401, 'invalid_payload');
    await unchanged(
      { encrypted_message: ctr, client_id: provider.clientId },
      401,
      'payload_form_not_allowed',
    );
    const gcm = await consume(server, {
      encrypted_message: sealGcm(gcmKey, provider.clientId, payloadOf(provider, player, 2n, { iat: now() })),
      client_id: provider.clientId,
    });
    expect(gcm.status).toBe(200);
    // Only the client's owner may change it.
    const stranger = await newProvider(server);
    expect((await setMode('ctr', stranger.developer.token)).status).toBe(403);
  });
});
