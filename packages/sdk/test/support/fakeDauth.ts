import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback stand-in for the dauth service's backend-integration routes, written to the contract
 * the SDK is built against (authorize, the callback POST, get_token, logout, login status). The
 * end-to-end suite against a live server replaces it; the tests only see `url`.
 */
export interface FakeDauthOptions {
  clientId?: string;
  clientSecret?: string;
  /** The registered redirect_uri; authorize with any other answers 401 `redirect_uri mismatch`. */
  redirectUri: string;
  /** What the callback says: a success with a fresh code (default), a rejection, or nothing at all. */
  callback?: 'success' | 'reject' | 'none';
  /** The slot id as it appears in the JSON text of get_token: a raw number by default. */
  slotIdJson?: string;
  /** Delay before answering get_token, to observe that the callback answer does not wait for it. */
  tokenDelayMs?: number;
  /** Overrides the get_token answer. */
  tokenResponse?: { status: number; body: string };
  /**
   * Holds authorize's answer back: the callback goes out first, and the answer follows once the code
   * was exchanged and this delay has passed (a slow network, a loaded service).
   */
  authorizeDelayMs?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
  body: string;
}

export class FakeDauth {
  readonly requests: RecordedRequest[] = [];
  /** HTTP status of each callback POST the fake sent, in order. */
  readonly callbackStatuses: number[] = [];
  /** Resolves the next time a callback POST was answered. */
  readonly #callbackWaiters: ((status: number) => void)[] = [];
  readonly #codes = new Map<string, 'issued' | 'used'>();
  readonly #options: Required<Omit<FakeDauthOptions, 'tokenResponse' | 'tokenDelayMs' | 'authorizeDelayMs'>> &
    Pick<FakeDauthOptions, 'tokenResponse' | 'tokenDelayMs' | 'authorizeDelayMs'>;
  /** Resolves a delayed authorize once its code was exchanged. */
  readonly #exchanged = new Map<string, () => void>();
  /** When each answer left, to show the order of a race. */
  readonly answeredAt: { path: string; at: number }[] = [];
  readonly #server: Server;
  #codeCounter = 0;
  url = '';

