import { randomBytes } from 'node:crypto';
import { safeEqual } from '../../crypto/constantTime.js';
import { AppError } from '../../errors.js';
import type { ClientStore, OAuthClient } from '../../stores/clientStore.js';
import { invalidClient } from './oauthErrors.js';
import { deriveKey, hmacHex, newOpaqueToken } from './opaqueToken.js';

export type { OAuthClient } from '../../stores/clientStore.js';

export const MAX_REDIRECT_URIS = 10;
const MAX_REDIRECT_URI_LENGTH = 2000;

/** The public view of an app: never its secret nor the secret's hash. */
export interface ClientView {
  clientId: string;
  name: string;
  redirectUris: string[];
  dapp: boolean;
  ownerUuid: number;
  createdAt: number;
}

export const viewOf = (c: OAuthClient): ClientView => ({
  clientId: c.clientId,
  name: c.name,
  redirectUris: [...c.redirectUris],
  dapp: c.dapp,
  ownerUuid: c.ownerUuid,
  createdAt: c.createdAt,
});

/** Returns the problem with a redirect URI, or undefined when it may be registered. */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.length === 0 || uri.length > MAX_REDIRECT_URI_LENGTH) {
    return `must be 1 to ${MAX_REDIRECT_URI_LENGTH} characters`;
  }
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must use https or http';
  if (uri.includes('#')) return 'must not contain a fragment';
  if (url.username || url.password) return 'must not contain credentials';
  if (/\s/.test(uri)) return 'must not contain whitespace';
  return undefined;
}

/**
 * Apps (OAuth clients). Secrets are 256-bit random values, so a keyed fast hash (HMAC-SHA256
 * under a key derived from MASTER_KEY) is the right storage: no password-style stretching is
 * needed, and a stolen table alone cannot even confirm a guess. Clients are immutable once
 * registered, so every replica may cache them in memory.
 */
export class ClientService {
  readonly #secretKey: Buffer;
  readonly #cache = new Map<string, OAuthClient>();
  /** Compared against when the client is unknown, so a miss costs the same as a wrong secret. */
  readonly #dummyHash: string;
  static readonly CACHE_LIMIT = 10_000;

  constructor(
    private readonly store: ClientStore,
    masterKey: Buffer,
    private readonly now: () => number = Date.now,
  ) {
    this.#secretKey = deriveKey(masterKey, 'client-secret/v1');
    this.#dummyHash = hmacHex(this.#secretKey, randomBytes(32).toString('hex'));
  }

  /** Registers an app; the returned secret is shown once and never stored. */
  async create(input: {
    ownerUuid: number;
    name: string;
    redirectUris: string[];
    dapp?: boolean | undefined;
  }): Promise<{ client: ClientView; clientSecret: string }> {
    const name = input.name.trim();
    if (name.length === 0 || name.length > 200) {
      throw new AppError(400, 'invalid_request', 'name must be 1 to 200 characters', { field: 'name' });
    }
    if (input.redirectUris.length === 0 || input.redirectUris.length > MAX_REDIRECT_URIS) {
      throw new AppError(400, 'invalid_request', `redirect_uris must hold 1 to ${MAX_REDIRECT_URIS} URIs`, {
        field: 'redirect_uris',
      });
    }
    for (const uri of input.redirectUris) {
      const problem = redirectUriProblem(uri);
      if (problem) {
        throw new AppError(400, 'invalid_redirect_uri', `redirect_uris: ${JSON.stringify(uri)} ${problem}`, {
          field: 'redirect_uris',
        });
      }
    }
    const clientSecret = newOpaqueToken();
    const client: OAuthClient = {
      clientId: randomBytes(16).toString('hex'),
      ownerUuid: input.ownerUuid,
      name,
      redirectUris: [...new Set(input.redirectUris)],
      dapp: input.dapp === true,
      secretHash: hmacHex(this.#secretKey, clientSecret),
      createdAt: this.now(),
    };
    await this.store.insert(client);
    return { client: viewOf(client), clientSecret };
  }

  async listOwn(ownerUuid: number): Promise<ClientView[]> {
    return (await this.store.listByOwner(ownerUuid)).map(viewOf);
  }

  async findClient(clientId: string): Promise<OAuthClient | undefined> {
    const cached = this.#cache.get(clientId);
    if (cached) return cached;
    if (clientId.length === 0 || clientId.length > 64) return undefined;
    const client = await this.store.findById(clientId);
    if (client) {
      if (this.#cache.size >= ClientService.CACHE_LIMIT) {
        this.#cache.delete(this.#cache.keys().next().value as string);
      }
      this.#cache.set(clientId, client);
    }
    return client;
  }

  /** True when the secret is the client's; constant time, and as slow for unknown clients. */
  async verifyClientSecret(clientId: string, secret: string): Promise<boolean> {
    const client = await this.findClient(clientId);
    const presented = hmacHex(this.#secretKey, secret);
    const ok = safeEqual(presented, client?.secretHash ?? this.#dummyHash);
    return client !== undefined && ok;
  }

  /** The client, when the credentials are right; else `invalid_client` (401). */
  async authenticateClient(clientId: string, secret: string): Promise<OAuthClient> {
    const client = await this.findClient(clientId);
    const presented = hmacHex(this.#secretKey, secret);
    const ok = safeEqual(presented, client?.secretHash ?? this.#dummyHash);
    if (!client || !ok) throw invalidClient();
    return client;
  }

  /** Exact string comparison with each registered URI (no normalisation, no prefix matching). */
  isRegisteredRedirect(client: Pick<OAuthClient, 'redirectUris'>, uri: string): boolean {
    return client.redirectUris.includes(uri);
  }
}
