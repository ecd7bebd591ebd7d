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
  post,
  usageRecordCount,
} from '../content/contentSupport.js';

describe('the chain consistency check after a start', () => {
  let server: TestServer;
  beforeAll(async () => {
    // Without the journal, so the chain can be made to forget what the database believes.
    // The head is polled once an hour: the test rolls the chain back itself, and a poll that saw the rollback
    // first would start the content rewind recovery, which rewrites the very figures the check compares.
    server = await startTestServer({ chain: { journal: false }, content: { headPollMs: 3_600_000 } });
  });
  afterAll(() => server?.close());

  it('finds no difference when the chain holds what the database believes, and names each one when not', async () => {
    const client = chainClient(server);
    const rpc = (method: string, params: unknown[] = []) =>
      client.request({ method: method as 'eth_chainId', params: params as never });
    const snapshot = await rpc('evm_snapshot');
    const provider = await newProvider(server);
    const player = await newPlayer(server, provider);
    expect((await buy(server, provider, player, '300')).status).toBe(200);
    expect(await onChain(server, provider.cuid, player.slot)).toEqual({ balance: 300n, used: 0n });
    // A PIN operation from the main wallet (the database records the wallet as deployed).
    const op = await post(
      server,
      '/v1/pin/verify',
      { user_uuid: player.user.uuid, ...player.pin, calls: [{ to: provider.ownerAddr, value: '1' }] },
      player.user.token,
    );
    expect(op.status).toBe(200);
    // A consumption: the database keeps the slot's settled figures.
    const used = await consume(server, {
      encrypted_message: encryptPayload(provider, payloadOf(provider, player, 50n)),
    });
    expect(used.status).toBe(200);
    for (let i = 0; i < 100 && (await usageRecordCount(server, ['queued', 'sent'])) > 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }

    const clean = await server.services.chainConsistency.run();
    expect(clean.differences).toEqual([]);
    expect(clean.checked).toBeGreaterThanOrEqual(3); // the wallet, the slot, the content balance
    const ready = await get<{ checks: Record<string, string> }>(
      server,
      '/readyz',
      server.services.secrets.adminApiKey,
    );
    expect(ready.status).toBe(200);
    expect(ready.body.checks.chain_consistency).toBe('ok');

    // The chain forgets the player's wallet, slot and purchase (as a chain without a journal would after a crash).
    expect(await rpc('evm_revert', [snapshot])).toBe(true);
    const report = await server.services.chainConsistency.run();
    const kinds = report.differences.map((d) => d.kind).sort();
    expect(kinds).toEqual(expect.arrayContaining(['content_balance', 'slot_owner', 'wallet_not_deployed']));
    const content = report.differences.find((d) => d.kind === 'content_balance')!;
    expect(content).toMatchObject({
      subject: `${provider.cuid} ${player.slot}`,
      database: 'balance 250 used 50',
      chain: 'balance 0 used 0',
    });
    const after = await get<{ checks: Record<string, string> }>(
      server,
      '/readyz',
      server.services.secrets.adminApiKey,
    );
    expect(after.status).toBe(200);
    expect(after.body.checks.chain_consistency).toMatch(
      /^\d+ differences? between the database and the chain/,
    );
  }, 60_000);
});
