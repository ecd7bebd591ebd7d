import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { base32Bytes, totpCode as rfc6238, stepNow } from '../../../server/test/helpers/totp.js';

/**
 * Helpers of the end-to-end suite: the TypeScript app's callback server, a GET-only route, and the
 * runner for the Python and Go suites. Everything is real: loopback HTTP servers and OS processes.
 */

export interface RouteHit {
  method: string;
  status: number;
  at: number;
}

export interface AppServer {
  url: string;
  /** Every request the GET-only route received, with what it answered. */
  readonly getOnlyHits: RouteHit[];
  /** Resolves once the GET-only route has received `count` POSTs in all. */
  waitForGetOnlyPosts(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The TypeScript app: `callbackPath` is served by `callbackListener` (the SDK's own handler), and
 * `getOnlyPath` is a route that knows only GET, so the service's POST is answered 405.
 */
export async function startAppServer(
  callbackPath: string,
  getOnlyPath: string,
  callbackListener: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<AppServer> {
  const getOnlyHits: RouteHit[] = [];
  const waiters = new Set<() => void>();
  const posts = () => getOnlyHits.filter((hit) => hit.method === 'POST').length;
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://app.invalid').pathname;
    if (path === callbackPath) {
      callbackListener(request, response);
      return;
    }
    if (path !== getOnlyPath) {
      response.writeHead(404).end();
      return;
    }
    request.resume();
    request.on('end', () => {
      const status = request.method === 'GET' ? 200 : 405;
      response.writeHead(status, status === 405 ? { allow: 'GET' } : {}).end();
      getOnlyHits.push({ method: request.method ?? '', status, at: Date.now() });
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    getOnlyHits,
    waitForGetOnlyPosts: (count, timeoutMs = 10_000) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (posts() < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the GET-only route got ${posts()} POSTs, expected ${count}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Whether `command` can be run at all (for python3 and go, which a machine may lack). */
export function commandAvailable(command: string, args: string[]): boolean {
  const probe = spawnSync(command, args, { stdio: 'ignore', timeout: 10_000 });
  return probe.error === undefined && probe.status === 0;
}

export interface ChildResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** stdout and stderr interleaved, as a developer would read them. */
  output: string;
  durationMs: number;
}

/**
 * Runs a suite as a child process, asynchronously: the dauth server it talks to lives in this very
 * process, so the event loop must keep running. A child that outlives `timeoutMs` is killed (by its
 * own pid) and reported with its signal.
 */
export function runChild(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; timeoutMs: number; isolated?: boolean },
): Promise<ChildResult> {
  const started = Date.now();
  // Isolated: none of the npm_* variables of the `npm test` that may have started us (an install
  // into a fresh project must not inherit the workspace's settings).
  const inherited = options.isolated
    ? Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)))
    : process.env;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...inherited, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (exitCode, signal) => {
      clearTimeout(timer);
      resolve({ exitCode, signal, output, durationMs: Date.now() - started });
    });
  });
}

