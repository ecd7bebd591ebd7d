import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  type Answer,
  buy,
  consume,
  consumeAs,
  type ConsumeAnswer,
  encryptPayload,
  get,
  newPlayer,
  newProvider,
  onChain,
  payloadOf,
  type Player,
  type Provider,
  sealGcm,
} from './contentSupport.js';

const now = () => Math.floor(Date.now() / 1000);

/**
 * Turns a CTR ciphertext of `payload` (amount `1`) into one of amount `9` without the key: with a fixed key
 * and IV, one known plaintext–ciphertext pair is enough (the attack of issue 18, finding 1).
 */
function forgeAmount(ciphertextHex: string, payload: unknown): string {
  const plain = Buffer.from(JSON.stringify(payload));
  const at = plain.indexOf(Buffer.from('"amount":"1"')) + '"amount":"'.length;
  const forged = Buffer.from(ciphertextHex, 'hex');
  forged[at]! ^= '1'.charCodeAt(0) ^ '9'.charCodeAt(0);
  return forged.toString('hex');
}

describe('consumption in the strong modes (consume_auth client_secret, GCM) and in the spec mode', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  /** Runs `call` and checks the slot's chain figures did not move. */
  async function unchanged(
    provider: Provider,
    player: Player,
    call: () => Promise<Answer<ConsumeAnswer>>,
    status: number,
    error: string,
  ) {
    const before = await onChain(server, provider.cuid, player.slot);
    const res = await call();
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ success: false, error });
    expect(await onChain(server, provider.cuid, player.slot)).toEqual(before);
  }

  describe('consume_auth: client_secret (CTR payloads)', () => {
    let provider: Provider;
    let player: Player;
    let rival: Provider;

    beforeAll(async () => {
      provider = await newProvider(server, 50, { consume_auth: 'client_secret' });
      rival = await newProvider(server);
      player = await newPlayer(server, provider);
      expect((await buy(server, provider, player, '100000')).status).toBe(200);
    });

    it('is set at creation and shown by the settings read', async () => {
      expect(provider.registration).toMatchObject({ consume_auth: 'client_secret', payload_mode: 'ctr' });
      const read = await get(
        server,
        `/v1/development-api/payload_mode?client_id=${provider.clientId}`,
        provider.developer.token,
      );
      expect(read.body).toMatchObject({ payload_mode: 'ctr', consume_auth: 'client_secret' });
    });

    it('refuses a genuine payload sent without the app’s credentials, and a wrong secret', async () => {
      const message = encryptPayload(provider, payloadOf(provider, player, 1n, { request_id: randomUUID() }));
      await unchanged(
        provider,
        player,
        () => consume(server, { encrypted_message: message }),
        401,
        'client_authentication_required',
      );
      await unchanged(
        provider,
        player,
        () => consume(server, { encrypted_message: message, client_id: provider.clientId }),
        401,
        'client_authentication_required',
      );
      await unchanged(
        provider,
        player,
        () =>
          consumeAs(
            server,
            { clientId: provider.clientId, clientSecret: 'wrong' },
            { encrypted_message: message },
          ),
        401,
        'invalid_client',
      );
      // Another app's valid credentials do not make it this provider's sender.
      await unchanged(
        provider,
        player,
        () => consumeAs(server, rival, { encrypted_message: message }),
        401,
        'invalid_payload',
      );
    });

    it('refuses a payload forged from one known pair without the key (only the app can send)', async () => {
      const payload = payloadOf(provider, player, 1n, { request_id: 'forge-base' });
      const forged = forgeAmount(encryptPayload(provider, payload), payload);
      await unchanged(
        provider,
        player,
        () => consume(server, { encrypted_message: forged }),
        401,
        'client_authentication_required',
      );
    });

    it('counts a payload sent twice by the app once, and needs a request_id to tell retries apart', async () => {
      const before = await onChain(server, provider.cuid, player.slot);
      const message = encryptPayload(provider, payloadOf(provider, player, 3n, { request_id: randomUUID() }));
      const first = await consumeAs(server, provider, { encrypted_message: message });
      expect(first.status).toBe(200);
      const again = await consumeAs(server, provider, { encrypted_message: message });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(await onChain(server, provider.cuid, player.slot)).toEqual({
        balance: before.balance - 3n,
        used: before.used + 3n,
      });
      await unchanged(
        provider,
        player,
        () =>
          consumeAs(server, provider, {
            encrypted_message: encryptPayload(provider, payloadOf(provider, player, 1n)),
          }),
        400,
        'invalid_request',
      );
    });
  });

  describe('payload_mode gcm chosen at creation', () => {
    let provider: Provider;
    let player: Player;

    beforeAll(async () => {
      provider = await newProvider(server, 50, { payload_mode: 'gcm' });
      player = await newPlayer(server, provider);
      expect((await buy(server, provider, player, '100000')).status).toBe(200);
    });

    it('issues the GCM key with the first registration', () => {
      expect(provider.registration).toMatchObject({ payload_mode: 'gcm', consume_auth: 'none' });
      expect(provider.gcmKey).toMatch(/^[0-9a-f]{64}$/);
    });

    it('counts a replayed GCM message once', async () => {
      const before = await onChain(server, provider.cuid, player.slot);
      const sealed = sealGcm(
        provider.gcmKey!,
        provider.clientId,
        payloadOf(provider, player, 4n, { iat: now() }),
      );
      const first = await consume(server, { encrypted_message: sealed, client_id: provider.clientId });
      expect(first.status).toBe(200);
      for (let i = 0; i < 3; i++) {
        const replay = await consume(server, { encrypted_message: sealed, client_id: provider.clientId });
        expect(replay.body).toEqual(first.body);
      }
      expect(await onChain(server, provider.cuid, player.slot)).toEqual({
        balance: before.balance - 4n,
        used: before.used + 4n,
      });
    });

    it('refuses forged messages: a CTR payload from a known pair, and a tampered GCM message', async () => {
      const payload = payloadOf(provider, player, 1n);
      const forged = forgeAmount(encryptPayload(provider, payload), payload);
      await unchanged(
        provider,
        player,
        () => consume(server, { encrypted_message: forged }),
        401,
        'invalid_payload',
      );
      await unchanged(
        provider,
        player,
        () => consume(server, { encrypted_message: forged, client_id: provider.clientId }),
        401,
        'payload_form_not_allowed',
      );
      const sealed = sealGcm(
        provider.gcmKey!,
        provider.clientId,
        payloadOf(provider, player, 1n, { iat: now() }),
      );
      const raw = Buffer.from(sealed.slice('gcm1:'.length), 'hex');
      raw[20]! ^= 0x08;
      await unchanged(
        provider,
        player,
        () =>
          consume(server, { encrypted_message: `gcm1:${raw.toString('hex')}`, client_id: provider.clientId }),
        401,
        'invalid_payload',
      );
    });
  });

  describe('both strong settings together (what the console creates and the SDKs send)', () => {
    it('accepts only the app’s own GCM messages, once each', async () => {
      const provider = await newProvider(server, 50, { payload_mode: 'gcm', consume_auth: 'client_secret' });
      const player = await newPlayer(server, provider);
      expect((await buy(server, provider, player, '100000')).status).toBe(200);
      const sealed = sealGcm(
        provider.gcmKey!,
        provider.clientId,
        payloadOf(provider, player, 2n, { iat: now() }),
      );
      await unchanged(
        provider,
        player,
        () => consume(server, { encrypted_message: sealed, client_id: provider.clientId }),
        401,
        'client_authentication_required',
      );
      const before = await onChain(server, provider.cuid, player.slot);
      const first = await consumeAs(server, provider, { encrypted_message: sealed });
      expect(first.status).toBe(200);
      expect((await consumeAs(server, provider, { encrypted_message: sealed })).body).toEqual(first.body);
      expect((await onChain(server, provider.cuid, player.slot)).used).toBe(before.used + 2n);
    });
  });

  describe('the spec mode (default)', () => {
    it('still accepts the spec’s anonymous CTR payload {client_id, user_dbkey, amount, cuid}', async () => {
      const provider = await newProvider(server);
      expect(provider.registration).toMatchObject({ payload_mode: 'ctr', consume_auth: 'none' });
      const player = await newPlayer(server, provider);
      expect((await buy(server, provider, player, '1000')).status).toBe(200);
      const before = await onChain(server, provider.cuid, player.slot);
      const res = await consume(server, {
        encrypted_message: encryptPayload(provider, payloadOf(provider, player, 5n)),
      });
      expect(res.status).toBe(200);
      expect(res.body.used_balances).toBe((before.used + 5n).toString());
    });
  });
});

