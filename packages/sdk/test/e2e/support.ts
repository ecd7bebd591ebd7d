import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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
  options: { cwd: string; env: Record<string, string>; timeoutMs: number },
): Promise<ChildResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
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
