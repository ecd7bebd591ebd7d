import { createHash, randomBytes } from 'node:crypto';
import { type Address, createPublicClient, http, type PublicClient } from 'viem';
import type { TestServer } from '../helpers/server.js';

/** JSON POST with an optional bearer token; answers status and parsed body. */
export async function call<T = Record<string, unknown>>(
  server: TestServer,
  path: string,
  body: unknown,
  token?: string,
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
}

export interface TestUser {
  uuid: number;
  email: string;
  token: string;
}

/** Signs a user up and logs in (real endpoints). */
export async function newUser(server: TestServer, label = 'pin'): Promise<TestUser> {
  const email = `${label}-${randomBytes(6).toString('hex')}@example.com`;
  const password = 'correct horse battery';
  const reg = await call<{ uuid: string }>(server, '/v1/dev-user/register', { email, password });
  if (reg.status !== 201) throw new Error(`register failed: ${JSON.stringify(reg.body)}`);
  const login = await call<{ token: string; uuid: string }>(server, '/v1/dev-user/login_devuser', {
    email,
    password,
  });
  if (login.status !== 200) throw new Error(`login failed: ${JSON.stringify(login.body)}`);
  return { uuid: Number(login.body.uuid), email, token: login.body.token };
}

/** What a client computes: pin_hash = lowercase hex SHA-256 of the UTF-8 text PIN + pin_salt. */
export function pinOf(
  pin: string,
  salt = randomBytes(32).toString('hex'),
): { pin_hash: string; pin_salt: string } {
  return {
    pin_hash: createHash('sha256')
      .update(pin + salt, 'utf8')
      .digest('hex'),
    pin_salt: salt,
  };
}

export interface RegisteredPin {
  address: Address;
  mnemonic: string;
  key_share_user: string;
  pin: { pin_hash: string; pin_salt: string };
}

/** POST /v1/pin/register for the user with `pin`; throws unless it succeeds. */
export async function registerPin(
  server: TestServer,
  user: TestUser,
  pin = '123456',
): Promise<RegisteredPin> {
  const p = pinOf(pin);
  const res = await call<{
    success: boolean;
    data: { address: Address; mnemonic: string; key_share_user: string }[];
  }>(server, '/v1/pin/register', { user_uuid: user.uuid, ...p }, user.token);
  if (res.status !== 200) throw new Error(`pin register failed: ${JSON.stringify(res.body)}`);
  return { ...res.body.data[0]!, pin: p };
}

/** A viem client on the server's chain (the embedded anvil). */
export function chainClient(server: TestServer): PublicClient {
  return createPublicClient({ transport: http(server.services.chain.info.rpcUrl!) });
}

/** The platform ERC-20's balance of `address`. */
export function tokenBalance(server: TestServer, address: Address): Promise<bigint> {
  return server.services.chain.gateway.tokenBalance(address);
}

/** Reads a table row straight from the database (to prove what changed and what did not). */
export async function custodyRow(server: TestServer, userUuid: number) {
  return server.services.database.db
    .selectFrom('wallet_custody')
    .selectAll()
    .where('user_uuid', '=', userUuid)
    .executeTakeFirst();
}

/** The newest `.eml` in DATA_DIR/outbox/ addressed to `email`: its text and file name. */
export async function latestMailTo(
  server: TestServer,
  email: string,
): Promise<{ file: string; text: string }> {
  const { promises: fs } = await import('node:fs');
  const path = await import('node:path');
  const dir = path.join(server.dataDir, 'outbox');
  const files = (await fs.readdir(dir)).filter((f) => f.endsWith('.eml')).sort();
  for (const file of files.reverse()) {
    const text = await fs.readFile(path.join(dir, file), 'utf8');
    if (new RegExp(`^To: ${email.replace(/[.+]/g, '\\$&')}$`, 'm').test(text))
      return { file: path.join(dir, file), text };
  }
  throw new Error(`no mail to ${email} in ${dir}`);
}

/** Runs the real e-mail flow (send-code, read the .eml, verify) and returns a verification token. */
export async function verificationToken(server: TestServer, user: TestUser): Promise<string> {
  const sent = await call(server, '/v1/auth/email/send-code', { purpose: 'pin_recover' }, user.token);
  if (sent.status !== 200) throw new Error(`send-code failed: ${JSON.stringify(sent.body)}`);
  const { text } = await latestMailTo(server, user.email);
  const code = /code is (\d{6})/.exec(text)?.[1];
  if (!code) throw new Error('no code in the mail');
  const verified = await call<{ verification_token: string }>(
    server,
    '/v1/auth/email/verify',
    { purpose: 'pin_recover', code },
    user.token,
  );
  if (verified.status !== 200) throw new Error(`verify failed: ${JSON.stringify(verified.body)}`);
  return verified.body.verification_token;
}
