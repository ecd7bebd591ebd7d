import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { importJWK, type JWK, SignJWT } from 'jose';
import { createPublicClient, getAddress, http as viemHttp } from 'viem';
import { dauthDexAbi } from '@dauth/contracts';
import { expect } from 'vitest';
import { SigningKeyStore } from '../../src/stores/signingKeyStore.js';
import { bearer, type CallbackServer, post, type TestClient, type TestUser } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';

/**
 * Helpers shared by the slots, backend-integration and marketplace suites. Everything goes over real
 * HTTP to a real dauth, its real embedded chain and real local callback servers. The generic ones
 * (users, clients, the callback server) live in `../helpers/http.ts` and are re-exported.
 */

export {
  bearer,
  type CallbackPayload,
  type CallbackRequest,
  type CallbackServer,
  type CallbackServerOptions,
  createClient,
  createUser,
  post,
  startCallbackServer,
  type TestClient,
  type TestUser,
} from '../helpers/http.js';

/** A fresh login JWT (e.g. after a restart on another port: the issuer changed). */
export async function login(baseUrl: string, user: TestUser): Promise<TestUser> {
  const res = await post(`${baseUrl}/v1/dev-user/login_devuser`, {
    email: user.email,
    password: user.password,
  });
  expect(res.status).toBe(200);
  return { ...user, loginToken: ((await res.json()) as { token: string }).token };
}

/** Gives the user a main wallet the way users get one: `POST /v1/pin/register`. */
export async function registerWallet(baseUrl: string, user: TestUser): Promise<`0x${string}`> {
  const pinSalt = randomBytes(32).toString('hex');
  const pinHash = createHash('sha256').update(`123456${pinSalt}`, 'utf8').digest('hex');
  const res = await post(
    `${baseUrl}/v1/pin/register`,
    { user_uuid: Number(user.uuid), pin_hash: pinHash, pin_salt: pinSalt },
    bearer(user.loginToken),
  );
  expect(res.status).toBe(200);
  const body = (await res.json()) as { success: boolean; data: { address: string }[] };
  return getAddress(body.data[0]!.address);
}

/** `GET /v1/oauth-meta/authorize`, returning the raw text and the parsed envelope. */
export async function metaAuthorize(
  baseUrl: string,
  jwt: string | undefined,
  params: Record<string, string | undefined>,
): Promise<{ status: number; text: string; body: { code: number; message: unknown; data: unknown[] } }> {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) query.set(k, v);
  const res = await fetch(`${baseUrl}/v1/oauth-meta/authorize?${query.toString()}`, {
    headers: jwt === undefined ? {} : bearer(jwt),
  });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) };
}

export async function getToken(
  baseUrl: string,
  body: Record<string, string>,
): Promise<{
  status: number;
  text: string;
  body: { code: number; message: unknown; data: Record<string, unknown>[] };
}> {
  const res = await post(`${baseUrl}/v1/oauth-meta/get_token`, body);
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) };
}

/** Authorize + callback + get_token, as an app backend does it. */
export async function slotInfoFor(
  server: TestServer,
  callbacks: CallbackServer,
  user: TestUser,
  client: TestClient,
  redirectUri: string,
): Promise<{
  authorize: Awaited<ReturnType<typeof metaAuthorize>>;
  token: Awaited<ReturnType<typeof getToken>>;
  code: string;
}> {
  const state = randomBytes(16).toString('base64url');
  const authorize = await metaAuthorize(server.url, user.loginToken, {
    client_id: client.clientId,
    redirect_uri: redirectUri,
    respose_type: 'code',
    state,
  });
  expect(authorize.status, authorize.text).toBe(200);
  const callback = await callbacks.waitFor(state);
  const token = await getToken(server.url, {
    client_id: client.clientId,
    client_secret: client.clientSecret,
    code: callback.code,
    grant_type: 'authorization_code',
  });
  return { authorize, token, code: callback.code };
}

/** The raw digits of `"id":…` in a JSON text, and whether they were quoted. */
export function rawSlotId(text: string, key = 'id'): { digits: string; quoted: boolean } | undefined {
  const match = new RegExp(`"${key}":("?)(\\d+)("?)`).exec(text);
  if (!match) return undefined;
  return { digits: match[2]!, quoted: match[1] === '"' && match[3] === '"' };
}

/** Reads the dex directly from the chain (viem against the embedded anvil). */
export async function dexOwnerOf(server: TestServer, slotId: string): Promise<string> {
  const chain = server.services.chain;
  const client = createPublicClient({ transport: viemHttp(chain.info.rpcUrl!) });
  return client.readContract({
    address: chain.info.contracts.dex,
    abi: dauthDexAbi,
    functionName: 'ownerOf',
    args: [BigInt(slotId)],
  });
}

export async function dexTransferCount(server: TestServer, slotId: string): Promise<bigint> {
  const chain = server.services.chain;
  const client = createPublicClient({ transport: viemHttp(chain.info.rpcUrl!) });
  return client.readContract({
    address: chain.info.contracts.dex,
    abi: dauthDexAbi,
    functionName: 'transferCount',
    args: [BigInt(slotId)],
  });
}

/**
 * A login JWT for `userId` that expired a minute ago, signed with the service's own key (read from
 * its database and opened with its master key), so only the expiry is wrong with it.
 */
export async function expiredLoginJwt(server: TestServer, userId: string): Promise<string> {
  const [key] = await new SigningKeyStore(server.services.database.db).list();
  const opened = server.services.secretBox.open(key!.privateJwkSealed, `signing_key:${key!.kid}`);
  const privateKey = await importJWK(JSON.parse(opened.toString('utf8')) as JWK, 'ES256');
  opened.fill(0);
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ token_use: 'login' })
    .setProtectedHeader({ alg: 'ES256', kid: key!.kid, typ: 'JWT' })
    .setIssuer(server.config.publicUrl)
    .setSubject(userId)
    .setIssuedAt(now - 3700)
    .setExpirationTime(now - 60)
    .setJti(randomUUID())
    .sign(privateKey);
}
