import { createCipheriv, createHash, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AnvilInstance, dauthContentTokenAbi, dauthDexAbi, startAnvil } from '@dauth/contracts';
import { createCallbackHandler, DauthClient, RedisCallbackRelay, type SlotInfo } from '@dauth/sdk';
import { Redis } from 'ioredis';
import pg from 'pg';
import { type Address, createPublicClient, getAddress, http as viemHttp, parseEther } from 'viem';
import { generatePrivateKey } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgSchema } from '../helpers/databases.js';
import {
  postgresAvailable,
  redisAvailable,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
} from '../helpers/environment.js';
import { eventually } from '../chain/faults/faultNode.js';
import { freePort } from '../helpers/server.js';
import { type ReplicaProcess, replicaProcesses } from './replicaProcesses.js';

const ADMIN_KEY = 'journey-admin-key-0123456789';
const PASSWORD = 'correct horse battery';

interface Answer<T> {
  status: number;
  body: T;
}

async function send<T = Record<string, unknown>>(
  method: 'GET' | 'POST',
  url: string,
  body?: unknown,
  token?: string,
): Promise<Answer<T>> {
  const res = await fetch(url, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as T };
}

const pinOf = (pin: string) => {
  const pin_salt = randomBytes(32).toString('hex');
  return {
    pin_hash: createHash('sha256')
      .update(pin + pin_salt, 'utf8')
      .digest('hex'),
    pin_salt,
  };
};

/** What a provider backend sends: hex AES-256-CTR of the payload's JSON under its key and IV (the spec's form). */
function sealCtr(keyHex: string, ivHex: string, payload: unknown): string {
  const cipher = createCipheriv('aes-256-ctr', Buffer.from(keyHex, 'hex'), Buffer.from(ivHex, 'hex'));
  return Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]).toString('hex');
}

/**
 * Issue 16: the whole user journey spread over two dauth processes, as an operator runs them: one
 * PostgreSQL, one Redis, one external anvil (`CHAIN_RPC_URL`), each replica with its own relayer key. Every
 * step starts on one replica and finishes on the other; at the end one replica is `kill -9`ed in the middle
 * of a consumption stream, the other carries on, and nothing either accepted is lost or counted twice.
 */
