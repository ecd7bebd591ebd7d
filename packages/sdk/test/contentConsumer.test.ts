import { createDecipheriv } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConsumptionError,
  consumptionPlaintext,
  ContentConsumer,
  encryptConsumptionPayload,
  MalformedResponseError,
  SlotId,
} from '../src/index.js';

/**
 * The consumption helper against a real loopback server standing in for the service's
 * `increase_used_content_token`: what goes over the wire, decrypted independently with node:crypto.
 * The live service accepts both forms in test/e2e/liveServer.test.ts.
 */

const CTR_KEY = '603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4';
const CTR_IV = 'f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff';
const GCM_KEY = '1f'.repeat(32);
const SLOT = '1234567890123456789';

interface Received {
  headers: IncomingHttpHeaders;
  body: { encrypted_message: string; client_id?: string };
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function service(answer: {
  status: number;
  body: unknown;
}): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => {
      received.push({ headers: request.headers, body: JSON.parse(text) as Received['body'] });
      response
        .writeHead(answer.status, { 'content-type': 'application/json' })
        .end(JSON.stringify(answer.body));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

const included = {
  success: true,
  cuid: 'game-1',
  slot: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
  user_dbkey: SLOT,
  amount: '5',
  request_id: 'r-1',
  tx_hash: `0x${'ab'.repeat(32)}`,
  balance: '95',
  used_balances: '5',
};

function openCtr(hex: string): unknown {
  const decipher = createDecipheriv('aes-256-ctr', Buffer.from(CTR_KEY, 'hex'), Buffer.from(CTR_IV, 'hex'));
  return JSON.parse(
    Buffer.concat([decipher.update(Buffer.from(hex, 'hex')), decipher.final()]).toString('utf8'),
  );
}

function openGcm(message: string, clientId: string): unknown {
  expect(message).toMatch(/^gcm1:[0-9a-f]+$/);
  const raw = Buffer.from(message.slice(5), 'hex');
  const decipher = createDecipheriv('aes-256-gcm', Buffer.from(GCM_KEY, 'hex'), raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(`dauth/content-payload/v1:${clientId}`, 'utf8'));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  return JSON.parse(
    Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString(),
  );
}

describe('ContentConsumer', () => {
  it('sends the spec’s CTR form with the plaintext client_id, without an Authorization header', async () => {
    const { url, received } = await service({ status: 200, body: included });
    const consumer = new ContentConsumer({
      clientId: 'client-1',
      cipher: { form: 'ctr', key: CTR_KEY, iv: CTR_IV },
      authServerUrl: url,
    });
    const result = await consumer.record({
      userDbkey: new SlotId(SLOT, 'number'),
      amount: 5n,
      cuid: 'game-1',
      requestId: 'r-1',
    });
    expect(result).toEqual({
      status: 'included',
      cuid: 'game-1',
      slot: included.slot,
      userDbkey: SLOT,
      amount: '5',
      requestId: 'r-1',
      txHash: included.tx_hash,
      balance: '95',
      usedBalances: '5',
    });
    expect(received).toHaveLength(1);
    expect(received[0]!.headers.authorization).toBeUndefined();
    expect(received[0]!.body.client_id).toBe('client-1');
    expect(received[0]!.body.encrypted_message).toMatch(/^[0-9a-f]+$/);
    expect(openCtr(received[0]!.body.encrypted_message)).toEqual({
      client_id: 'client-1',
      user_dbkey: SLOT,
      amount: '5',
      cuid: 'game-1',
      request_id: 'r-1',
    });
  });

  it('sends the GCM form (fresh IV, client id as additional data, iat) with HTTP Basic client authentication', async () => {
    const { url, received } = await service({ status: 202, body: { ...included, status: 'queued' } });
    const consumer = new ContentConsumer({
      clientId: 'client 1',
      clientSecret: 's3cr:t',
      cipher: { form: 'gcm', key: GCM_KEY },
      authServerUrl: url,
    });
    const before = Math.floor(Date.now() / 1000);
    const result = await consumer.record({ userDbkey: SLOT, amount: '5', cuid: 'game-1' });
    await consumer.record({ userDbkey: SLOT, amount: '5', cuid: 'game-1' });
    expect(result.status).toBe('queued');
    // RFC 6749 §2.3.1: form-encoded id and secret, then base64.
    const basic = `Basic ${Buffer.from('client+1:s3cr%3At').toString('base64')}`;
    expect(received.map((r) => r.headers.authorization)).toEqual([basic, basic]);
    const payload = openGcm(received[0]!.body.encrypted_message, 'client 1') as Record<string, unknown>;
    expect(payload).toMatchObject({ client_id: 'client 1', user_dbkey: SLOT, amount: '5', cuid: 'game-1' });
    expect(payload.iat).toBeGreaterThanOrEqual(before);
    expect(payload.iat).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    // A fresh IV per message: the same record never gives the same ciphertext.
    expect(received[1]!.body.encrypted_message).not.toBe(received[0]!.body.encrypted_message);
    // Bound to the client id: another one fails the tag.
    expect(() => openGcm(received[0]!.body.encrypted_message, 'client 2')).toThrow();
  });

  it('the CTR form matches `openssl enc -aes-256-ctr` for a fixed payload', () => {
    const plaintext = consumptionPlaintext('c', { userDbkey: SLOT, amount: 5, cuid: 'game-1' });
    expect(plaintext).toBe(`{"client_id":"c","user_dbkey":"${SLOT}","amount":"5","cuid":"game-1"}`);
    // The vector the Python SDK's pure-Python AES is checked against (sdk/python/tests/test_content.py).
    const vector = encryptConsumptionPayload(
      plaintext,
      { form: 'ctr', key: CTR_KEY, iv: 'fffffffffffffffffffffffffffffffe' },
      'c',
    );
    expect(vector).toBe(
      '34bfd42e7c3fab769dc74c20011155c6171e5c52ad287bbaf8ad63b74f2742fdd75bc2b4a2f84eef277c7ef377259e63a92c3c71291b7274b5b9d8f2941c64c63b2c40a41a38f0ef5b815be51ee4f93135',
    );
  });

  it('a refusal is a ConsumptionError with the service’s code; a malformed success is refused too', async () => {
    const refused = await service({
      status: 409,
      body: { success: false, error: 'insufficient_balance', message: 'Not enough content tokens' },
    });
    const consumer = (url: string) =>
      new ContentConsumer({ clientId: 'c', cipher: { form: 'gcm', key: GCM_KEY }, authServerUrl: url });
    const error = await consumer(refused.url)
      .record({ userDbkey: SLOT, amount: 1, cuid: 'g' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConsumptionError);
    expect(error).toMatchObject({
      responseStatus: 409,
      errorCode: 'insufficient_balance',
      message: 'consumption refused (HTTP 409, insufficient_balance): Not enough content tokens',
    });
    const truncated = await service({ status: 200, body: { success: true } });
    await expect(
      consumer(truncated.url).record({ userDbkey: SLOT, amount: 1, cuid: 'g' }),
    ).rejects.toBeInstanceOf(MalformedResponseError);
  });

  it('refuses bad key material and bad records before sending anything', async () => {
    const { url, received } = await service({ status: 200, body: included });
    expect(
      () => new ContentConsumer({ clientId: 'c', cipher: { form: 'ctr', key: CTR_KEY, iv: 'ab' } }),
    ).toThrow(/CTR IV must be 16 bytes/);
    expect(
      () => new ContentConsumer({ clientId: 'c', cipher: { form: 'gcm', key: 'zz'.repeat(32) } }),
    ).toThrow(/GCM key must be 32 bytes/);
    const consumer = new ContentConsumer({
      clientId: 'c',
      cipher: { form: 'gcm', key: GCM_KEY },
      authServerUrl: url,
    });
    for (const record of [
      { userDbkey: '12a', amount: 1, cuid: 'g' },
      { userDbkey: SLOT, amount: 0, cuid: 'g' },
      { userDbkey: SLOT, amount: '1.5', cuid: 'g' },
      { userDbkey: SLOT, amount: 1, cuid: '' },
    ]) {
      await expect(consumer.record(record)).rejects.toBeInstanceOf(TypeError);
    }
    expect(received).toEqual([]);
  });
});
