import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { createPublicClient, getAddress, http, parseEther, type Address, type PublicClient } from 'viem';
import { dauthContentTokenAbi } from '@dauth/contracts';
import type { UsageState } from '../../src/stores/contentLedgerStore.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Helpers of the content-token suites: everything goes over real HTTP to a real dauth with its real
 * embedded anvil chain; chain figures are read straight from the contract.
 */

export interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
}

export async function post<T = Record<string, unknown>>(
  server: TestServer,
  path: string,
  body: unknown,
  token?: string,
): Promise<Answer<T>> {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
}

export async function get<T = Record<string, unknown>>(
  server: TestServer,
  path: string,
  token?: string,
): Promise<Answer<T>> {
  const response = await fetch(`${server.url}${path}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: response.status, body: (await response.json()) as T };
}

export interface User {
  uuid: number;
  token: string;
}

/**
 * A new account signed in with its password; `clientId` binds the login JWT (`dauth:console` for the
 * console's first-party token, which changes to the account's ways in need: decisions §9).
 */
export async function newUser(
  server: TestServer,
  label: string,
  options: { clientId?: string } = {},
): Promise<User> {
  const email = `${label}-${randomBytes(6).toString('hex')}@example.com`;
  const password = 'correct horse battery';
  const reg = await post(server, '/v1/dev-user/register', { email, password });
  if (reg.status !== 201) throw new Error(`register failed: ${JSON.stringify(reg.body)}`);
  const login = await post<{ token: string; uuid: string }>(server, '/v1/dev-user/login_devuser', {
    email,
    password,
    ...(options.clientId !== undefined ? { client_id: options.clientId } : {}),
  });
  if (login.status !== 200) throw new Error(`login failed: ${JSON.stringify(login.body)}`);
  return { uuid: Number(login.body.uuid), token: login.body.token };
}

export async function newClient(server: TestServer, owner: User): Promise<string> {
  return (await newClientWithSecret(server, owner)).clientId;
}

export async function newClientWithSecret(
  server: TestServer,
  owner: User,
): Promise<{ clientId: string; clientSecret: string }> {
  const res = await post<{ client_id: string; client_secret: string }>(
    server,
    '/v1/dev-user/clients',
    { name: 'Content game', redirect_uris: ['https://game.example/cb'], dapp: true },
    owner.token,
  );
  if (res.status !== 201) throw new Error(`client failed: ${JSON.stringify(res.body)}`);
  return { clientId: res.body.client_id, clientSecret: res.body.client_secret };
}

export interface Provider {
  developer: User;
  clientId: string;
  clientSecret: string;
  cuid: string;
  ownerAddr: Address;
  key: string;
  iv: string;
  /** Issued at registration when `payload_mode` accepted the GCM form. */
  gcmKey: string | undefined;
  /** The registration's answer. */
  registration: Record<string, unknown>;
}

/**
 * A developer, their client and its first provider registration (which issues the key and IV), with the
 * consumption settings `settings` (`payload_mode`, `consume_auth`) when given.
 */
export async function newProvider(
  server: TestServer,
  releasePer = 50,
  settings: { payload_mode?: string; consume_auth?: string } = {},
): Promise<Provider> {
  const developer = await newUser(server, 'dev');
  const { clientId, clientSecret } = await newClientWithSecret(server, developer);
  const cuid = `game-${randomBytes(5).toString('hex')}`;
  const ownerAddr = getAddress(`0x${randomBytes(20).toString('hex')}`);
  const res = await post<{
    tx_hash: string;
    encryption_key: string;
    encryption_iv: string;
    gcm_key?: string;
  }>(
    server,
    '/v1/development-api/init_permission_provider',
    { client_id: clientId, cuid, release_per: releasePer, owner_addr: ownerAddr, ...settings },
    developer.token,
  );
  if (res.status !== 200) throw new Error(`provider failed: ${res.status} ${JSON.stringify(res.body)}`);
  return {
    developer,
    clientId,
    clientSecret,
    cuid,
    ownerAddr,
    key: res.body.encryption_key,
    iv: res.body.encryption_iv,
    gcmKey: res.body.gcm_key,
    registration: res.body,
  };
}

export interface Player {
  user: User;
  pin: { pin_hash: string; pin_salt: string; key_share_user: string };
  wallet: Address;
  slotId: string;
  slot: Address;
}

/** A player with a PIN wallet funded with `ether`, and a slot of the provider's app. */
export async function newPlayer(server: TestServer, provider: Provider, ether = '10'): Promise<Player> {
  const user = await newUser(server, 'player');
  const pinSalt = randomBytes(32).toString('hex');
  const pinHash = createHash('sha256').update(`123456${pinSalt}`, 'utf8').digest('hex');
  const reg = await post<{ data: { address: Address; key_share_user: string }[] }>(
    server,
    '/v1/pin/register',
    { user_uuid: user.uuid, pin_hash: pinHash, pin_salt: pinSalt },
    user.token,
  );
  if (reg.status !== 200) throw new Error(`pin failed: ${JSON.stringify(reg.body)}`);
  const wallet = getAddress(reg.body.data[0]!.address);
  await fund(server, wallet, parseEther(ether));
  const { slot } = await server.services.slots.ensureSlot(user.uuid, provider.clientId);
  return {
    user,
    pin: { pin_hash: pinHash, pin_salt: pinSalt, key_share_user: reg.body.data[0]!.key_share_user },
    wallet,
    slotId: slot.id,
    slot: getAddress(slot.contentAddress),
  };
}

export async function fund(server: TestServer, address: Address, wei: bigint): Promise<void> {
  const res = await post(
    server,
    '/v1/admin/faucet',
    { address, native: wei.toString() },
    server.services.secrets.adminApiKey,
  );
  if (res.status !== 200) throw new Error(`faucet failed: ${JSON.stringify(res.body)}`);
}

export async function buy(server: TestServer, provider: Provider, player: Player, amount: string) {
  return post<{
    tx_hash: string;
    token_amount: string;
    native_paid: string;
    platform_fee: string;
    provider_received: string;
  }>(
    server,
    '/v1/development-api/user_buy_content_token',
    { client_id: provider.clientId, user_dbkey: player.slotId, amount, cuid: provider.cuid, ...player.pin },
    player.user.token,
  );
}

/** What a provider backend does: hex AES-256-CTR of the payload's JSON text under its key and IV. */
export function encryptPayload(provider: Pick<Provider, 'key' | 'iv'>, payload: unknown): string {
  const cipher = createCipheriv(
    'aes-256-ctr',
    Buffer.from(provider.key, 'hex'),
    Buffer.from(provider.iv, 'hex'),
  );
  return Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]).toString('hex');
}

/** What a provider backend does for the authenticated form (docs/content-tokens.md), written independently. */
export function sealGcm(keyHex: string, clientId: string, payload: unknown): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(keyHex, 'hex'), iv);
  cipher.setAAD(Buffer.from(`dauth/content-payload/v1:${clientId}`, 'utf8'));
  const body = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
  return `gcm1:${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('hex')}`;
}

export interface ConsumeAnswer {
  success: boolean;
  tx_hash: string;
  balance: string;
  used_balances: string;
  error?: string;
  status?: string;
  request_id?: string;
}

export function consume(server: TestServer, body: { encrypted_message: string; client_id?: string }) {
  return post<ConsumeAnswer>(server, '/v1/development-api/increase_used_content_token', body);
}

/** A consumption call carrying an app's credentials as HTTP Basic (consume_auth client_secret). */
export async function consumeAs(
  server: TestServer,
  credentials: { clientId: string; clientSecret: string },
  body: { encrypted_message: string; client_id?: string },
): Promise<Answer<ConsumeAnswer>> {
  const basic = Buffer.from(
    `${encodeURIComponent(credentials.clientId)}:${encodeURIComponent(credentials.clientSecret)}`,
  ).toString('base64');
  const response = await fetch(`${server.url}/v1/development-api/increase_used_content_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Basic ${basic}` },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as ConsumeAnswer };
}

export function payloadOf(
  provider: Provider,
  player: Player,
  amount: bigint | string,
  extra: Record<string, unknown> = {},
) {
  return {
    client_id: provider.clientId,
    user_dbkey: player.slotId,
    amount: amount.toString(),
    cuid: provider.cuid,
    ...extra,
  };
}

export function chainClient(server: TestServer): PublicClient {
  return createPublicClient({ transport: http(server.services.chain.info.rpcUrl!) });
}

/** The contract's own figures for a slot (not through dauth). */
export async function onChain(
  server: TestServer,
  cuid: string,
  slot: Address,
): Promise<{ balance: bigint; used: bigint }> {
  const client = chainClient(server);
  const address = server.services.chain.info.contracts.content_token;
  const [balance, used] = await Promise.all([
    client.readContract({
      address,
      abi: dauthContentTokenAbi,
      functionName: 'balanceOf',
      args: [cuid, slot],
    }),
    client.readContract({
      address,
      abi: dauthContentTokenAbi,
      functionName: 'usedBalanceOf',
      args: [cuid, slot],
    }),
  ]);
  return { balance, used };
}

/** Rows of `content_usage` (the durable queue and record of consumptions) in `states`, or in any state. */
export async function usageRecordCount(server: TestServer, states?: UsageState[]): Promise<number> {
  let query = server.services.database.db
    .selectFrom('content_usage')
    .select((eb) => eb.fn.countAll<number>().as('n'));
  if (states) query = query.where('state', 'in', states);
  return Number((await query.executeTakeFirst())?.n ?? 0);
}

/**
 * Stops the usage batcher and sends one consumption per amount (request ids `<prefix><i>`), then waits until
 * every record is accepted and `queued`: as if the process died right after accepting them. Answers the
 * callers' pending answers (they settle when the server closes, or the batcher runs again).
 */
export async function queueWithBatcherStopped(
  server: TestServer,
  provider: Provider,
  player: Player,
  amounts: bigint[],
  requestIdPrefix: string,
): Promise<ReturnType<typeof consume>[]> {
  await server.services.content.batcher.stop();
  const answers = amounts.map((amount, i) =>
    consume(server, {
      encrypted_message: encryptPayload(
        provider,
        payloadOf(provider, player, amount, { request_id: `${requestIdPrefix}${i}` }),
      ),
    }),
  );
  for (let i = 0; i < 100 && (await usageRecordCount(server, ['queued'])) < amounts.length; i++)
    await new Promise((r) => setTimeout(r, 50));
  return answers;
}

/**
 * A server whose player bought 100,000 tokens and sent one consumption per amount with the batcher stopped
 * (`queueWithBatcherStopped`): the records wait `queued` for a suite to batch them by hand. `before` is the
 * slot's on-chain figures before any of them.
 */
export async function serverWithQueuedRecords(amounts: bigint[], requestIdPrefix: string) {
  const server = await startTestServer();
  const provider = await newProvider(server);
  const player = await newPlayer(server, provider);
  const bought = await buy(server, provider, player, '100000');
  if (bought.status !== 200) throw new Error(`buy answered ${bought.status}`);
  const before = await onChain(server, provider.cuid, player.slot);
  const answers = await queueWithBatcherStopped(server, provider, player, amounts, requestIdPrefix);
  return { server, provider, player, before, answers };
}

/** A usage batch's state (`sending`, `included`) as the ledger holds it. */
export async function batchState(server: TestServer, batchId: string): Promise<string> {
  const row = await server.services.database.db
    .selectFrom('content_batches')
    .select('state')
    .where('id', '=', batchId)
    .executeTakeFirstOrThrow();
  return row.state;
}

export const admin = (server: TestServer) => server.services.secrets.adminApiKey;
