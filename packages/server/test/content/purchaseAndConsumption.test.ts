import { dauthContentTokenAbi } from '@dauth/contracts';
import { parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  buy,
  chainClient,
  consume,
  encryptPayload,
  get,
  newPlayer,
  newProvider,
  onChain,
  payloadOf,
  type Player,
  type Provider,
} from './contentSupport.js';

interface OpenApi {
  paths: Record<
    string,
    {
      get: {
        responses: Record<
          string,
          { content: Record<string, { schema: { properties: Record<string, { type: string }> } }> }
        >;
      };
    }
  >;
}

describe('content tokens: purchase, consumption and public balance (real chain)', () => {
  let server: TestServer;
  let provider: Provider;
  let player: Player;

  beforeAll(async () => {
    server = await startTestServer();
    provider = await newProvider(server, 40);
    player = await newPlayer(server, provider);
  });
  afterAll(() => server?.close());

  it('splits a purchase 15% / 85% to the exact wei in the same transaction', async () => {
    const client = chainClient(server);
    const treasuryAddress = await client.readContract({
      address: server.services.chain.info.contracts.content_token,
      abi: dauthContentTokenAbi,
      functionName: 'treasury',
    });
    const [treasuryBefore, ownerBefore, walletBefore] = await Promise.all([
      client.getBalance({ address: treasuryAddress }),
      client.getBalance({ address: provider.ownerAddr }),
      client.getBalance({ address: player.wallet }),
    ]);
    // 0.123456789012345679 ether: 15% of it is not a whole number of wei, so the rounding is visible.
    const res = await buy(server, provider, player, '0.123456789012345679');
    expect(res.status).toBe(200);
    const paid = 123456789012345679n;
    const fee = (paid * 15n) / 100n;
    expect(res.body).toEqual({
      success: true,
      tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      token_amount: paid.toString(),
      native_paid: paid.toString(),
      platform_fee: fee.toString(),
      provider_received: (paid - fee).toString(),
    });
    const receipt = await client.getTransactionReceipt({ hash: res.body.tx_hash as `0x${string}` });
    const block = receipt.blockNumber;
    const [treasuryAfter, ownerAfter, walletAfter] = await Promise.all([
      client.getBalance({ address: treasuryAddress, blockNumber: block }),
      client.getBalance({ address: provider.ownerAddr, blockNumber: block }),
      client.getBalance({ address: player.wallet, blockNumber: block }),
    ]);
    expect(treasuryAfter - treasuryBefore).toBe(fee);
    expect(ownerAfter - ownerBefore).toBe(paid - fee);
    // Gas is sponsored: the wallet paid exactly the amount.
    expect(walletBefore - walletAfter).toBe(paid);
    expect(await onChain(server, provider.cuid, player.slot)).toEqual({ balance: paid, used: 0n });
  });

  it('reads "wei or ether" amounts: integer wei, a decimal and the " ether" suffix', async () => {
    const before = await onChain(server, provider.cuid, player.slot);
    expect((await buy(server, provider, player, '1000')).body).toMatchObject({ token_amount: '1000' });
    expect((await buy(server, provider, player, '0.5')).body).toMatchObject({
      token_amount: parseEther('0.5').toString(),
    });
    expect((await buy(server, provider, player, '1 ether')).body).toMatchObject({
      token_amount: parseEther('1').toString(),
    });
    const after = await onChain(server, provider.cuid, player.slot);
    expect(after.balance - before.balance).toBe(1000n + parseEther('1.5'));
    const bad = await buy(server, provider, player, '1.2.3');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, error: 'invalid_amount', field: 'amount' });
    expect(await onChain(server, provider.cuid, player.slot)).toEqual(after);
  });

  it('consumption moves exactly the amount from balance to used_balances, on chain and in the answer', async () => {
    const before = await onChain(server, provider.cuid, player.slot);
    const res = await consume(server, {
      encrypted_message: encryptPayload(provider, payloadOf(provider, player, 777n)),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      balance: (before.balance - 777n).toString(),
      used_balances: (before.used + 777n).toString(),
      cuid: provider.cuid,
      slot: player.slot,
      user_dbkey: player.slotId,
      amount: '777',
    });
    const after = await onChain(server, provider.cuid, player.slot);
    expect(after).toEqual({ balance: before.balance - 777n, used: before.used + 777n });
    const receipt = await chainClient(server).getTransactionReceipt({
      hash: res.body.tx_hash as `0x${string}`,
    });
    expect(receipt.status).toBe('success');

    // The public read right after the answer already shows it (no stale cache), without authentication.
    const pub = await get(
      server,
      `/v1/development-api/balance_adex/${player.slot.toLowerCase()}?cuid=${provider.cuid}`,
    );
    expect(pub.status).toBe(200);
    expect(pub.body).toEqual({
      success: true,
      slot: player.slot,
      balance: after.balance.toString(),
      used_balances: after.used.toString(),
      cuid: provider.cuid,
    });
    // Without ?cuid= the slot's app's only cuid is used.
    const implicit = await get(server, `/v1/development-api/balance_adex/${player.slot}`);
    expect(implicit.body).toEqual(pub.body);
  });

  it('balance_adex writes its answer as the documented 200 schema: the same fields, in order, as JSON', async () => {
    const path = `/v1/development-api/balance_adex/${player.slot}?cuid=${provider.cuid}`;
    // The first read may be a cache miss (a promise), the second a hit: both answers are the route's own text.
    for (let i = 0; i < 2; i++) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      // Far from its limit (6,000 a minute) a caller gets no x-ratelimit-* headers (docs/security.md).
      expect(response.headers.get('x-ratelimit-remaining')).toBeNull();
      const text = await response.text();
      const openapi = (await get<OpenApi>(server, '/docs/json')).body;
      const documented =
        openapi.paths['/v1/development-api/balance_adex/{slot_address}']!.get.responses['200']!.content[
          'application/json'
        ]!.schema;
      const body = JSON.parse(text) as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(Object.keys(documented.properties));
      for (const [field, schema] of Object.entries(documented.properties))
        expect(typeof body[field], field).toBe(schema.type);
      expect(body).toMatchObject({ success: true, slot: player.slot, cuid: provider.cuid });
    }
  });
});