  private constructor(options: FakeDauthOptions) {
    this.#options = {
      clientId: 'client-1',
      clientSecret: 'secret-1',
      callback: 'success',
      slotIdJson: '1234567890123456789',
      ...options,
    };
    this.#server = createServer((request, response) => {
      void this.#route(request, response);
    });
  }

  static async start(options: FakeDauthOptions): Promise<FakeDauth> {
    const fake = new FakeDauth(options);
    await new Promise<void>((resolve) => fake.#server.listen(0, '127.0.0.1', resolve));
    fake.url = `http://127.0.0.1:${(fake.#server.address() as AddressInfo).port}`;
    return fake;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  set(options: Partial<FakeDauthOptions>): void {
    Object.assign(this.#options, options);
  }

  nextCallbackStatus(): Promise<number> {
    return new Promise((resolve) => this.#callbackWaiters.push(resolve));
  }

  requestsTo(path: string): RecordedRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  async #route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake.invalid');
    let body = '';
    for await (const chunk of request) body += String(chunk);
    const recorded: RecordedRequest = {
      method: request.method ?? '',
      path: url.pathname,
      query: url.searchParams,
      authorization: request.headers.authorization,
      body,
    };
    this.requests.push(recorded);
    const route = `${recorded.method} ${recorded.path}`;
    if (route === 'GET /v1/oauth-meta/authorize') return this.#authorize(recorded, response);
    if (route === 'POST /v1/oauth-meta/get_token') return this.#getToken(recorded, response);
    if (route === 'POST /v1/oauth-meta/user/logout') {
      return reply(response, 200, '{"code":1,"message":"success","data":[]}');
    }
    if (route === 'POST /v1/oauth/status/login' || route === 'POST /v1/oauth/status/logout') {
      return this.#status(recorded, recorded.path.endsWith('login') ? 'logged_in' : 'logged_out', response);
    }
    if (route === 'GET /v1/oauth/status/check') return this.#status(recorded, 'logged_out', response);
    reply(response, 404, '{"success":false,"error":"not_found","message":"no such route"}');
  }

  #authorize(request: RecordedRequest, response: ServerResponse): void {
    const { query } = request;
    const jwt = request.authorization?.replace(/^Bearer /, '');
    if (!jwt) return reply(response, 401, '{"code":401,"message":"missing bearer token","data":[]}');
    if (jwt === 'expired-jwt')
      return reply(response, 401, '{"code":401,"message":"EXPIRED_TOKEN","data":[]}');
    // As the service renders it (docs/backend-integration.md): the message is the identifier.
    if (jwt === 'no-wallet-jwt')
      return reply(response, 409, '{"code":409,"message":"wallet_required","data":[]}');
    if (query.has('response_type') || query.get('respose_type') !== 'code') {
      return reply(response, 400, '{"code":400,"message":"respose_type must be code","data":[]}');
    }
    if (
      query.get('client_id') !== this.#options.clientId ||
      query.get('redirect_uri') !== this.#options.redirectUri
    ) {
      return reply(response, 401, '{"code":401,"message":"redirect_uri mismatch"}');
    }
    const state = query.get('state') ?? '';
    const code = `code-${++this.#codeCounter}`;
    this.#codes.set(code, 'issued');
    const delay = this.#options.authorizeDelayMs;
    if (delay) {
      const exchanged = new Promise<void>((resolve) => this.#exchanged.set(code, resolve));
      void this.#sendCallback(state, code);
      void exchanged
        .then(() => new Promise((resolve) => setTimeout(resolve, delay)))
        .then(() => {
          this.answeredAt.push({ path: request.path, at: Date.now() });
          reply(
            response,
            200,
            '{"code":1,"message":{"res":"ok","status_code":200,"status_msg":"slot ready"},"data":[]}',
          );
        });
      return;
    }
    response.on('finish', () => void this.#sendCallback(state, code));
    reply(
      response,
      200,
      '{"code":1,"message":{"res":"ok","status_code":200,"status_msg":"slot ready"},"data":[]}',
    );
  }

  async #sendCallback(state: string, code: string): Promise<void> {
    if (this.#options.callback === 'none') return;
    const payload =
      this.#options.callback === 'success' ? { success: 1, code, state } : { success: 0, code: '', state };
    let status = 0;
    try {
      const answer = await fetch(this.#options.redirectUri, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(payload),
      });
      status = answer.status;
    } catch {
      status = -1;
    }
    this.callbackStatuses.push(status);
    this.#callbackWaiters.shift()?.(status);
  }

  async #getToken(request: RecordedRequest, response: ServerResponse): Promise<void> {
    if (this.#options.tokenDelayMs)
      await new Promise((resolve) => setTimeout(resolve, this.#options.tokenDelayMs));
    if (this.#options.tokenResponse) {
      return reply(response, this.#options.tokenResponse.status, this.#options.tokenResponse.body);
    }
    const body = JSON.parse(request.body) as Record<string, string>;
    const failure = (code: number, message: string): void =>
      reply(response, 200, JSON.stringify({ code, message, data: [] }));
    if (body.client_id !== this.#options.clientId) return failure(570, 'unregistered');
    if (body.client_secret !== this.#options.clientSecret) return failure(410, 'client mismatch');
    if (body.grant_type === 'refresh_token') {
      if (body.refresh_token !== 'rt-1') return failure(510, 'refresh token expired');
      return reply(response, 200, this.#slotBody('refreshed'));
    }
    if (body.grant_type !== 'authorization_code') return failure(400, 'unsupported grant_type');
    const state = this.#codes.get(body.code ?? '');
    if (state === undefined) return failure(570, 'unregistered');
    if (state === 'used') return failure(510, 'code expired');
    this.#codes.set(body.code ?? '', 'used');
    reply(response, 200, this.#slotBody(body.code ?? ''));
    this.answeredAt.push({ path: request.path, at: Date.now() });
    this.#exchanged.get(body.code ?? '')?.();
  }

  #slotBody(code: string): string {
    // Written by hand: JSON.stringify cannot emit a 19-digit number exactly.
    const slot =
      `{"id":${this.#options.slotIdJson},"access_token":"at-${code}","refresh_token":"rt-1","expires_in":3600,` +
      `"content_address":"0x5fbdb2315678afecb367f032d93f642f64180aa3","token_nickname":"neo","tr_cnt":0,"code":"${code}"}`;
    return `{"code":1,"message":"success","data":[${slot}]}`;
  }

  #status(request: RecordedRequest, status: 'logged_in' | 'logged_out', response: ServerResponse): void {
    if (request.authorization !== 'Bearer at-good') {
      return reply(response, 401, '{"success":false,"error":"invalid_token","message":"token is not valid"}');
    }
    const userId = request.query.get('user_id') ?? (JSON.parse(request.body) as { user_id: string }).user_id;
    reply(
      response,
      200,
      JSON.stringify({
        success: true,
        message: `status ${status}`,
        user_id: userId,
        status,
        transfer_enabled: status === 'logged_out',
        timestamp: '2025-01-01T00:00:00.000Z',
      }),
    );
  }
}

function reply(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(body);
}
