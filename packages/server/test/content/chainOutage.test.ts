import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  buy,
  chainClient,
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a chain outage mid-stream loses no accepted consumption', () => {
  let server: TestServer;
  let provider: Provider;
  let player: Player;
  const logLines: string[] = [];

  beforeAll(async () => {
    // The service's log is kept (info and up) so that a drain that runs out can say what happened.
    server = await startTestServer({
      logger: pino(
        { level: 'info' },
        new Writable({
          write(chunk: Buffer, _encoding, done) {
            logLines.push(chunk.toString());
            done();
          },
        }),
      ),
    });
    provider = await newProvider(server);
    player = await newPlayer(server, provider);
    expect((await buy(server, provider, player, '1000000')).status).toBe(200);
  });
  afterAll(() => server?.close());

  it('stops and restarts the embedded anvil while calls keep arriving; every accepted record lands once', async () => {
    const embedded = server.services.chain.embedded!;
    const before = await onChain(server, provider.cuid, player.slot);
    const answers = new Map<string, { status: number; body: Record<string, unknown> }>();
    const outage = (async () => {
      await sleep(800);
      await embedded.stop();
      await sleep(2_000);
      await embedded.start();
    })();
    // Open loop: a call every 10 ms for 3.5 s, whatever the earlier ones are waiting for.
    const calls: Promise<void>[] = [];
    for (let i = 0; i < 350; i++) {
      const requestId = `r${i}-${randomBytes(3).toString('hex')}`;
      const amount = 1n + BigInt(i % 5);
      calls.push(
        consume(server, {
          encrypted_message: encryptPayload(
            provider,
            payloadOf(provider, player, amount, { request_id: requestId }),
          ),
        }).then(
          (res) =>
            void answers.set(requestId, {
              status: res.status,
              body: { ...res.body, amount: amount.toString() },
            }),
        ),
      );
      await sleep(10);
    }
    await Promise.all(calls);
    await outage;

    const statuses = [...answers.values()].map((a) => a.status);
    // Some calls came during the outage and were refused (503, nothing accepted); the rest were accepted.
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 200 || s === 202 || s === 503)).toBe(true);
    const refused = [...answers.values()].filter((a) => a.status === 503);
    expect(
      refused.every((a) => a.body.error === 'chain_unavailable' || a.body.error === 'database_unavailable'),
    ).toBe(true);

    // Everything accepted reaches the chain: wait until the queue is drained (up to a minute: after the
    // restart the journal's recovery and the batcher's retry share two cores with the rest of the suite).
    for (let i = 0; i < 600 && (await usageRecordCount(server, ['queued', 'sent'])) > 0; i++)
      await sleep(100);
    const left = {
      queued: await usageRecordCount(server, ['queued']),
      sent: await usageRecordCount(server, ['sent']),
      failed: await usageRecordCount(server, ['failed']),
    };
    expect(left, left.sent > 0 ? await unsettled(server, logLines) : undefined).toEqual({
      queued: 0,
      sent: 0,
      failed: 0,
    });

    const accepted = [...answers.entries()].filter(([, a]) => a.status !== 503);
    const acceptedSum = accepted.reduce((sum, [, a]) => sum + BigInt(a.body.amount as string), 0n);
    expect(await usageRecordCount(server, ['included'])).toBe(accepted.length);
    expect(await onChain(server, provider.cuid, player.slot)).toEqual({
      balance: before.balance - acceptedSum,
      used: before.used + acceptedSum,
    });
    // Each answered transaction is really on chain.
    const client = chainClient(server);
    const hashes = new Set(
      accepted.filter(([, a]) => a.status === 200).map(([, a]) => a.body.tx_hash as `0x${string}`),
    );
    for (const hash of hashes) expect((await client.getTransactionReceipt({ hash })).status).toBe('success');

    // A refused call changed nothing: retried now (same request_id), it is recorded once.
    const [retryId, retryAnswer] = [...answers.entries()].find(([, a]) => a.status === 503)!;
    const retry = await consume(server, {
      encrypted_message: encryptPayload(
        provider,
        payloadOf(provider, player, BigInt(retryAnswer.body.amount as string), { request_id: retryId }),
      ),
    });
    expect(retry.status).toBe(200);
    expect(BigInt(retry.body.used_balances)).toBe(
      before.used + acceptedSum + BigInt(retryAnswer.body.amount as string),
    );
  }, 180_000);
});

/**
 * What a drain that ran out leaves to read (a CI run once ended with 16 records `sent` after a minute, another
 * with 3 in the stream's first two batches, one naming a transaction the node no longer knew): the batches
 * still `sending` with their last transaction and whether the node holds it unmined, the relayer's mined and
 * pending nonces (a transaction waiting in the pool behind a nonce gap or under the base fee), the batches the
 * batcher still has in flight, the bundler's queue, and the service's own account of the outage.
 */
async function unsettled(server: TestServer, logLines: string[]): Promise<string> {
  const client = chainClient(server);
  const batches = await server.services.database.db
    .selectFrom('content_batches')
    .select(['id', 'state', 'from_block', 'tx_hint', 'records'])
    .where('state', '=', 'sending')
    .execute();
  const withTx = await Promise.all(
    batches.map(async (b) => {
      const tx = b.tx_hint
        ? await client.getTransaction({ hash: b.tx_hint as `0x${string}` }).catch(() => undefined)
        : undefined;
      return {
        ...b,
        tx: tx && {
          nonce: tx.nonce,
          block: tx.blockNumber?.toString() ?? 'pending',
          maxFee: String(tx.maxFeePerGas),
        },
      };
    }),
  );
  const relayer = server.services.chain.telemetry.relayerAddress;
  const [mined, pending, block] = await Promise.all([
    client.getTransactionCount({ address: relayer }),
    client.getTransactionCount({ address: relayer, blockTag: 'pending' }),
    client.getBlock(),
  ]);
  // What the batcher waits on, the bundler's queue, and what the chain layer and the batcher said (not the requests).
  const said = logLines
    .map((line) => JSON.parse(line) as { level: number; msg: string; time: number })
    .filter((entry) => entry.level >= 40 || /batch|bundle|relayer|chain/.test(entry.msg));
  return JSON.stringify({
    batcher: server.services.content.batcher.diagnostics(),
    queuedOperations: server.services.chain.telemetry.queuedOperations(),
    log: said.slice(-60),
    batches: withTx,
    relayer: { mined, pending },
    head: { number: String(block.number), baseFee: String(block.baseFeePerGas) },
  });
}
