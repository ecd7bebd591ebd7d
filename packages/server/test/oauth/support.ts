import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';

/** Small helpers the OAuth, status, browser and CLI suites share. Everything goes over real HTTP. */

export const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export interface TestUser {
  email: string;
  password: string;
  uuid: string;
  loginToken: string;
}

export async function createUser(baseUrl: string, nickname = 'Tester'): Promise<TestUser> {
  const email = `u${randomBytes(6).toString('hex')}@example.com`;
  const password = 'correct horse battery';
  const reg = await post(`${baseUrl}/v1/dev-user/register`, { email, password, nickname });
  expect(reg.status).toBe(201);
  const login = await post(`${baseUrl}/v1/dev-user/login_devuser`, { email, password });
  expect(login.status).toBe(200);
  const { token, uuid } = (await login.json()) as { token: string; uuid: string };
  return { email, password, uuid, loginToken: token };
}

export interface TestClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

export async function createClient(
  baseUrl: string,
  owner: TestUser,
  redirectUris: string[],
  extra: { name?: string; dapp?: boolean } = {},
): Promise<TestClient> {
  const res = await post(
    `${baseUrl}/v1/dev-user/clients`,
    { name: extra.name ?? 'Test app', redirect_uris: redirectUris, ...(extra.dapp ? { dapp: true } : {}) },
    bearer(owner.loginToken),
  );
  expect(res.status).toBe(201);
  const body = (await res.json()) as { success: boolean; client_id: string; client_secret: string };
  expect(body.success).toBe(true);
  return { clientId: body.client_id, clientSecret: body.client_secret, redirectUri: redirectUris[0]! };
}

export function authorizeUrl(baseUrl: string, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) query.set(k, v);
  return `${baseUrl}/oauth/authorize?${query.toString()}`;
}

/** `GET /oauth/authorize` with the user's login JWT; returns the redirect's parameters. */
export async function authorizeWithBearer(
  baseUrl: string,
  user: TestUser,
  client: TestClient,
  extra: Record<string, string | undefined> = {},
): Promise<{ code: string; state: string | null; location: URL }> {
  const res = await fetch(
    authorizeUrl(baseUrl, {
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      response_type: 'code',
      ...extra,
    }),
    { headers: bearer(user.loginToken), redirect: 'manual' },
  );
  expect(res.status).toBe(302);
  const location = new URL(res.headers.get('location')!);
  const code = location.searchParams.get('code');
  expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
  return { code: code!, state: location.searchParams.get('state'), location };
}

export async function exchange(
  baseUrl: string,
  client: TestClient,
  code: string,
  extra: Record<string, string> = {},
): Promise<Response> {
  return post(`${baseUrl}/oauth/token`, {
    grant_type: 'authorization_code',
    client_id: client.clientId,
    client_secret: client.clientSecret,
    code,
    redirect_uri: client.redirectUri,
    ...extra,
  });
}

export interface TokenResult {
  success: boolean;
  access_token: string;
  token_type: string;
  expires_in: number;
  user_id: string;
  refresh_token: string;
  content_address?: string;
}

/** A local HTTP server standing in for an app's callback; records every request it receives. */
export interface CallbackServer {
  url: string;
  origin: string;
  requests: { method: string; url: URL; body: string }[];
  /** Extra pages by path (for the popup opener page). */
  pages: Map<string, string>;
  close(): Promise<void>;
}

export async function startCallbackServer(host = '127.0.0.1'): Promise<CallbackServer> {
  const requests: CallbackServer['requests'] = [];
  const pages = new Map<string, string>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
      if (url.pathname === '/favicon.ico') {
        res.writeHead(404).end();
        return;
      }
      const page = pages.get(url.pathname);
      if (page !== undefined) {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
        return;
      }
      requests.push({ method: req.method ?? 'GET', url, body });
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end('<!doctype html><title>callback</title><p>ok</p>');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host}:${port}`;
  return {
    url: `${origin}/callback`,
    origin,
    requests,
    pages,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Reads a JSON error body and checks the decided shape (decisions §2, plus RFC 6749 on /oauth). */
export async function expectError(
  res: Response,
  status: number,
  error: string,
): Promise<Record<string, unknown>> {
  expect(res.status).toBe(status);
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ success: false, error });
  expect(typeof body.message).toBe('string');
  return body;
}
