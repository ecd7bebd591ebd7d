import { dauthSessionAccountAbi, entryPointAbi, type UserOperation } from '@dauth/contracts';
import {
  type Address,
  concat,
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  http,
  numberToHex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { expect } from 'vitest';
import { bearer, createClient, createUser, post, type TestClient, type TestUser } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import { authorizeWithBearer, exchange } from '../oauth/support.js';
import { chainClient, type RegisteredPin, registerPin } from '../pin/pinHelpers.js';

export const TRANSFER = '0xa9059cbb';
export const DAY = 86_400;
/** anvil's first dev account (funded): the "compromised service" that sends straight to the EntryPoint. */
const ANVIL_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

export interface Player {
  user: TestUser;
  wallet: RegisteredPin;
  accessToken: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies of many shapes, read field by field
type JsonBody = Record<string, any>;

export async function request(
  server: TestServer,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; body: JsonBody }> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...bearer(token), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as JsonBody };
}

export async function newApp(
  server: TestServer,
  name = 'Gem game',
): Promise<{ dev: TestUser; client: TestClient }> {
  const dev = await createUser(server.url);
  const client = await createClient(server.url, dev, ['http://127.0.0.1:9/cb'], { name });
  return { dev, client };
}

/** A player with a PIN wallet (funded with platform tokens) who approved `client` and holds its access token. */
export async function newPlayer(server: TestServer, client: TestClient, tokens = '1000000'): Promise<Player> {
  const user = await createUser(server.url);
  const wallet = await registerPin(server, {
    uuid: Number(user.uuid),
    email: user.email,
    token: user.loginToken,
  });
  const funded = await post(
    `${server.url}/v1/admin/faucet`,
    { address: wallet.address, token: tokens },
    bearer(server.services.secrets.adminApiKey),
  );
  expect(funded.status).toBe(200);
  const { code } = await authorizeWithBearer(server.url, user, client);
  const tokenRes = await exchange(server.url, client, code);
  expect(tokenRes.status).toBe(200);
  const { access_token } = (await tokenRes.json()) as { access_token: string };
  return { user, wallet, accessToken: access_token };
}

export const pinTrio = (p: Player) => ({ ...p.wallet.pin, key_share_user: p.wallet.key_share_user });

/** A wallet policy that lets the app's session key `transfer` up to `perDay` of `token` a day, nothing else, for a day. */
export const tokenTransferPolicy = (token: string, perDay: string) => ({
  calls: [{ to: token, selectors: [TRANSFER] }],
  max_value_per_call_wei: '0',
  max_value_per_day_wei: '0',
  token_limits: [{ token, per_day: perDay }],
  valid_for_seconds: DAY,
});

export async function grant(server: TestServer, p: Player, clientId: string) {
  return request(server, 'POST', '/v1/wallet/session-keys', p.user.loginToken, {
    client_id: clientId,
    ...pinTrio(p),
  });
}

/** An app whose wallet policy lets its session key `transfer` up to `perDay` of the platform token a day. */
export async function tokenTransferApp(
  server: TestServer,
  perDay = '1000000',
): Promise<{ dev: TestUser; client: TestClient }> {
  const app = await newApp(server);
  const put = await request(
    server,
    'PUT',
    `/v1/dev-user/clients/${app.client.clientId}/wallet-policy`,
    app.dev.loginToken,
    tokenTransferPolicy(server.services.chainInfo.contracts.token, perDay),
  );
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  return app;
}

/** A new player of `client` (newPlayer) who granted the app's session key. */
export async function grantedPlayer(server: TestServer, client: TestClient): Promise<Player> {
  const p = await newPlayer(server, client);
  expect((await grant(server, p, client.clientId)).status).toBe(201);
  return p;
}

export const transferData = (to: Address, amount: bigint): Hex =>
  encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] });

export async function tokenBalanceOf(server: TestServer, address: Address): Promise<bigint> {
  return chainClient(server).readContract({
    address: server.services.chainInfo.contracts.token,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [address],
  });
}

