import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable } from '../helpers/environment.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  buy,
  consume,
  encryptPayload,
  newPlayer,
  newProvider,
  onChain,
  payloadOf,
  type Player,
  type Provider,
  usageRecordCount,
} from './contentSupport.js';

describe.each([{ postgres: false }, { postgres: true }])(
  'consumption rules (postgres: $postgres)',
  (opts) => {
    let server: TestServer;
    let provider: Provider;
    let other: Provider;
    let player: Player;

    beforeAll(async () => {
      if (opts.postgres && !postgresAvailable) return;
      server = await startTestServer(opts);
      [provider, other] = await Promise.all([newProvider(server), newProvider(server)]);
      player = await newPlayer(server, provider);
      expect((await buy(server, provider, player, '5000')).status).toBe(200);
    });
    afterAll(() => server?.close());

    /** Sends `body`, expects the 4xx, and proves nothing changed on chain or in the queue. */
    async function refused(
      body: { encrypted_message: string; client_id?: string },
      status: number,
      error: string,
    ) {
      const before = await onChain(server, provider.cuid, player.slot);
      const records = await usageRecordCount(server);
      const res = await consume(server, body);
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ success: false, error });
      expect(await onChain(server, provider.cuid, player.slot)).toEqual(before);
      expect(await usageRecordCount(server)).toBe(records);
    }

    it('refuses a payload under the wrong key, and says nothing about why', async (ctx) => {
      if (!server) return ctx.skip();
      const wrong = { key: randomBytes(32).toString('hex'), iv: randomBytes(16).toString('hex') };
      const message = encryptPayload(wrong, payloadOf(provider, player, 1n));
      await refused({ encrypted_message: message }, 401, 'invalid_payload');
      await refused({ encrypted_message: message, client_id: provider.clientId }, 401, 'invalid_payload');
      await refused({ encrypted_message: 'not hex at all' }, 401, 'invalid_payload');
    });

    it('refuses tampered ciphertexts that break the payload', async (ctx) => {
      if (!server) return ctx.skip();
      const message = encryptPayload(provider, payloadOf(provider, player, 1n));
      const flip = (hex: string, byte: number) => {
        const bytes = Buffer.from(hex, 'hex');
        bytes[byte]! ^= 0x01;
        return bytes.toString('hex');
      };
      // The opening brace, a quote, a character of client_id: each leaves no valid payload of this provider.
      for (const byte of [0, 1, 15]) {
        await refused({ encrypted_message: flip(message, byte) }, 401, 'invalid_payload');
        await refused(
          { encrypted_message: flip(message, byte), client_id: provider.clientId },
          401,
          'invalid_payload',
        );
      }
      await refused({ encrypted_message: message.slice(0, -8) }, 401, 'invalid_payload');
    });

    it("refuses a payload naming another provider's client_id", async (ctx) => {
      if (!server) return ctx.skip();
      // Under the other provider's key, naming our client: its client_id is not the key owner's.
      const foreign = encryptPayload(other, payloadOf(provider, player, 1n));
      await refused({ encrypted_message: foreign }, 401, 'invalid_payload');
      await refused({ encrypted_message: foreign, client_id: provider.clientId }, 401, 'invalid_payload');
      await refused({ encrypted_message: foreign, client_id: other.clientId }, 401, 'invalid_payload');
      // Properly the other provider's, but for our cuid and our slot: neither is theirs.
      const crossCuid = encryptPayload(other, {
        ...payloadOf(provider, player, 1n),
        client_id: other.clientId,
      });
      await refused({ encrypted_message: crossCuid }, 404, 'unknown_cuid');
      const crossSlot = encryptPayload(other, {
        ...payloadOf(provider, player, 1n),
        client_id: other.clientId,
        cuid: other.cuid,
      });
      await refused({ encrypted_message: crossSlot }, 404, 'unknown_slot');
    });

    it('refuses an amount over the balance, an unknown slot and malformed amounts', async (ctx) => {
      if (!server) return ctx.skip();
      const { balance } = await onChain(server, provider.cuid, player.slot);
      await refused(
        { encrypted_message: encryptPayload(provider, payloadOf(provider, player, balance + 1n)) },
        409,
        'insufficient_balance',
      );
      const unknownSlot = {
        ...payloadOf(provider, player, 1n),
        user_dbkey: `9${randomBytes(8).readBigUInt64BE() % 10n ** 17n}`.padEnd(19, '7'),
      };
      await refused({ encrypted_message: encryptPayload(provider, unknownSlot) }, 404, 'unknown_slot');
      for (const amount of ['0', '-1', '1.5', 'abc', '']) {
        await refused(
          { encrypted_message: encryptPayload(provider, payloadOf(provider, player, amount)) },
          401,
          'invalid_payload',
        );
      }
    });

    it('finds the key with or without client_id, and counts a retried request_id once', async (ctx) => {
      if (!server) return ctx.skip();
      const before = await onChain(server, provider.cuid, player.slot);
      const requestId = `req-${randomBytes(4).toString('hex')}`;
      const message = encryptPayload(provider, payloadOf(provider, player, 3n, { request_id: requestId }));
      const first = await consume(server, { encrypted_message: message });
      expect(first.status).toBe(200);
      const again = await consume(server, { encrypted_message: message, client_id: provider.clientId });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(await onChain(server, provider.cuid, player.slot)).toEqual({
        balance: before.balance - 3n,
        used: before.used + 3n,
      });
      // The same request_id with a different amount is a conflict, and changes nothing.
      await refused(
        {
          encrypted_message: encryptPayload(
            provider,
            payloadOf(provider, player, 4n, { request_id: requestId }),
          ),
        },
        409,
        'request_id_reused',
      );
    });

    it('200 concurrent consumptions against a balance that covers 100: exactly 100 succeed', async (ctx) => {
      if (!server) return ctx.skip();
      const racer = await newPlayer(server, provider, '1');
      expect((await buy(server, provider, racer, '1000')).status).toBe(200);
      const message = encryptPayload(provider, payloadOf(provider, racer, 10n));
      const answers = await Promise.all(
        Array.from({ length: 200 }, () => consume(server, { encrypted_message: message })),
      );
      const ok = answers.filter((a) => a.status === 200);
      const refusedAnswers = answers.filter((a) => a.status !== 200);
      expect(ok).toHaveLength(100);
      expect(refusedAnswers.every((a) => a.status === 409 && a.body.error === 'insufficient_balance')).toBe(
        true,
      );
      expect(await onChain(server, provider.cuid, racer.slot)).toEqual({ balance: 0n, used: 1000n });
      // Every success names the transaction that carried it; the figures after each record are distinct steps.
      const usedAfter = ok
        .map((a) => BigInt(a.body.used_balances))
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      expect(usedAfter).toEqual(Array.from({ length: 100 }, (_, i) => BigInt((i + 1) * 10)));
      const transactions = new Set(ok.map((a) => a.body.tx_hash));
      expect(transactions.size).toBeLessThan(100);
      // Admission control refused the other 100 itself: the chain never had to refuse a record.
      const failed = await server.services.database.db
        .selectFrom('content_usage')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('state', '=', 'failed')
        .executeTakeFirst();
      expect(Number(failed?.n)).toBe(0);
    });
  },
);
