import type { HttpClient } from './httpClient.js';

/** A player as the players directory lists them (docs/players.md). */
export interface DirectoryPlayer {
  user_id: string;
  created_at: string;
  last_seen_at: string;
  guest: boolean;
  wallet_address: string | null;
  /** Only where a grant of the player has the `email` scope. */
  email?: string;
}

export interface PlayerPage {
  players: DirectoryPlayer[];
  /** Pass back as `cursor` for the next page; null on the last. */
  next_cursor: string | null;
}

export interface PlayerDetail extends DirectoryPlayer {
  slots: {
    slot_id: string;
    content_address: string;
    token_nickname: string;
    meta_idx: number;
    state: string;
    created_at: string;
  }[];
  purchases: { at: string; cuid: string; amount: string }[];
  consumption: { cuid: string; records: number; amount: string }[];
  session_keys: {
    key_address: string;
    account_address: string;
    valid_until: string;
    state: string;
    created_at: string;
  }[];
}

export interface PregeneratedPlayer {
  user_id: string;
  wallet_address: string;
  /** False when the e-mail or identity had been pre-generated before (the same player is answered). */
  created: boolean;
}

export interface ManagementClientOptions {
  /** The dauth service, e.g. `https://auth.example.com`. */
  authServerUrl: string;
  /** The service account's `client_id` (`sa_…`) and secret. */
  clientId: string;
  clientSecret: string;
  /** The organization the service account belongs to. */
  orgId: string;
  /** Scopes to ask for (default: every scope of the account). */
  scopes?: string[];
  http?: HttpClient;
}

/** A refused management call: `status` and the service's `error` code (`insufficient_scope`, …). */
export class ManagementError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ManagementError';
  }
}

/**
 * The organization's management API for a service account (docs/machines.md): it gets a
 * client_credentials token at `/oauth/token` (HTTP Basic), keeps it until a minute before it expires,
 * and calls the players directory and pre-generation with it. A 401 gets a fresh token once.
 */
export class DauthManagementClient {
  readonly #options: ManagementClientOptions;
  readonly #http: HttpClient;
  #token: { value: string; until: number } | undefined;

  constructor(options: ManagementClientOptions) {
    this.#options = { ...options, authServerUrl: options.authServerUrl.replace(/\/+$/, '') };
    this.#http = options.http ?? ((url, init) => globalThis.fetch(url, init));
  }

  /** The players of an app, a page at a time; `q` finds one by user_id, wallet address or e-mail. */
  listPlayers(
    clientId: string,
    query: { limit?: number; cursor?: string; q?: string } = {},
  ): Promise<PlayerPage> {
    const params = new URLSearchParams();
    if (query.limit !== undefined) params.set('limit', String(query.limit));
    if (query.cursor !== undefined) params.set('cursor', query.cursor);
    if (query.q !== undefined) params.set('q', query.q);
    const suffix = params.size > 0 ? `?${params}` : '';
    return this.#call<PlayerPage>('GET', `${this.#appPath(clientId)}/players${suffix}`);
  }

  /** Every player of an app, page after page. */
  async *allPlayers(clientId: string, pageSize = 200): AsyncGenerator<DirectoryPlayer> {
    let cursor: string | undefined;
    do {
      const page = await this.listPlayers(clientId, { limit: pageSize, ...(cursor ? { cursor } : {}) });
      yield* page.players;
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
  }

  getPlayer(clientId: string, userId: string): Promise<PlayerDetail> {
    return this.#call<PlayerDetail>(
      'GET',
      `${this.#appPath(clientId)}/players/${encodeURIComponent(userId)}`,
    );
  }

  /** Ends the player's grant for the app (every token, on every replica). */
  async revokePlayer(clientId: string, userId: string): Promise<{ revoked_grants: number }> {
    return this.#call('POST', `${this.#appPath(clientId)}/players/${encodeURIComponent(userId)}/revoke`, {});
  }

  /** A player before their first sign-in, by e-mail or platform identity, with the wallet address. */
  async pregeneratePlayer(
    clientId: string,
    who: { email: string } | { platform: { provider: string; subject: string } },
  ): Promise<PregeneratedPlayer> {
    const { body, status } = await this.#request<{ user_id: string; wallet_address: string }>(
      'POST',
      `${this.#appPath(clientId)}/players/pregenerate`,
      who,
    );
    return { user_id: body.user_id, wallet_address: body.wallet_address, created: status === 201 };
  }

  #appPath(clientId: string): string {
    return `/v1/orgs/${encodeURIComponent(this.#options.orgId)}/apps/${encodeURIComponent(clientId)}`;
  }

  async #call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    return (await this.#request<T>(method, path, body)).body;
  }

  async #request<T>(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: T }> {
    for (let attempt = 0; ; attempt++) {
      const token = await this.#accessToken(attempt > 0);
      const response = await this.#http(`${this.#options.authServerUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const parsed = parseBody(await response.text());
      if (response.status === 401 && attempt === 0) continue;
      if (response.status >= 400) throw refusal(response.status, parsed);
      return { status: response.status, body: parsed as T };
    }
  }

  async #accessToken(renew: boolean): Promise<string> {
    if (!renew && this.#token && this.#token.until > Date.now()) return this.#token.value;
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (this.#options.scopes) form.set('scope', this.#options.scopes.join(' '));
    const basic = btoa(
      `${encodeURIComponent(this.#options.clientId)}:${encodeURIComponent(this.#options.clientSecret)}`,
    );
    const response = await this.#http(`${this.#options.authServerUrl}/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${basic}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: form.toString(),
    });
    const parsed = parseBody(await response.text());
    if (response.status !== 200) throw refusal(response.status, parsed);
    const { access_token: value, expires_in: expiresIn } = parsed as {
      access_token: string;
      expires_in: number;
    };
    this.#token = { value, until: Date.now() + Math.max(0, expiresIn - 60) * 1000 };
    return value;
  }
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return {};
  }
}

function refusal(status: number, body: unknown): ManagementError {
  const { error, message } = (body ?? {}) as { error?: string; message?: string };
  return new ManagementError(status, error ?? 'http_error', message ?? `HTTP ${status}`);
}
