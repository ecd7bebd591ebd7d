import type { ChildProcess } from 'node:child_process';
import { parseEther, toEventSelector } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { buy, get, newPlayer, newProvider, post } from '../content/contentSupport.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { WebhookReceiver } from './receiver.js';
import { kill9, ready, startService } from './serviceProcess.js';

const BOUGHT = toEventSelector('ContentTokenBought(bytes32,address,address,uint256,uint256,uint256)');

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
 * A content purchase exists only on chain, so its `content.purchased` cannot be written in the transaction
 * of a database change. The window this test kills the service in: the purchase is in a block, the service
 * has not answered (CHAIN_CONFIRMATIONS=2: it waits for one more block, which the idle embedded chain does
 * not make). Without the intent written before the chain write, the restarted service never reports it.
 */
describe('webhooks: kill -9 between a purchase reaching the chain and its answer', () => {
  const receiver = new WebhookReceiver();
  let running: ChildProcess | undefined;
  let first: TestServer | undefined;
  afterAll(async () => {
    if (running) await kill9(running);
    await first?.close();
    await receiver.close();
  });

  it('after a restart, the purchase found on chain is delivered once, under one webhook-id, with its figures', async () => {
    await receiver.start();
    first = await startTestServer();
    const provider = await newProvider(first, 40);
    const player = await newPlayer(first, provider);
    const hook = await post<{ secret: string }>(
      first,
      `/v1/dev-user/clients/${provider.clientId}/webhooks`,
      { url: `${receiver.url}/cut`, events: ['content.purchased'] },
      provider.developer.token,
    );
    expect(hook.status).toBe(201);
    receiver.secrets.set('/cut', hook.body.secret);
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

    let answered = false;
    const answer = buy({ url } as TestServer, provider, player, '0.25').then(
      (a) => ((answered = true), a),
      () => undefined,
    );
    // The purchase lands in a block; the service waits for the second confirmation.
    let logs: RpcLog[] = [];
    for (let i = 0; i < 600 && logs.length === 0; i++) {
      logs = await rpc<RpcLog[]>(chainUrl, 'eth_getLogs', [
        { address: info.body.content_token, topics: [BOUGHT], fromBlock, toBlock: 'latest' },
      ]);
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
    expect(receiver.received.filter((r) => r.path === '/cut')).toHaveLength(0);

    const again = startService(env);
    running = again.child;
    await ready(url, again);
    // The embedded chain came back (from its saved state and the journal), maybe on another port.
    const infoAgain = await get<{ rpc_url: string }>({ url } as TestServer, '/v1/chain/info');
    const chainAgain = infoAgain.body.rpc_url;
    // The chain moves on (a block every half second), so the purchase is two blocks deep.
    const miner = setInterval(() => void rpc(chainAgain, 'evm_mine').catch(() => undefined), 500);
    try {
      await receiver.waitFor((all) => all.some((r) => r.path === '/cut'), 60_000);
    } catch (err) {
      console.log(again.output());
      console.log(dataDir);
      throw err;
    } finally {
      clearInterval(miner);
    }
    // Give a duplicate the chance to show up; none may.
    await new Promise((r) => setTimeout(r, 2_000));
    const unique = receiver.unique('/cut');
    expect(unique).toHaveLength(1);
    expect(unique[0]!.verified).toBe(true);
    const wei = parseEther('0.25');
    expect(unique[0]!.event).toMatchObject({
      type: 'content.purchased',
      data: {
        client_id: provider.clientId,
        cuid: provider.cuid,
        slot_id: player.slotId,
        user_id: String(player.user.uuid),
        amount: wei.toString(),
        native_paid: wei.toString(),
        platform_fee: ((wei * 15n) / 100n).toString(),
        provider_received: (wei - (wei * 15n) / 100n).toString(),
        tx_hash: txHash,
      },
    });
    // The purchase is on the chain once (the journal gave back what the kill cut off, no more).
    const after = await rpc<RpcLog[]>(chainAgain, 'eth_getLogs', [
      { address: info.body.content_token, topics: [BOUGHT], fromBlock, toBlock: 'latest' },
    ]);
    expect(after.map((l) => l.transactionHash)).toEqual([txHash]);
    for (const copy of receiver.received.filter((r) => r.path === '/cut')) {
      expect(copy.id).toBe(unique[0]!.id);
    }
    await kill9(again.child);
    running = undefined;
  }, 300_000);
});
