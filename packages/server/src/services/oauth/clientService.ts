import { createHmac, type KeyObject, randomBytes, timingSafeEqual } from 'node:crypto';
import { deriveHmacKey } from '../../crypto/derivedKey.js';
import { AppError } from '../../errors.js';
import type { ClientStore, OAuthClient } from '../../stores/clientStore.js';
import type { AppAccess } from '../orgs/appAccess.js';
import type { Actor } from '../orgs/roles.js';
import type { CallbackTargetPolicy } from './callbackTargetPolicy.js';
import type { ClientRowCheck } from '../../stores/oauthGrantStore.js';
import type { ClientCache } from './clientCache.js';
import { invalidClient } from './oauthErrors.js';
import { hmacHex, newOpaqueToken } from './opaqueToken.js';

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
  postLogoutRedirectUris: string[];
  requireMfa: boolean;
  /** The organization the app belongs to (docs/orgs.md). */
  orgId: string | undefined;
}

export const viewOf = (c: OAuthClient): ClientView => ({
  clientId: c.clientId,
  name: c.name,
  redirectUris: [...c.redirectUris],
  dapp: c.dapp,
  ownerUuid: c.ownerUuid,
  createdAt: c.createdAt,
  postLogoutRedirectUris: [...c.postLogoutRedirectUris],
  requireMfa: c.requireMfa === true,
  orgId: c.orgId,
});

/** What a commit re-checks of a cached row (docs/oauth.md, "The client cache"). */
export const rowCheckOf = (c: OAuthClient): ClientRowCheck => ({
  secretHash: c.secretHash,
  previousSecretHash: c.previousSecret?.hash ?? null,
  previousSecretExpiresAt: c.previousSecret?.expiresAt ?? null,
  dapp: c.dapp,
});

const clientNotFound = () => new AppError(404, 'client_not_found', 'You have no app with this client_id');

function checkRedirectCount(uris: readonly string[]): void {
  if (uris.length === 0 || uris.length > MAX_REDIRECT_URIS) {
    throw new AppError(400, 'invalid_request', `redirect_uris must hold 1 to ${MAX_REDIRECT_URIS} URIs`, {
      field: 'redirect_uris',
    });
  }
}

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
 * Control, format (bidi overrides, zero-width joiners, …), line/paragraph separator, private-use and
 * surrogate characters: none belongs in a name shown to users on the consent page.
 */
const INVISIBLE_OR_CONTROL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cs}]/u;

/**
 * An app name as stored and shown: NFKC-normalised (full-width and other compatibility look-alikes
 * fold to their plain letters), trimmed, 1 to 200 characters, without invisible or control
 * characters. Throws a 400 naming `name` otherwise.
 */
export function normaliseAppName(raw: string): string {
  const name = raw.normalize('NFKC').trim();
  if (name.length === 0 || name.length > 200) {
    throw new AppError(400, 'invalid_request', 'name must be 1 to 200 characters', { field: 'name' });
  }
  if (INVISIBLE_OR_CONTROL.test(name)) {
    throw new AppError(
      400,
      'invalid_request',
      'name must not contain control, bidirectional or other invisible characters',
      { field: 'name' },
    );
  }
  if (name.split(/[^\p{L}\p{M}]+/u).some(mixesConfusableScripts)) {
    throw new AppError(
      400,
      'invalid_request',
      'name must not mix Latin, Greek, Cyrillic or Armenian letters within one word',
      { field: 'name' },
    );
  }
  return name;
}

/**
 * The scripts whose letters pass for each other ("pаypal" with a Cyrillic а). A word written in one of them
 * is fine; a word mixing two is how a look-alike of another app's name is made (UTS #39's single-script
 * rule, applied per word so "Game Игра" stays a valid name).
 */
const CONFUSABLE_SCRIPTS = [
  /\p{Script=Latin}/u,
  /\p{Script=Greek}/u,
  /\p{Script=Cyrillic}/u,
  /\p{Script=Armenian}/u,
];
const mixesConfusableScripts = (word: string): boolean =>
  CONFUSABLE_SCRIPTS.filter((script) => script.test(word)).length > 1;