export async function rpc(server: TestServer, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(server.services.chain.info.rpcUrl!, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: unknown };
  if (body.error) throw new Error(JSON.stringify(body.error));
  return body.result;
}

/** Moves anvil's clock forward and mines a block, so the latest block shows the new time. */
export async function advanceTime(server: TestServer, seconds: number): Promise<void> {
  await rpc(server, 'evm_increaseTime', [seconds]);
  await rpc(server, 'evm_mine');
  server.services.chain.gateway.resetCaches();
}

export async function latestTimestamp(client: PublicClient): Promise<number> {
  return Number((await client.getBlock({ blockTag: 'latest' })).timestamp);
}

/** The session key's private key, unsealed as a compromised service could. */
export async function unsealedKey(server: TestServer, keyAddress: string): Promise<Hex> {
  const row = await server.services.database.db
    .selectFrom('session_keys')
    .select(['key_sealed'])
    .where('key_address', '=', keyAddress.toLowerCase())
    .executeTakeFirstOrThrow();
  const key = server.services.secretBox.open(row.key_sealed, `session_key:${keyAddress.toLowerCase()}`);
  return `0x${key.toString('hex')}`;
}

/**
 * Signs an operation of `sender` with the session key and sends it straight to the EntryPoint's `handleOps` from an
 * anvil account (no paymaster: the sender is funded for its prefund). Answers the EntryPoint's refusal text, or
 * undefined when it went through.
 */
export async function directSessionOp(
  server: TestServer,
  sender: Address,
  sessionKey: Hex,
  callData: Hex,
): Promise<string | undefined> {
  const client = chainClient(server);
  const ep = server.services.chainInfo.contracts.entry_point;
  await rpc(server, 'anvil_setBalance', [sender, numberToHex(10n ** 18n)]);
  const now = await latestTimestamp(client);
  const day = Math.floor((now + 1) / DAY);
  const nonce = await client.readContract({
    address: ep,
    abi: entryPointAbi,
    functionName: 'getNonce',
    args: [sender, 0n],
  });
  const fees = await client.estimateFeesPerGas();
  const op: UserOperation = {
    sender,
    nonce,
    initCode: '0x',
    callData,
    callGasLimit: 300_000n,
    verificationGasLimit: 300_000n,
    preVerificationGas: 60_000n,
    maxFeePerGas: fees.maxFeePerGas * 2n,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas ?? 1n,
    paymasterAndData: '0x',
    signature: '0x',
  };
  const hash = await client.readContract({
    address: ep,
    abi: entryPointAbi,
    functionName: 'getUserOpHash',
    args: [op],
  });
  const account = privateKeyToAccount(sessionKey);
  const sig = await account.signMessage({ message: { raw: hash } });
  op.signature = concat([account.address, numberToHex(day, { size: 6 }), sig]);
  const submitter = privateKeyToAccount(ANVIL_KEY);
  try {
    await client.simulateContract({
      account: submitter,
      address: ep,
      abi: entryPointAbi,
      functionName: 'handleOps',
      args: [[op], submitter.address],
    });
  } catch (err) {
    return String((err as Error).message);
  }
  const wallet = createWalletClient({
    account: submitter,
    chain: foundry,
    transport: http(server.services.chain.info.rpcUrl!),
  });
  const tx = await wallet.writeContract({
    address: ep,
    abi: entryPointAbi,
    functionName: 'handleOps',
    args: [[op], submitter.address],
    gas: 2_000_000n,
  });
  await client.waitForTransactionReceipt({ hash: tx });
  return undefined;
}

export const executeCall = (to: Address, value: bigint, data: Hex): Hex =>
  encodeFunctionData({ abi: dauthSessionAccountAbi, functionName: 'execute', args: [to, value, data] });

export async function sessionState(server: TestServer, account: Address, key: Address) {
  const [validUntil, active] = await chainClient(server).readContract({
    address: account,
    abi: dauthSessionAccountAbi,
    functionName: 'sessions',
    args: [key],
  });
  return { validUntil: Number(validUntil), active };
}
