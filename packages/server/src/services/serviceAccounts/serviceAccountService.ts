import { createHmac, type KeyObject, randomBytes, timingSafeEqual } from 'node:crypto';
import { deriveHmacKey } from '../../crypto/derivedKey.js';
import { AppError, insufficientScope, invalidField } from '../../errors.js';
import type { RevocationEntry } from '../../stores/oauthRevocationStore.js';
import type { ServiceAccount, ServiceAccountStore } from '../../stores/serviceAccountStore.js';
import { type ClientTokens, grantClientCredentials } from '../oauth/clientCredentialsGrant.js';
import { grantEntryExpiry } from '../oauth/grantRevocation.js';
import { invalidClient } from '../oauth/oauthErrors.js';
import { hmacHex, newOpaqueToken } from '../oauth/opaqueToken.js';
import { clientGrantId, type TokenClaims, type TokenService } from '../tokens/tokenService.js';
import { isManagementScope, MANAGEMENT_SCOPES, type ManagementScope } from './scopes.js';

/** Every service account's `client_id` starts with this: `/oauth/token` knows which table to ask. */
export const SERVICE_ACCOUNT_PREFIX = 'sa_';

export const isServiceAccountId = (clientId: string): boolean => clientId.startsWith(SERVICE_ACCOUNT_PREFIX);

/** The public view of a service account: never its secret nor the secret's hash. */
export interface ServiceAccountView {
  clientId: string;
  orgId: string;
  name: string;
  scopes: string[];
  createdBy: number;
  createdAt: number;
  lastUsedAt: number | undefined;
}

const viewOf = (a: ServiceAccount): ServiceAccountView => ({
  clientId: a.clientId,
  orgId: a.orgId,
  name: a.name,
  scopes: [...a.scopes],
  createdBy: a.createdBy,
  createdAt: a.createdAt,
  lastUsedAt: a.lastUsedAt,
});

/** A service account calling a management route with its client_credentials token. */
export interface ServiceActor {
  kind: 'service';
  clientId: string;
  orgId: string;
  scopes: readonly ManagementScope[];
}

export const serviceAccountNotFound = () =>
  new AppError(
    404,
    'service_account_not_found',
    'This organization has no service account with this client_id',
  );

/** At most this many live service accounts per organization. */
export const MAX_SERVICE_ACCOUNTS = 50;

/**
 * An organization's service accounts (decisions §9 "Machines", docs/machines.md): machine clients with
 * management scopes, which get client_credentials tokens at `/oauth/token` and call the org's
 * management routes with them. Secrets are 256-bit random values stored as a keyed HMAC (as apps'),
 * shown once; a rotation keeps the old one for a grace period; deletion revokes every token at once,
 * on every replica. The caller (the route) has checked the person's role in the organization.
 */
export class ServiceAccountService {
  readonly #secretKey: KeyObject;
  readonly #dummyHash: Buffer;

  constructor(
    private readonly store: ServiceAccountStore,
    private readonly tokens: Pick<TokenService, 'issueClientToken'>,
    private readonly revocations: { revoke(entry: RevocationEntry): Promise<void> },
    masterKey: Buffer,
    private readonly now: () => number = Date.now,
  ) {
    this.#secretKey = deriveHmacKey(masterKey, 'service-account-secret/v1');
    this.#dummyHash = createHmac('sha256', this.#secretKey).update(randomBytes(32).toString('hex')).digest();
  }