/**
 * An app name as the consent page shows it: normalised, with any invisible or control character
 * removed (names registered before these rules may still hold some). The page also isolates it
 * (`<bdi>`), so right-to-left text cannot reorder the sentence around it.
 */
export function displayAppName(name: string): string {
  return (
    name.normalize('NFKC').replace(new RegExp(INVISIBLE_OR_CONTROL.source, 'gu'), '').trim() ||
    '(unnamed app)'
  );
}

/**
 * Apps (OAuth clients). Secrets are 256-bit random values, so a keyed fast hash (HMAC-SHA256
 * under a key derived from MASTER_KEY) is the right storage: no password-style stretching is
 * needed, and a stolen table alone cannot even confirm a guess. Apps change (edit, secret rotation,
 * delete: docs/accounts.md): lookups read the database, except `authenticateThen` (the code exchange), which
 * reads a `ClientCache` when one is given and has the caller re-check the row where it commits. Every change
 * here is reported to the cache after it is committed and before the call returns, which drops the row on
 * this replica and tells the others (docs/oauth.md, "The client cache").
 */
export class ClientService {
  /**
   * A `KeyObject`, not a `Buffer`: node:crypto imports a raw key on every `createHmac`, which cost ~10 µs
   * of the ~12 µs an HMAC took here, on every client-authenticated call (docs/performance-http.md).
   */
  readonly #secretKey: KeyObject;
  /** Compared against when the client is unknown, so a miss costs the same as a wrong secret. */
  readonly #dummyHash: Buffer;
  readonly #cache: ClientCache | undefined;
  private readonly now: () => number;
  readonly #load = (clientId: string) => this.store.findById(clientId);

  constructor(
    private readonly store: ClientStore,
    masterKey: Buffer,
    /** Who may manage an app: members of its organization by role (docs/orgs.md). */
    private readonly access: Pick<AppAccess, 'require'>,
    /** The SSRF policy for redirect URIs (decisions §7); absent in unit tests of other parts. */
    private readonly targets?: CallbackTargetPolicy,
    options: {
      now?: (() => number) | undefined;
      /** The rows in memory, followed across replicas; absent: every lookup reads the database. */
      cache?: ClientCache | undefined;
    } = {},
  ) {
    this.now = options.now ?? Date.now;
    this.#cache = options.cache;
    this.#secretKey = deriveHmacKey(masterKey, 'client-secret/v1');
    this.#dummyHash = createHmac('sha256', this.#secretKey).update(randomBytes(32).toString('hex')).digest();
  }