describe('rate limits of the anonymous consumption endpoint', () => {
  let server: TestServer;
  let provider: Provider;
  let player: Player;

  beforeAll(async () => {
    server = await startTestServer({
      env: { RATE_LIMITS: 'login_address=1000/1m,content_consume_cuid=2/1m,content_consume=5/1m' },
    });
    provider = await newProvider(server);
    player = await newPlayer(server, provider);
    expect((await buy(server, provider, player, '1000')).status).toBe(200);
  });
  afterAll(() => server?.close());

  it('limits each cuid (authenticated payloads only), then each address, with 429 in the decisions §2 shape', async () => {
    const send = (amount: bigint) =>
      consume(server, { encrypted_message: encryptPayload(provider, payloadOf(provider, player, amount)) });
    expect((await send(1n)).status).toBe(200);
    expect((await send(1n)).status).toBe(200);
    const before = await onChain(server, provider.cuid, player.slot);
    const overCuid = await send(1n);
    expect(overCuid.status).toBe(429);
    expect(overCuid.body).toEqual({
      success: false,
      error: 'rate_limited',
      message: expect.any(String),
      retryAfterSeconds: expect.any(Number),
    });
    expect(await onChain(server, provider.cuid, player.slot)).toEqual(before);

    // Garbage does not count against the cuid, but every call counts against the address.
    expect((await consume(server, { encrypted_message: 'abcd' })).status).toBe(401);
    expect((await consume(server, { encrypted_message: 'abcd' })).status).toBe(401);
    const overAddress = await consume(server, { encrypted_message: 'abcd' });
    expect(overAddress.status).toBe(429);
    expect(overAddress.body).toEqual({ success: false, error: 'rate_limited', message: expect.any(String) });
  });
});
