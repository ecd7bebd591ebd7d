import type { ChildProcess } from 'node:child_process';
import { parseEther, toEventSelector } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import {
  admin,
  buy,
  consume,
  encryptPayload,
  get,
  newPlayer,
  newProvider,
  payloadOf,
  post,
  type Player,
  type Provider,
} from '../content/contentSupport.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { type Received, WebhookReceiver } from './receiver.js';
import { kill9, ready, startService } from './serviceProcess.js';

const BOUGHT = toEventSelector('ContentTokenBought(bytes32,address,address,uint256,uint256,uint256)');
const RELEASED = toEventSelector('Released(bytes32,address,address,uint256,uint256)');

async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const answer = (await response.json()) as { result?: T; error?: { message: string } };
  if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
  return answer.result as T;
}

interface RpcLog {
  transactionHash: string;
  blockNumber: string;
  topics: string[];
}

/**
 * A content purchase and a release exist only on chain, so their events cannot be written in the
 * transaction of a database change. The window these tests kill the service in: the change is in a block,
 * the service has not answered (CHAIN_CONFIRMATIONS=2: it waits for one more block, which the idle
 * embedded chain does not make). Without the intent written before the chain write, the restarted service
 * never reports the change.
 */
describe('webhooks: kill -9 between a chain-only change reaching the chain and its answer', () => {
  const receiver = new WebhookReceiver();
  let running: ChildProcess | undefined;
  let first: TestServer | undefined;
  afterAll(async () => {
    if (running) await kill9(running);
    await first?.close();
    await receiver.close();
  });

  /**
   * Sets up in process (`prepare`, with an endpoint at `path` for `type`), then runs `src/main.ts` with
   * CHAIN_CONFIRMATIONS=2, sends `change`, kills the service once `topic` is in a block, restarts it,
   * lets the chain move on, and returns the deliveries and the change's transaction.
   */
  async function cutOff(
    path: string,
    type: string,
    topic: string,
    prepare: (server: TestServer) => Promise<{ provider: Provider; player: Player }>,
    change: (url: string, parts: { provider: Provider; player: Player }) => Promise<unknown>,
  ): Promise<{
    unique: Received[];
    all: Received[];
    txHash: string;
    parts: { provider: Provider; player: Player };
  }> {
    if (!receiver.url) await receiver.start();
    first = await startTestServer();
    const parts = await prepare(first);
    const hook = await post<{ secret: string }>(
      first,
      `/v1/dev-user/clients/${parts.provider.clientId}/webhooks`,
      { url: `${receiver.url}${path}`, events: [type] },
      parts.provider.developer.token,
    );
    expect(hook.status).toBe(201);
    receiver.secrets.set(path, hook.body.secret);
    const { dataDir, url } = first;
    await first.close();
    first = undefined;

    const env = {
      HOST: '127.0.0.1',
      PORT: new URL(url).port,
      PUBLIC_URL: url,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      SCRYPT_LOG_N: '14',
      CHAIN_CONFIRMATIONS: '2',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_RETRY_BASE_MS: '50',
      WEBHOOK_RETRY_MAX_MS: '200',
      WEBHOOK_WORKER_INTERVAL_MS: '50',
    };
    const service = startService(env);
    running = service.child;
    await ready(url, service);
    const info = await get<{ rpc_url: string; content_token: string }>(
      { url } as TestServer,
      '/v1/chain/info',
    );
    const chainUrl = info.body.rpc_url;
    const fromBlock = await rpc<string>(chainUrl, 'eth_blockNumber');
    const filter = { address: info.body.content_token, topics: [topic], fromBlock, toBlock: 'latest' };

    let answered = false;
    const answer = change(url, parts).then(
      () => (answered = true),
      () => undefined,
    );
    // The change lands in a block; the service waits for the second confirmation.
    let logs: RpcLog[] = [];
    for (let i = 0; i < 600 && logs.length === 0; i++) {
      logs = await rpc<RpcLog[]>(chainUrl, 'eth_getLogs', [filter]);
      if (logs.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(logs).toHaveLength(1);
    const txHash = logs[0]!.transactionHash;
    await new Promise((r) => setTimeout(r, 300));
    expect(answered).toBe(false);
    await kill9(service.child);
    running = undefined;
    await answer;
    expect(answered).toBe(false);
    expect(receiver.received.filter((r) => r.path === path)).toHaveLength(0);

    const again = startService(env);
    running = again.child;
    await ready(url, again);
    // The embedded chain came back (from its saved state and the journal), maybe on another port.
    const chainAgain = (await get<{ rpc_url: string }>({ url } as TestServer, '/v1/chain/info')).body.rpc_url;
    // The chain moves on (a block every half second), so the change is two blocks deep.
    const miner = setInterval(() => void rpc(chainAgain, 'evm_mine').catch(() => undefined), 500);
    try {
      await receiver.waitFor((all) => all.some((r) => r.path === path), 60_000);
    } catch (err) {
      console.log(again.output());
      throw err;
    } finally {
      clearInterval(miner);
    }
    // Give a duplicate the chance to show up; none may.
    await new Promise((r) => setTimeout(r, 2_000));
    // The change is on the chain once (the journal gave back what the kill cut off, no more).
    const after = await rpc<RpcLog[]>(chainAgain, 'eth_getLogs', [filter]);
    expect(after.map((l) => l.transactionHash)).toEqual([txHash]);
    await kill9(again.child);
    running = undefined;
    const all = receiver.received.filter((r) => r.path === path);
    return { unique: receiver.unique(path), all, txHash, parts };
  }

  it('a purchase: after a restart it is found on chain and delivered once, under one webhook-id, with its figures', async () => {
    const { unique, all, txHash, parts } = await cutOff(
      '/cut-purchase',
      'content.purchased',
      BOUGHT,
      async (server) => {
        const provider = await newProvider(server, 40);
        return { provider, player: await newPlayer(server, provider) };
      },
      (url, { provider, player }) => buy({ url } as TestServer, provider, player, '0.25'),
    );
    expect(unique).toHaveLength(1);
    expect(unique[0]!.verified).toBe(true);
    const wei = parseEther('0.25');
    expect(unique[0]!.event).toMatchObject({
      type: 'content.purchased',
      data: {
        client_id: parts.provider.clientId,
        cuid: parts.provider.cuid,
        slot_id: parts.player.slotId,
        slot_address: parts.player.slot,
        user_id: String(parts.player.user.uuid),
        amount: wei.toString(),
        native_paid: wei.toString(),
        platform_fee: ((wei * 15n) / 100n).toString(),
        provider_received: (wei - (wei * 15n) / 100n).toString(),
        tx_hash: txHash,
      },
    });
    for (const copy of all) expect(copy.id).toBe(unique[0]!.id);
  }, 300_000);

  it('a release: after a restart it is found on chain and delivered once, with the usage and the amount paid', async () => {
    const { unique, all, txHash, parts } = await cutOff(
      '/cut-release',
      'content.released',
      RELEASED,
      async (server) => {
        const provider = await newProvider(server, 40);
        const player = await newPlayer(server, provider);
        expect((await buy(server, provider, player, '0.5')).status).toBe(200);
        const used = await consume(server, {
          encrypted_message: encryptPayload(provider, payloadOf(provider, player, 200n)),
        });
        expect(used.status).toBe(200);
        for (const [path, body] of [
          ['/v1/admin/content/release', { cuid: provider.cuid, enabled: true }],
          ['/v1/admin/content/pool', { cuid: provider.cuid, amount: '1000000000000000000' }],
        ] as const) {
          expect((await post(server, path, body, admin(server))).status).toBe(200);
        }
        return { provider, player };
      },
      (url, { provider, player }) =>
        post(
          { url } as TestServer,
          '/v1/development-api/release_used_balance',
          { client_id: provider.clientId, cuid: provider.cuid, slot: player.slot },
          provider.developer.token,
        ),
    );
    expect(unique).toHaveLength(1);
    expect(unique[0]!.verified).toBe(true);
    expect(unique[0]!.event).toMatchObject({
      type: 'content.released',
      data: {
        client_id: parts.provider.clientId,
        cuid: parts.provider.cuid,
        slot_address: parts.player.slot,
        usage: '200',
        // release_per 40: 200 × 40 / 100 wei.
        amount: '80',
        tx_hash: txHash,
      },
    });
    for (const copy of all) expect(copy.id).toBe(unique[0]!.id);
  }, 300_000);
});
