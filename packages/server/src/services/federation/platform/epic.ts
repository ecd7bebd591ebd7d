import { createHash } from 'node:crypto';
import {
  createLocalJWKSet,
  errors as joseErrors,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
} from 'jose';
import type { ProviderConfig, UpstreamIdentity } from '../upstreamProvider.js';
import { UpstreamUnavailable } from '../upstreamProvider.js';
import {
  type PlatformCredential,
  type PlatformDeps,
  type PlatformProvider,
  PlatformRejected,
  credentialString,
  platformJson,
} from './platformProvider.js';

/** EOS Connect's ID tokens (the product user id as `sub`): their issuer and key set. */
export const EOS_ISSUER = 'https://api.epicgames.dev/auth/v1/oauth';
export const EOS_JWKS_URI = 'https://api.epicgames.dev/auth/v1/oauth/jwks';
/** Asymmetric only: an `HS256` token "signed" with a public value is refused before any key is looked at. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
const CLOCK_TOLERANCE_S = 30;
const JWKS_TTL_MS = 3_600_000;
const JWKS_REFRESH_COOLDOWN_MS = 60_000;
const TIMEOUT_MS = 10_000;

/**
 * The `epic` kind: an Epic Online Services Connect ID token (`EOS_Connect_CopyIdToken`), a JWT signed by
 * EOS and checked here against the EOS JWKS (`jwks_uri`, cached an hour, refetched for an unknown `kid`
 * at most once a minute), its `iss` (`issuer`), its `aud` (the entry's `client_id`, the EOS client of the
 * game) and `exp`. The subject is the product user id (`sub`). Each token is accepted once until it
 * expires. The authentication time is the token's `auth_time`, else its `iat`.
 */
export class EpicProvider implements PlatformProvider {
  readonly id: string;
  readonly kind = 'epic' as const;
  readonly name: string;
  readonly identityKey: string;
  readonly #clientId: string;
  readonly #issuer: string;
  readonly #jwksUri: string;
  #jwks: { keys: JSONWebKeySet; at: number } | undefined;
  #refreshedAt = 0;

  constructor(
    cfg: ProviderConfig,
    private readonly deps: PlatformDeps,
  ) {
    this.id = cfg.id;
    this.name = cfg.name;
    this.identityKey = cfg.id;
    if (!cfg.client_id) throw new Error(`identity provider ${cfg.id}: client_id is required`);
    this.#clientId = cfg.client_id;
    this.#issuer = cfg.issuer ?? EOS_ISSUER;
    this.#jwksUri = cfg.jwks_uri ?? EOS_JWKS_URI;
    new URL(this.#jwksUri);
  }

  async verify(credential: PlatformCredential): Promise<UpstreamIdentity> {
    const idToken = credentialString(credential, 'id_token', 16_000);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(idToken, this.#keys(), {
        issuer: this.#issuer,
        audience: this.#clientId,
        algorithms: ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_S,
        currentDate: new Date(this.deps.now()),
        requiredClaims: ['sub', 'exp', 'iat'],
      }));
    } catch (err) {
      if (err instanceof UpstreamUnavailable) throw err;
      throw new PlatformRejected(reasonOf(err), `The EOS ID token was refused: ${(err as Error).message}`);
    }
    if (typeof payload.sub !== 'string' || payload.sub === '' || payload.sub.length > 255)
      throw new PlatformRejected('bad_subject', 'The EOS ID token has no product user id');
    const signed = idToken.slice(0, idToken.lastIndexOf('.'));
    const ttlMs = ((payload.exp as number) + CLOCK_TOLERANCE_S) * 1000 - this.deps.now();
    const marker = `eos_id_token:${this.id}:${createHash('sha256').update(signed).digest('hex')}`;
    if (!(await this.deps.claimOnce(marker, Math.max(ttlMs, 1))))
      throw new PlatformRejected('replayed', 'This ID token was already used');
    const proven = typeof payload.auth_time === 'number' ? payload.auth_time : (payload.iat as number);
    return {
      subject: payload.sub,
      email: null,
      emailVerified: false,
      displayName: null,
      authTime: Math.min(Math.floor(proven), Math.floor(this.deps.now() / 1000)),
    };
  }

  #keys(): JWTVerifyGetKey {
    return async (header, token) => {
      const now = this.deps.now();
      const cached =
        this.#jwks && now - this.#jwks.at < JWKS_TTL_MS ? this.#jwks.keys : await this.#fetchJwks();
      try {
        return await createLocalJWKSet(cached)(header, token);
      } catch (err) {
        if (
          !(err instanceof joseErrors.JWKSNoMatchingKey) ||
          now - this.#refreshedAt < JWKS_REFRESH_COOLDOWN_MS
        )
          throw err;
        this.#refreshedAt = now;
        return createLocalJWKSet(await this.#fetchJwks())(header, token);
      }
    };
  }

  async #fetchJwks(): Promise<JSONWebKeySet> {
    let keys: unknown;
    try {
      const response = await this.deps.fetch(this.#jwksUri, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      keys = await platformJson(response, 256 * 1024);
    } catch (err) {
      throw new UpstreamUnavailable(`${this.id}: the EOS JWKS cannot be read`, { cause: err });
    }
    if (!keys || !Array.isArray((keys as JSONWebKeySet).keys))
      throw new UpstreamUnavailable(`${this.id}: the EOS JWKS is not a key set`);
    this.#jwks = { keys: keys as JSONWebKeySet, at: this.deps.now() };
    return keys as JSONWebKeySet;
  }
}

function reasonOf(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'expired';
  if (err instanceof joseErrors.JWTClaimValidationFailed) return `wrong_${err.claim}`;
  if (err instanceof joseErrors.JWKSNoMatchingKey) return 'unknown_key';
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return 'bad_signature';
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return 'alg_not_allowed';
  return 'invalid';
}