/** `GET /v1/oauth/validate` with the token: the spec's test of a live token (2xx). */
export async function validateToken(
  baseUrl: string,
  token: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${baseUrl}/v1/oauth/validate`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** `GET /v1/oauth/status/check` read directly, beside the SDK's `checkStatus`. */
export async function statusCheck(
  baseUrl: string,
  token: string,
  userId: string,
  clientId: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const query = new URLSearchParams({ user_id: userId, client_id: clientId });
  const response = await fetch(`${baseUrl}/v1/oauth/status/check?${query.toString()}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export interface RegisteredApp {
  clientId: string;
  clientSecret: string;
}

/** `POST /v1/dev-user/clients` with the developer's login JWT (decisions §3). */
export async function registerApp(
  baseUrl: string,
  developerJwt: string,
  name: string,
  redirectUris: string[],
): Promise<RegisteredApp> {
  const response = await fetch(`${baseUrl}/v1/dev-user/clients`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${developerJwt}` },
    body: JSON.stringify({ name, redirect_uris: redirectUris, dapp: true }),
  });
  const body = (await response.json()) as { client_id?: string; client_secret?: string };
  if (response.status !== 201 || !body.client_id || !body.client_secret) {
    throw new Error(`registering ${name} answered ${response.status}`);
  }
  return { clientId: body.client_id, clientSecret: body.client_secret };
}

export interface RelayedAnswer {
  method: string;
  path: string;
  status: number;
  /** When the proxy passed the answer on (ms since the epoch). */
  at: number;
}

export interface DelayingProxy {
  url: string;
  /** Every answer passed on, in order. */
  readonly relayed: RelayedAnswer[];
  close(): Promise<void>;
}

/**
 * A real HTTP proxy in front of a real dauth that holds back the answer of
 * `GET /v1/oauth-meta/authorize` for `delayMs` after dauth gave it (a slow network, a loaded
 * service). Everything else passes at once. dauth sends its callback as soon as its own answer is
 * written, so the callback and the code exchange (through this proxy) complete first.
 */
export async function startDelayingProxy(upstream: string, delayMs: number): Promise<DelayingProxy> {
  const relayed: RelayedAnswer[] = [];
  const server = createServer((request, response) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === 'string' && name !== 'host' && name !== 'connection') headers[name] = value;
      }
      const method = request.method ?? 'GET';
      const answer = await fetch(`${upstream}${request.url ?? '/'}`, {
        method,
        headers,
        ...(method === 'GET' || method === 'HEAD' ? {} : { body: Buffer.concat(chunks) }),
      });
      const body = Buffer.from(await answer.arrayBuffer());
      const path = new URL(request.url ?? '/', 'http://proxy.invalid').pathname;
      if (path === '/v1/oauth-meta/authorize') await new Promise((resolve) => setTimeout(resolve, delayMs));
      response
        .writeHead(answer.status, {
          'content-type': answer.headers.get('content-type') ?? 'application/json',
        })
        .end(body);
      relayed.push({ method, path, status: answer.status, at: Date.now() });
    })().catch(() => response.writeHead(502).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    relayed,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Asserts from the proxy's log that, for the calls made through it after `since`, each get_token
 * answer left before the authorize answer it belongs to: the race really happened.
 */
export function exchangesBeatAuthorize(proxy: DelayingProxy, since: number): boolean {
  const answers = proxy.relayed.filter((answer) => answer.at >= since);
  const authorizes = answers.filter((answer) => answer.path === '/v1/oauth-meta/authorize');
  const tokens = answers.filter((answer) => answer.path === '/v1/oauth-meta/get_token');
  return (
    authorizes.length > 0 &&
    authorizes.every((authorize) =>
      tokens.some((token) => token.at < authorize.at && authorize.at - token.at >= 1_000),
    )
  );
}

/** RFC 6238 from a base32 secret: the server suites' generator, written out independently of the service. */
export function totpCode(base32Secret: string, step = stepNow()): string {
  return rfc6238(base32Bytes(base32Secret), step);
}

export interface EnrolledTotp {
  /** base32, as the enrolment answered it. */
  secret: string;
  recoveryCodes: string[];
  /** The step whose code confirmed: each step's code is accepted once, so sign in with a later one. */
  confirmedStep: number;
}

/** Turns TOTP on for the account of `consoleToken` (a fresh login JWT bound to `dauth:console`). */
export async function enrolTotp(base: string, consoleToken: string): Promise<EnrolledTotp> {
  const post = async (route: string, body?: unknown) => {
    const response = await fetch(`${base}${route}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${consoleToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const answer = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new Error(`${route}: HTTP ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  const { secret } = (await post('/v1/dev-user/mfa/totp')) as { secret: string };
  const confirmedStep = Math.floor(Date.now() / 30_000);
  const confirmed = await post('/v1/dev-user/mfa/totp/confirm', { code: totpCode(secret, confirmedStep) });
  return { secret, recoveryCodes: confirmed.recovery_codes as string[], confirmedStep };
}