describe.skipIf(!postgresAvailable || !redisAvailable)('the full flow across two replica processes', () => {
  let node: AnvilInstance;
  let schema: Awaited<ReturnType<typeof createPgSchema>>;
  let replicas: ReplicaProcess[];
  let A: string;
  let B: string;
  const redisClients: Redis[] = [];
  const closers: (() => Promise<unknown>)[] = [];

  // Shared along the journey.
  let developer: { uuid: number; token: string };
  let player: { uuid: number; email: string; token: string; wallet: Address; pin: Record<string, string> };
  let app: { clientId: string; clientSecret: string };
  let sdkCallbackUrl: string;
  /** The Redis channel prefix both SDK instances of the game backend share. */
  const relayPrefix = `journey:${randomUUID()}:`;
  let slot: SlotInfo;
  let provider: { cuid: string; key: string; iv: string; ownerAddr: Address };
  let contracts: { content_token: Address; dex: Address };

  const chain = () => createPublicClient({ transport: viemHttp(node.rpcUrl) });
  const admin = (base: string, path: string, body: unknown) =>
    send('POST', `${base}${path}`, body, ADMIN_KEY);

  beforeAll(async () => {
    node = await startAnvil();
    schema = await createPgSchema();
    const ports = [await freePort(), await freePort()];
    replicas = replicaProcesses({
      count: 2,
      rpcUrl: node.rpcUrl,
      pgSchema: schema.schema,
      publicUrl: `http://127.0.0.1:${await freePort()}`,
      relayerKeys: [generatePrivateKey(), generatePrivateKey()],
      adminKey: ADMIN_KEY,
      ports,
    });
    // A deploys the contracts on the external chain; B starts from the deployment record A left.
    await replicas[0]!.start();
    await replicas[1]!.start();
    [A, B] = replicas.map((r) => r.url) as [string, string];
    const funded = await admin(A, '/v1/admin/funding', {
      paymaster_deposit: parseEther('20').toString(),
      relayer: parseEther('10').toString(),
      operator: parseEther('5').toString(),
    });
    expect(funded.status, JSON.stringify(funded.body)).toBe(200);
    const info = await send<{ content_token: Address; dex: Address }>('GET', `${B}/v1/chain/info`);
    contracts = info.body;
  }, 300_000);

  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await Promise.all(redisClients.map((r) => r.quit().catch(() => undefined)));
    for (const r of replicas ?? []) await r.kill();
    await node?.stop();
    await schema?.drop();
  }, 120_000);

  it('signs up on A and logs in on B; a developer registers an app', async () => {
    const email = `journey-${randomBytes(5).toString('hex')}@example.com`;
    expect((await send('POST', `${A}/v1/dev-user/register`, { email, password: PASSWORD })).status).toBe(201);
    const login = await send<{ token: string; uuid: string }>('POST', `${B}/v1/dev-user/login_devuser`, {
      email,
      password: PASSWORD,
    });
    expect(login.status).toBe(200);
    player = { uuid: Number(login.body.uuid), email, token: login.body.token, wallet: '0x', pin: {} };
    // The token B issued is good on A.
    expect((await send('GET', `${A}/v1/dev-user/clients`, undefined, player.token)).status).toBe(200);

    const devEmail = `studio-${randomBytes(5).toString('hex')}@example.com`;
    await send('POST', `${B}/v1/dev-user/register`, { email: devEmail, password: PASSWORD });
    const devLogin = await send<{ token: string; uuid: string }>('POST', `${A}/v1/dev-user/login_devuser`, {
      email: devEmail,
      password: PASSWORD,
    });
    developer = { uuid: Number(devLogin.body.uuid), token: devLogin.body.token };

    // The game backend's callback route: the second SDK process's server (see the backend step).
    const relay = new RedisCallbackRelay({
      publisher: track(new Redis(TEST_REDIS_URL)),
      subscriber: track(new Redis(TEST_REDIS_URL)),
      channelPrefix: relayPrefix,
    });
    // This instance only takes callbacks (its credentials are never used): a second process of one backend.
    const receiving = new DauthClient({
      clientId: 'callbacks-only',
      clientSecret: 'callbacks-only',
      redirectUri: 'http://127.0.0.1/unused',
      authServerUrl: B,
      callbackRelay: relay,
    });
    const handle = createCallbackHandler(receiving);
    const callbackServer = http.createServer((req, res) => handle(req, res));
    await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve));
    sdkCallbackUrl = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/dauth/callback`;
    closers.push(
      () => receiving.shutdown(),
      () => new Promise((resolve) => callbackServer.close(resolve)),
      () => relay.close(),
    );

    const created = await send<{ client_id: string; client_secret: string }>(
      'POST',
      `${A}/v1/dev-user/clients`,
      { name: 'Journey game', redirect_uris: [sdkCallbackUrl, 'http://127.0.0.1:9/cb'], dapp: true },
      developer.token,
    );
    expect(created.status).toBe(201);
    app = { clientId: created.body.client_id, clientSecret: created.body.client_secret };
  });

  function track(redis: Redis): Redis {
    redisClients.push(redis);
    return redis;
  }

  it('authorizes on A, exchanges the code on B, validates and revokes across', async () => {
    const authorize = await fetch(
      `${A}/oauth/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: app.clientId,
        redirect_uri: 'http://127.0.0.1:9/cb',
        state: 'journey',
      })}`,
      { headers: { authorization: `Bearer ${player.token}` }, redirect: 'manual' },
    );
    expect(authorize.status).toBe(302);
    const location = new URL(authorize.headers.get('location')!);
    expect(location.searchParams.get('state')).toBe('journey');
    const tokens = await send<{ access_token: string; refresh_token: string; user_id: number }>(
      'POST',
      `${B}/oauth/token`,
      {
        grant_type: 'authorization_code',
        client_id: app.clientId,
        client_secret: app.clientSecret,
        code: location.searchParams.get('code'),
        redirect_uri: 'http://127.0.0.1:9/cb',
      },
    );
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect(Number(tokens.body.user_id)).toBe(player.uuid);

    const access = tokens.body.access_token;
    expect((await send('GET', `${A}/v1/oauth/validate`, undefined, access)).status).toBe(200);
    expect((await send('GET', `${B}/v1/oauth/validate`, undefined, access)).status).toBe(200);
    const revoked = await fetch(`${A}/oauth/revoke`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ token: access }).toString(),
    });
    expect(revoked.status).toBe(200);
    // Revoked on A: refused on B at once (the revocation bus), and on A.
    expect((await send('GET', `${B}/v1/oauth/validate`, undefined, access)).status).toBe(401);
    expect((await send('GET', `${A}/v1/oauth/validate`, undefined, access)).status).toBe(401);
    // The code B redeemed is spent on A too.
    const replay = await send('POST', `${A}/oauth/token`, {
      grant_type: 'authorization_code',
      client_id: app.clientId,
      client_secret: app.clientSecret,
      code: location.searchParams.get('code'),
      redirect_uri: 'http://127.0.0.1:9/cb',
    });
    expect(replay.status).toBe(400);
  });

  it('registers a PIN on A; operations verified on A and B at once for the same wallet all land', async () => {
    const pin = pinOf('246810');
    const registered = await send<{ data: { address: Address; key_share_user: string }[] }>(
      'POST',
      `${A}/v1/pin/register`,
      { user_uuid: player.uuid, ...pin },
      player.token,
    );
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    player.wallet = getAddress(registered.body.data[0]!.address);
    player.pin = { ...pin, key_share_user: registered.body.data[0]!.key_share_user };
    expect(
      (await admin(B, '/v1/admin/faucet', { address: player.wallet, native: parseEther('10').toString() }))
        .status,
    ).toBe(200);

    const recipients = Array.from({ length: 4 }, () => getAddress(`0x${randomBytes(20).toString('hex')}`));
    const answers = await Promise.all(
      recipients.map((to, i) =>
        send(
          'POST',
          `${i % 2 === 0 ? A : B}/v1/pin/verify`,
          { user_uuid: player.uuid, ...player.pin, calls: [{ to, value: String(1000 + i) }] },
          player.token,
        ),
      ),
    );
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    for (const [i, to] of recipients.entries()) {
      expect(await chain().getBalance({ address: to })).toBe(BigInt(1000 + i));
    }
  });

  it('runs a backend authorize on A whose callback reaches the other SDK process and completes through B', async () => {
    // The waiting SDK instance talks to A for authorize and to B for get_token (a round-robin balancer would
    // do the same); the callback lands on the other instance's server (registered as the app's redirect URI)
    // and comes back through Redis.
    const waitingRelay = new RedisCallbackRelay({
      publisher: track(new Redis(TEST_REDIS_URL)),
      subscriber: track(new Redis(TEST_REDIS_URL)),
      channelPrefix: relayPrefix,
    });
    closers.push(() => waitingRelay.close());
    const calls: string[] = [];
    const waiting = new DauthClient({
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri: sdkCallbackUrl,
      authServerUrl: A,
      callbackRelay: waitingRelay,
      httpClient: (url, init) => {
        const routed = url.includes('/v1/oauth-meta/get_token') ? url.replace(A, B) : url;
        calls.push(routed);
        return fetch(routed, init);
      },
    });
    closers.push(() => waiting.shutdown());
    slot = await waiting.getSlotInfo({ jwt: player.token, timeout: 20_000 });
    expect(calls.some((u) => u.startsWith(`${A}/v1/oauth-meta/authorize`))).toBe(true);
    expect(calls.some((u) => u.startsWith(`${B}/v1/oauth-meta/get_token`))).toBe(true);
    expect(slot.content_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    // The dex records the player's wallet as the slot's owner.
    const owner = await chain().readContract({
      address: contracts.dex,
      abi: dauthDexAbi,
      functionName: 'ownerOf',
      args: [BigInt(slot.id.value)],
    });
    expect(owner).toBe(player.wallet);
  });

  it('buys content on B, consumes on both, releases on A', async () => {
    const cuid = `journey-${randomBytes(4).toString('hex')}`;
    const ownerAddr = getAddress(`0x${randomBytes(20).toString('hex')}`);
    const registered = await send<{ encryption_key: string; encryption_iv: string }>(
      'POST',
      `${A}/v1/development-api/init_permission_provider`,
      { client_id: app.clientId, cuid, release_per: 50, owner_addr: ownerAddr },
      developer.token,
    );
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    provider = { cuid, key: registered.body.encryption_key, iv: registered.body.encryption_iv, ownerAddr };

    const bought = await send<{ token_amount: string }>(
      'POST',
      `${B}/v1/development-api/user_buy_content_token`,
      { client_id: app.clientId, user_dbkey: slot.id.value, amount: '100000', cuid, ...player.pin },
      player.token,
    );
    expect(bought.status, JSON.stringify(bought.body)).toBe(200);
    expect(bought.body.token_amount).toBe('100000');

    const answers = await Promise.all(
      Array.from({ length: 10 }, async (_, i) =>
        send<{ used_balances: string }>(
          'POST',
          `${i % 2 ? A : B}/v1/development-api/increase_used_content_token`,
          {
            encrypted_message: sealCtr(provider.key, provider.iv, {
              client_id: app.clientId,
              user_dbkey: slot.id.value,
              amount: '10',
              cuid,
              request_id: randomUUID(),
            }),
          },
        ),
      ),
    );
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(await figures()).toEqual({ balance: 100_000n - 100n, used: 100n });
    // Read-your-writes: both replicas answer the chain's figures at once.
    for (const base of [A, B]) {
      const read = await send<{ balance: string; used_balances: string }>(
        'GET',
        `${base}/v1/development-api/balance_adex/${slot.content_address}?cuid=${cuid}`,
      );
      expect(read.body).toMatchObject({ balance: '99900', used_balances: '100' });
    }

    expect((await admin(B, '/v1/admin/content/release', { cuid, enabled: true })).status).toBe(200);
    expect(
      (await admin(B, '/v1/admin/content/pool', { cuid, amount: parseEther('1').toString() })).status,
    ).toBe(200);
    const ownerBefore = await chain().getBalance({ address: ownerAddr });
    const released = await send<{ released_amount: string }>(
      'POST',
      `${A}/v1/development-api/release_used_balance`,
      { client_id: app.clientId, cuid, slot: slot.content_address },
      developer.token,
    );
    expect(released.status, JSON.stringify(released.body)).toBe(200);
    expect(released.body.released_amount).toBe('50'); // 50% of the 100 used
    expect(await chain().getBalance({ address: ownerAddr })).toBe(ownerBefore + 50n);
  });

  const figures = async () => {
    const read = (functionName: 'balanceOf' | 'usedBalanceOf') =>
      chain().readContract({
        address: contracts.content_token,
        abi: dauthContentTokenAbi,
        functionName,
        args: [provider.cuid, getAddress(slot.content_address!)],
      });
    return { balance: await read('balanceOf'), used: await read('usedBalanceOf') };
  };

  it('sells the slot: listed on A by its owner, bought on B for exactly the price', async () => {
    const email = `buyer-${randomBytes(5).toString('hex')}@example.com`;
    await send('POST', `${B}/v1/dev-user/register`, { email, password: PASSWORD });
    const login = await send<{ token: string; uuid: string }>('POST', `${B}/v1/dev-user/login_devuser`, {
      email,
      password: PASSWORD,
    });
    const buyerPin = pinOf('135790');
    const wallet = await send<{ data: { address: Address; key_share_user: string }[] }>(
      'POST',
      `${B}/v1/pin/register`,
      { user_uuid: Number(login.body.uuid), ...buyerPin },
      login.body.token,
    );
    expect(wallet.status).toBe(200);
    const buyerWallet = getAddress(wallet.body.data[0]!.address);
    await admin(A, '/v1/admin/faucet', { address: buyerWallet, native: parseEther('3').toString() });

    const price = parseEther('1.25');
    const listed = await send<{ listing: { id: string } }>(
      'POST',
      `${A}/v1/market/listings`,
      { user_id: String(player.uuid), client_id: app.clientId, price: price.toString(), ...player.pin },
      player.token,
    );
    expect(listed.status, JSON.stringify(listed.body)).toBe(201);
    const before = {
      seller: await chain().getBalance({ address: player.wallet }),
      buyer: await chain().getBalance({ address: buyerWallet }),
    };
    const sold = await send<{ tx_hash: string }>(
      'POST',
      `${B}/v1/market/listings/${listed.body.listing.id}/purchase`,
      { ...buyerPin, key_share_user: wallet.body.data[0]!.key_share_user },
      login.body.token,
    );
    expect(sold.status, JSON.stringify(sold.body)).toBe(200);
    expect(await chain().getBalance({ address: player.wallet })).toBe(before.seller + price);
    expect(await chain().getBalance({ address: buyerWallet })).toBe(before.buyer - price);
    expect(
      await chain().readContract({
        address: contracts.dex,
        abi: dauthDexAbi,
        functionName: 'ownerOf',
        args: [BigInt(slot.id.value)],
      }),
    ).toBe(buyerWallet);
  });

  it('a replica killed mid-stream: the other carries on, and every accepted consumption counts once', async () => {
    const start = await figures();
    let accepted = 0n;
    let unknown = 0n;
    let stop = false;
    const refusals: Record<string, number> = {};
    const caller = async (i: number) => {
      while (!stop) {
        const base = i % 2 === 0 ? A : B;
        const message = sealCtr(provider.key, provider.iv, {
          client_id: app.clientId,
          user_dbkey: slot.id.value,
          amount: '1',
          cuid: provider.cuid,
          request_id: randomUUID(),
        });
        try {
          const res = await send('POST', `${base}/v1/development-api/increase_used_content_token`, {
            encrypted_message: message,
          });
          if (res.status === 200 || res.status === 202) accepted += 1n;
          else refusals[res.status] = (refusals[res.status] ?? 0) + 1;
        } catch {
          // B is gone: this call's outcome is unknown (accepted or not), and the caller moves to A.
          unknown += 1n;
          if (base === B) i += 1;
        }
      }
    };
    const callers = Array.from({ length: 8 }, (_, i) => caller(i));
    while (accepted < 60n) await new Promise((r) => setTimeout(r, 20));
    await replicas[1]!.kill();
    const atKill = accepted;
    // A carries on alone.
    while (accepted < atKill + 60n) await new Promise((r) => setTimeout(r, 20));
    stop = true;
    await Promise.all(callers);
    expect(Object.keys(refusals), JSON.stringify(refusals)).toEqual([]);

    // B's records that it had stored but not sent are A's to send once B's batcher lease runs out.
    const db = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    closers.push(() => db.end());
    await db.query(`set search_path to ${schema.schema}`);
    // count(*) is a bigint, which this process's pg type parsers (the server's, loaded with the test helpers)
    // turn into a number: compared with the string '0' it never matched, and the wait always ran its full
    // 60 s (the records were sent about a second after the kill), passing whether they were or not.
    await eventually(
      async () => {
        const open = await db.query<{ n: string | number }>(
          "select count(*) as n from content_usage where state in ('queued', 'sent')",
        );
        return Number(open.rows[0]!.n) === 0;
      },
      60_000,
      'no record still queued or sent after the kill',
    );
    const end = await figures();
    const spent = end.used - start.used;
    expect(spent).toBeGreaterThanOrEqual(accepted);
    expect(spent).toBeLessThanOrEqual(accepted + unknown);
    expect(end.balance + end.used).toBe(100_000n);

    // B comes back on its key (REPLICA_ID 1) and answers what the chain holds.
    await replicas[1]!.start();
    const read = await send<{ balance: string; used_balances: string }>(
      'GET',
      `${B}/v1/development-api/balance_adex/${slot.content_address}?cuid=${provider.cuid}`,
    );
    expect(read.body).toMatchObject({ balance: end.balance.toString(), used_balances: end.used.toString() });
  }, 240_000);
});
