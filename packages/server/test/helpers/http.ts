import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';

/**
 * HTTP helpers every suite that talks to a real dauth over real HTTP shares: JSON POSTs, bearer
 * headers, dev users and OAuth clients made through the API, and a local callback server standing in
 * for an app (its browser redirect target and its backend's callback endpoint). The OAuth and backend
 * suites' `support.ts` modules re-export these next to their own domain helpers.
 */

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
  nickname: string;
  uuid: string;
  loginToken: string;
}

/**
 * Registers a dev user and logs them in. The default nickname is unique, so users stay apart.
 * `clientId` binds the login JWT: `dauth:console` for the first-party token that changes to the
 * account's ways in need (decisions §9).
 */
export async function createUser(
  baseUrl: string,
  nickname = `nick${randomBytes(3).toString('hex')}`,
  options: { clientId?: string } = {},
): Promise<TestUser> {
  const email = `u${randomBytes(6).toString('hex')}@example.com`;
  const password = 'correct horse battery';
  const reg = await post(`${baseUrl}/v1/dev-user/register`, { email, password, nickname });
  expect(reg.status).toBe(201);
  const login = await post(`${baseUrl}/v1/dev-user/login_devuser`, {
    email,
    password,
    ...(options.clientId !== undefined ? { client_id: options.clientId } : {}),
  });
  expect(login.status).toBe(200);
  const { token, uuid } = (await login.json()) as { token: string; uuid: string };
  return { email, password, nickname, uuid, loginToken: token };
}

export interface TestClient {
  clientId: string;
  clientSecret: string;
  /** The first of the client's registered redirect URIs. */
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

export interface CallbackRequest {
  method: string;
  /** `url.pathname`: the path without the query. */
  path: string;
  url: URL;
  body: string;
  at: number;
  /** The W3C `traceparent` the request carried (tracing on: the callback's span). */
  traceparent: string | undefined;
}

/** The JSON body dauth POSTs to an app backend's callback. */
export interface CallbackPayload {
  success: number;
  code: string;
  state: string;
}

export interface CallbackServerOptions {
  /** The interface to listen on and the host of `origin`; `127.0.0.1` by default. */
  host?: string;
  /** A route that only knows GET: any other method gets 405 (recorded all the same). */
  getOnlyPath?: string;
  /** A route that always answers 503 (recorded all the same). */
  failingPath?: string;
}

/**
 * A local HTTP server standing in for an app: the browser's redirect target and the backend's
 * callback endpoint. It records every request except those for `pages` and `/favicon.ico`, and
 * answers 200 at once (as the spec's callback handling order asks): a small HTML page to a GET,
 * `{"ok":true}` to anything else.
 */
export interface CallbackServer {
  /** `http://<host>:<port>`. */
  origin: string;
  /** A URL on this server; `/callback` by default. */
  url(path?: string): string;
  requests: CallbackRequest[];
  /** Extra HTML pages by path (for the popup opener page); not recorded. */
  pages: Map<string, string>;
  /** Resolves with the first POST whose JSON body carries `state`. */
  waitFor(state: string, timeoutMs?: number): Promise<CallbackPayload>;
  close(): Promise<void>;
}

export async function startCallbackServer(options: CallbackServerOptions = {}): Promise<CallbackServer> {
  const host = options.host ?? '127.0.0.1';
  const requests: CallbackRequest[] = [];
  const pages = new Map<string, string>();
  const waiters = new Map<string, (body: CallbackPayload) => void>();
  let origin = '';
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const method = req.method ?? 'GET';
      // The Host header as sent (a browser may come by another name than `host`).
      const url = new URL(req.url ?? '/', req.headers.host ? `http://${req.headers.host}` : origin);
      const path = url.pathname;
      if (path === '/favicon.ico') {
        res.writeHead(404).end();
        return;
      }
      const page = pages.get(path);
      if (page !== undefined) {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
        return;
      }
      const traceparent = typeof req.headers.traceparent === 'string' ? req.headers.traceparent : undefined;
      requests.push({ method, path, url, body, at: Date.now(), traceparent });
      if (path === options.getOnlyPath && method !== 'GET') {
        res.writeHead(405, { allow: 'GET', 'content-type': 'text/plain' }).end('Method Not Allowed');
        return;
      }
      if (path === options.failingPath) {
        res.writeHead(503, { 'content-type': 'text/plain' }).end('try later');
        return;
      }
      if (method === 'GET') {
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end('<!doctype html><title>callback</title><p>ok</p>');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      if (method === 'POST') {
        try {
          const parsed = JSON.parse(body) as CallbackPayload;
          waiters.get(parsed.state)?.(parsed);
        } catch {
          // Not JSON: recorded only.
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://${host}:${port}`;
  return {
    origin,
    url: (path = '/callback') => `${origin}${path}`,
    requests,
    pages,
    waitFor: (state, timeoutMs = 10_000) => {
      const seen = requests.find((r) => r.method === 'POST' && r.body.includes(JSON.stringify(state)));
      if (seen) return Promise.resolve(JSON.parse(seen.body) as CallbackPayload);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no callback for state ${state}`)), timeoutMs);
        waiters.set(state, (body) => {
          clearTimeout(timer);
          resolve(body);
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