  /**
   * Registers an app in an organization (the caller checked the creator may: `OrgService.orgForNewApp`);
   * the returned secret is shown once and never stored.
   */
  async create(input: {
    ownerUuid: number;
    orgId: string;
    name: string;
    redirectUris: string[];
    dapp?: boolean | undefined;
    /** OpenID Connect RP-initiated logout targets; the same rules as redirect URIs, 0 to 10. */
    postLogoutRedirectUris?: string[] | undefined;
  }): Promise<{ client: ClientView; clientSecret: string }> {
    const name = normaliseAppName(input.name);
    checkRedirectCount(input.redirectUris);
    const postLogoutRedirectUris = input.postLogoutRedirectUris ?? [];
    if (postLogoutRedirectUris.length > MAX_REDIRECT_URIS) {
      throw new AppError(
        400,
        'invalid_request',
        `post_logout_redirect_uris must hold at most ${MAX_REDIRECT_URIS} URIs`,
        { field: 'post_logout_redirect_uris' },
      );
    }
    const lists = [
      ['redirect_uris', input.redirectUris],
      ['post_logout_redirect_uris', postLogoutRedirectUris],
    ] as const;
    for (const [field, uris] of lists) await this.#checkUris(field, uris);
    const clientSecret = newOpaqueToken();
    const client: OAuthClient = {
      clientId: randomBytes(16).toString('hex'),
      ownerUuid: input.ownerUuid,
      name,
      redirectUris: [...new Set(input.redirectUris)],
      dapp: input.dapp === true,
      secretHash: hmacHex(this.#secretKey, clientSecret),
      createdAt: this.now(),
      postLogoutRedirectUris: [...new Set(postLogoutRedirectUris)],
      orgId: input.orgId,
    };
    await this.store.insert(client);
    return { client: viewOf(client), clientSecret };
  }

  /**
   * Edits a live app (the caller `developer` or higher in its organization): its name and/or redirect
   * URIs, under the same rules as registration (including the SSRF policy). Another organization's app is
   * `client_not_found` (404), like a missing one, so app ids cannot be probed.
   */
  async update(
    actor: Actor,
    clientId: string,
    changes: {
      name?: string | undefined;
      redirectUris?: string[] | undefined;
      requireMfa?: boolean | undefined;
    },
  ): Promise<ClientView> {
    await this.access.require(clientId, actor, 'configure');
    // A body of unknown fields only reaches here with nothing to change; say so rather than write nothing.
    if (
      changes.name === undefined &&
      changes.redirectUris === undefined &&
      changes.requireMfa === undefined
    ) {
      throw new AppError(400, 'invalid_request', 'Give name, redirect_uris and/or require_mfa to change', {
        field: 'body',
      });
    }
    const name = changes.name === undefined ? undefined : normaliseAppName(changes.name);
    let redirectUris: string[] | undefined;
    if (changes.redirectUris !== undefined) {
      checkRedirectCount(changes.redirectUris);
      await this.#checkUris('redirect_uris', changes.redirectUris);
      redirectUris = [...new Set(changes.redirectUris)];
    }
    const stored = { name, redirectUris, requireMfa: changes.requireMfa };
    const updated = await this.store.update(clientId, stored);
    await this.#changed(clientId);
    if (!updated) throw clientNotFound();
    const client = await this.store.findById(clientId);
    if (!client) throw clientNotFound();
    return viewOf(client);
  }

  /**
   * A new secret for a live app (the caller `admin` or higher in its organization), shown once. The old one keeps working for
   * `graceSeconds` (CLIENT_SECRET_GRACE_SECONDS) so the app's servers can be redeployed; a second
   * rotation within the grace ends the first old secret at once.
   */
  async rotateSecret(
    actor: Actor,
    clientId: string,
    graceSeconds: number,
  ): Promise<{ clientSecret: string; oldSecretValidUntil: number }> {
    await this.access.require(clientId, actor, 'secrets');
    const clientSecret = newOpaqueToken();
    const oldSecretValidUntil = this.now() + graceSeconds * 1000;
    const rotated = await this.store.rotateSecret(
      clientId,
      hmacHex(this.#secretKey, clientSecret),
      oldSecretValidUntil,
    );
    await this.#changed(clientId);
    if (!rotated) throw clientNotFound();
    return { clientSecret, oldSecretValidUntil };
  }

  /**
   * Deletes a live app (the caller `admin` or higher in its organization); the caller then revokes its
   * grants (`OAuthService.revokeClientGrants`).
   */
  async remove(actor: Actor, clientId: string): Promise<void> {
    await this.access.require(clientId, actor, 'delete');
    const deleted = await this.store.markDeleted(clientId, this.now());
    await this.#changed(clientId);
    if (!deleted) throw clientNotFound();
  }

  /** The cache the token endpoint's exchange reads through, if any (observability and tests). */
  get cache(): ClientCache | undefined {
    return this.#cache;
  }

  async findClient(clientId: string): Promise<OAuthClient | undefined> {
    if (clientId.length === 0 || clientId.length > 64) return undefined;
    return this.store.findById(clientId);
  }

  /**
   * Authenticates the client from the cache (the database on a miss) and runs `use` with it, telling it to
   * re-check the row where it commits (`checkAtCommit: true`, e.g. `redeemCode`'s client check): a row that
   * another replica changed a moment ago, before its invalidation arrived here, then makes the commit refuse.
   * When `use` fails with an error `couldBeStale` accepts, the stored row is read: if it differs from the one
   * used, the cache drops it and the whole call runs again on the stored row (authentication included,
   * `checkAtCommit: false`); otherwise the error stands. Without a cache: the stored row, no re-check.
   */
  async authenticateThen<T>(
    clientId: string,
    secret: string,
    use: (client: OAuthClient, checkAtCommit: boolean) => Promise<T>,
    couldBeStale: (err: unknown) => boolean,
  ): Promise<T> {
    const cache = this.#cache;
    if (!cache || clientId.length === 0 || clientId.length > 64) {
      return use(await this.authenticateClient(clientId, secret), false);
    }
    const held = await cache.get(clientId, this.#load);
    const ok = this.#secretMatches(held, secret);
    if (held && ok) {
      try {
        return await use(held, true);
      } catch (err) {
        if (!couldBeStale(err) || !(await this.#dropIfStale(held))) throw err;
      }
    } else if (held && (await this.#dropIfStale(held))) {
      // The held row refused the secret but is out of date: the stored row decides (below).
    } else {
      throw invalidClient();
    }
    return use(await this.authenticateClient(clientId, secret), false);
  }

  /**
   * `checkClientSecret` from the cache when one is given (the database on a miss, the row then kept): for
   * callers that tell an unknown client from a wrong secret (get_token's envelope codes). `heldRow` is set
   * when the row came from memory: it may be out of date by a message still in flight from another replica,
   * so the caller's commit must re-check it (`exchangeBackendCode`'s `clientRow`), and a refusal (a wrong
   * secret, or a commit that refused) is decided again by `checkClientSecret` after `dropIfChanged`.
   */
  async checkClientSecretCached(
    clientId: string,
    secret: string,
  ): Promise<{
    client: OAuthClient | undefined;
    secretMatches: boolean;
    heldRow?: ClientRowCheck | undefined;
  }> {
    const cache = this.#cache;
    if (!cache || clientId.length === 0 || clientId.length > 64)
      return this.checkClientSecret(clientId, secret);
    let loaded = false;
    const client = await cache.get(clientId, (id) => {
      loaded = true;
      return this.#load(id);
    });
    const secretMatches = this.#secretMatches(client, secret);
    return { client, secretMatches, heldRow: client && !loaded ? rowCheckOf(client) : undefined };
  }

  /**
   * The live client from the cache when one is given (the database on a miss, the row then kept); `held`
   * when it came from memory, so it may be out of date by a message still in flight: the caller's commit
   * re-checks what it used (backend authorize: `BackendCodeStore.insert`'s `heldRedirectUris`), and on a
   * refusal calls `forgetCached` and decides again with `findClient`.
   */
  async findClientCached(clientId: string): Promise<{ client: OAuthClient | undefined; held: boolean }> {
    const cache = this.#cache;
    if (!cache || clientId.length === 0 || clientId.length > 64) {
      return { client: await this.findClient(clientId), held: false };
    }
    let loaded = false;
    const client = await cache.get(clientId, (id) => {
      loaded = true;
      return this.#load(id);
    });
    return { client, held: client !== undefined && !loaded };
  }

  /** A held row was refused where it was re-checked: the stored row differs, so this replica drops it. */
  async forgetCached(clientId: string): Promise<void> {
    await this.#cache?.forget(clientId);
  }

  /** A row the cache held was refused: dropped here when the stored row differs (or is gone). */
  async dropIfChanged(clientId: string, held: ClientRowCheck): Promise<void> {
    const stored = await this.store.findById(clientId);
    const same =
      stored !== undefined &&
      stored.secretHash === held.secretHash &&
      (stored.previousSecret?.hash ?? null) === held.previousSecretHash &&
      (stored.previousSecret?.expiresAt ?? null) === held.previousSecretExpiresAt &&
      stored.dapp === held.dapp;
    if (!same) await this.#cache?.forget(clientId);
  }

  /** True (and the row dropped from the cache) when the stored row differs from `held` or is gone. */
  async #dropIfStale(held: OAuthClient): Promise<boolean> {
    const stored = await this.store.findById(held.clientId);
    const same =
      stored !== undefined &&
      stored.secretHash === held.secretHash &&
      stored.previousSecret?.hash === held.previousSecret?.hash &&
      stored.previousSecret?.expiresAt === held.previousSecret?.expiresAt &&
      stored.dapp === held.dapp;
    if (same) return false;
    await this.#cache?.forget(held.clientId);
    return true;
  }

  /** A committed change (or an attempt that found nothing): this replica and the others drop the row. */
  async #changed(clientId: string): Promise<void> {
    await this.#cache?.changed(clientId);
  }

  /** True when the secret is the client's; constant time, and as slow for unknown clients. */
  async verifyClientSecret(clientId: string, secret: string): Promise<boolean> {
    return (await this.checkClientSecret(clientId, secret)).secretMatches;
  }

  /**
   * The client (undefined when unknown) and whether `secret` is its secret, from one lookup: for
   * callers that answer an unknown client and a wrong secret differently. Constant time, and as slow
   * for unknown clients.
   */
  async checkClientSecret(
    clientId: string,
    secret: string,
  ): Promise<{ client: OAuthClient | undefined; secretMatches: boolean }> {
    const client = await this.findClient(clientId);
    return { client, secretMatches: this.#secretMatches(client, secret) };
  }

  /** The client, when the credentials are right; else `invalid_client` (401). */
  async authenticateClient(clientId: string, secret: string): Promise<OAuthClient> {
    const client = await this.findClient(clientId);
    const ok = this.#secretMatches(client, secret);
    if (!client || !ok) throw invalidClient();
    return client;
  }

  /** The current secret, or the rotated-out one within its grace; both compared every time (constant time). */
  #secretMatches(client: OAuthClient | undefined, secret: string): boolean {
    // Both sides are 32-byte HMAC digests, so `timingSafeEqual` compares them directly (no further
    // hashing to equalise lengths: a stored hash of another length never matches).
    const presented = createHmac('sha256', this.#secretKey).update(secret).digest();
    const current = this.#digestEquals(presented, client?.secretHash);
    const previous = client?.previousSecret;
    const previousOk = this.#digestEquals(presented, previous?.hash);
    const previousLive = previous !== undefined && previous.expiresAt > this.now();
    return client !== undefined && (current || (previousOk && previousLive));
  }

  /** Constant time: the presented digest against a stored one (hex), or the dummy when there is none. */
  #digestEquals(presented: Buffer, storedHex: string | undefined): boolean {
    const stored = storedHex === undefined ? undefined : Buffer.from(storedHex, 'hex');
    const usable = stored !== undefined && stored.length === presented.length;
    const same = timingSafeEqual(presented, usable ? stored : this.#dummyHash);
    return usable && same;
  }

  async #checkUris(field: string, uris: readonly string[]): Promise<void> {
    for (const uri of uris) {
      const problem = redirectUriProblem(uri) ?? (await this.targets?.registrationProblem(uri));
      if (problem) {
        throw new AppError(400, 'invalid_redirect_uri', `${field}: ${JSON.stringify(uri)} ${problem}`, {
          field,
        });
      }
    }
  }

  /** RP-initiated logout targets: exact string comparison, like redirect URIs. */
  isRegisteredPostLogoutRedirect(client: Pick<OAuthClient, 'postLogoutRedirectUris'>, uri: string): boolean {
    return client.postLogoutRedirectUris.includes(uri);
  }

  /** Exact string comparison with each registered URI (no normalisation, no prefix matching). */
  isRegisteredRedirect(client: Pick<OAuthClient, 'redirectUris'>, uri: string): boolean {
    return client.redirectUris.includes(uri);
  }
}