  /** Makes a service account; its secret is returned once and never stored. */
  async create(input: {
    orgId: string;
    createdBy: number;
    name: string;
    scopes: readonly string[];
  }): Promise<{ account: ServiceAccountView; clientSecret: string }> {
    const name = input.name.normalize('NFKC').trim();
    if (name.length === 0 || name.length > 200 || /[\p{Cc}\p{Cf}]/u.test(name)) {
      throw invalidField('name', 'name must be 1 to 200 characters, without control characters');
    }
    const scopes = [...new Set(input.scopes)];
    const unknown = scopes.filter((s) => !isManagementScope(s));
    if (scopes.length === 0 || unknown.length > 0) {
      throw invalidField('scopes', `scopes must be a non-empty list of ${MANAGEMENT_SCOPES.join(', ')}`);
    }
    if ((await this.store.listByOrg(input.orgId)).length >= MAX_SERVICE_ACCOUNTS) {
      throw new AppError(
        409,
        'too_many_service_accounts',
        `An organization has at most ${MAX_SERVICE_ACCOUNTS} service accounts`,
      );
    }
    const clientSecret = newOpaqueToken();
    const account: ServiceAccount = {
      clientId: `${SERVICE_ACCOUNT_PREFIX}${randomBytes(16).toString('hex')}`,
      orgId: input.orgId,
      name,
      scopes: MANAGEMENT_SCOPES.filter((s) => scopes.includes(s)),
      secretHash: hmacHex(this.#secretKey, clientSecret),
      createdBy: input.createdBy,
      createdAt: this.now(),
      lastUsedAt: undefined,
    };
    await this.store.insert(account);
    return { account: viewOf(account), clientSecret };
  }

  async list(orgId: string): Promise<ServiceAccountView[]> {
    return (await this.store.listByOrg(orgId)).map(viewOf);
  }

  /** A new secret, shown once; the old one keeps working for `graceSeconds` (as an app's rotation). */
  async rotateSecret(
    orgId: string,
    clientId: string,
    graceSeconds: number,
  ): Promise<{ clientSecret: string; oldSecretValidUntil: number }> {
    const clientSecret = newOpaqueToken();
    const oldSecretValidUntil = this.now() + graceSeconds * 1000;
    const rotated = await this.store.rotateSecret(
      orgId,
      clientId,
      hmacHex(this.#secretKey, clientSecret),
      oldSecretValidUntil,
    );
    if (!rotated) throw serviceAccountNotFound();
    return { clientSecret, oldSecretValidUntil };
  }

  /** Deletes the account and revokes every token it holds, on every replica, before answering. */
  async remove(orgId: string, clientId: string): Promise<void> {
    if (!(await this.store.markDeleted(orgId, clientId, this.now()))) throw serviceAccountNotFound();
    await this.revocations.revoke({
      kind: 'grant',
      value: clientGrantId(clientId),
      expiresAt: grantEntryExpiry(this.now()),
    });
  }

  /**
   * `grant_type=client_credentials` for a service account: its secret (or the previous one within its
   * grace), then a token with the asked scopes among the account's (all of them when none are asked).
   */
  async issueToken(clientId: string, secret: string, scope: string | undefined): Promise<ClientTokens> {
    const account = await this.#authenticate(clientId, secret);
    const issued = grantClientCredentials(this.tokens, {
      clientId: account.clientId,
      scope,
      allowed: account.scopes,
    });
    await this.store.noteUse(account.clientId, this.now());
    return issued;
  }

  /**
   * The service account behind a verified token, when it is a live service account's client_credentials
   * token; undefined for any other token (a person's, an app's client token, a deleted account's).
   */
  async actorOf(claims: TokenClaims): Promise<ServiceActor | undefined> {
    if (claims.use !== 'client' || claims.clientId === undefined || !isServiceAccountId(claims.clientId)) {
      return undefined;
    }
    const account = await this.store.findById(claims.clientId);
    if (!account) return undefined;
    const granted = (claims.scope ?? '').split(' ');
    // The token's scopes, never beyond what the account holds now.
    const scopes = account.scopes.filter(
      (s): s is ManagementScope => isManagementScope(s) && granted.includes(s),
    );
    return { kind: 'service', clientId: account.clientId, orgId: account.orgId, scopes };
  }

  async #authenticate(clientId: string, secret: string): Promise<ServiceAccount> {
    const account = clientId.length <= 64 ? await this.store.findById(clientId) : undefined;
    const presented = createHmac('sha256', this.#secretKey).update(secret).digest();
    const current = this.#digestEquals(presented, account?.secretHash);
    const previous = account?.previousSecret;
    const previousOk = this.#digestEquals(presented, previous?.hash);
    const previousLive = previous !== undefined && previous.expiresAt > this.now();
    if (!account || !(current || (previousOk && previousLive))) throw invalidClient();
    return account;
  }

  #digestEquals(presented: Buffer, storedHex: string | undefined): boolean {
    const stored = storedHex === undefined ? undefined : Buffer.from(storedHex, 'hex');
    const usable = stored !== undefined && stored.length === presented.length;
    const same = timingSafeEqual(presented, usable ? stored : this.#dummyHash);
    return usable && same;
  }
}

/** 403 `insufficient_scope` unless the service account's token holds `scope`. */
export function requireScope(actor: ServiceActor, scope: ManagementScope): void {
  if (!actor.scopes.includes(scope)) {
    throw insufficientScope(`This service account's token lacks the ${scope} scope`);
  }
}
