import { createHash } from 'node:crypto';
import {
  createLocalJWKSet,
  errors as joseErrors,
  type JSONWebKeySet,
  type JWTPayload,
  jwtVerify,
  type JWTVerifyGetKey,
} from 'jose';
import { appleClientSecret } from './presets.js';
import {
  type BrowserFlow,
  type ProviderConfig,
  type ProviderDeps,
  type UpstreamIdentity,
  type UpstreamProvider,
  UpstreamRejected,
  UpstreamUnavailable,
} from './upstreamProvider.js';
import { codeTokenRequest } from './tokenRequest.js';

/** What dauth reads of an OpenID Provider's discovery document. */
interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  token_endpoint_auth_methods_supported?: string[];
}

/** Asymmetric algorithms only: a shared-secret (HS*) or unsigned (`none`) id_token is never accepted. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
/** Clock skew tolerated on `exp`, `iat`, `nbf`. */
const CLOCK_TOLERANCE_S = 30;
/**
 * An unknown `kid` refetches the JWKS (a key rotation upstream), at most once per this period: a flood of
 * tokens naming made-up kids costs the upstream one fetch a minute, not one per token.
 */
export const JWKS_REFRESH_COOLDOWN_MS = 60_000;
/** A failed discovery is retried on the next use, but not sooner than this. */
const DISCOVERY_RETRY_MS = 5_000;
const FETCH_TIMEOUT_MS = 10_000;
/**
 * Every browser sign-in sends this `max_age` (30 days): OpenID Connect Core §3.1.2.1 then requires the
 * id_token to carry `auth_time`, the moment the person last typed a credential there, which becomes the
 * login JWT's (a silent answer from the provider's session is not a fresh sign-in). Long enough that no
 * real session is cut short by it.
 */
export const SIGN_IN_MAX_AGE_S = 30 * 86_400;

/**
 * The `oidc` kind (decisions §8): OpenID Connect authorization code flow with PKCE (S256), `state` and
 * `nonce`, and native id_tokens. Discovery happens on first use and is cached (a provider that is down
 * fails only its own sign-ins, never the start or another provider); its JWKS is cached and fetched again
 * when an id_token names a `kid` it does not hold (at most once per `JWKS_REFRESH_COOLDOWN_MS`). An
 * id_token must be signed by that JWKS with an asymmetric algorithm, issued by the configured issuer, for
 * one of the provider's client ids (`aud`; with several audiences, `azp` too), unexpired, and in a browser
 * flow carry the flow's nonce.
 */
export class OidcProvider implements UpstreamProvider {
  readonly id: string;
  readonly kind = 'oidc' as const;
  readonly name: string;
  readonly #issuer: string;
  #discovery: Promise<Discovery> | undefined;
  #discoveryFailedAt = 0;
  #jwks: JSONWebKeySet | undefined;
  /** When an unknown kid last refetched the JWKS (the first load does not count). */
  #refreshedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly cfg: ProviderConfig,
    private readonly deps: ProviderDeps,
  ) {
    if (!cfg.issuer) throw new Error(`identity provider ${cfg.id}: issuer is required for kind oidc`);
    this.id = cfg.id;
    this.name = cfg.name;
    this.#issuer = cfg.issuer.replace(/\/+$/, '');
  }

  async authorizationUrl(flow: BrowserFlow): Promise<URL> {
    const discovery = await this.#discover();
    const url = new URL(discovery.authorization_endpoint);
    const params: Record<string, string> = {
      response_type: 'code',
      client_id: this.cfg.client_id,
      redirect_uri: flow.callbackUrl,
      scope: scopeOf(this.cfg.scopes),
      state: flow.state,
      nonce: flow.nonce,
      code_challenge: createHash('sha256').update(flow.codeVerifier).digest('base64url'),
      code_challenge_method: 'S256',
    };
    if (this.cfg.response_mode) params.response_mode = this.cfg.response_mode;
    if (flow.reauthenticateSince !== undefined) {
      // OpenID Connect Core §3.1.2.1: sign in again now, and say when (auth_time becomes required).
      params.prompt = 'login';
      params.max_age = '0';
    } else {
      params.max_age = String(SIGN_IN_MAX_AGE_S); // only so that the id_token says when (auth_time)
    }
    for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
    return url;
  }

  async completeBrowserFlow(callback: URLSearchParams, flow: BrowserFlow): Promise<UpstreamIdentity> {
    const error = callback.get('error');
    if (error !== null) throw new UpstreamRejected('upstream_error', `The provider answered ${error}`);
    const code = callback.get('code');
    if (!code) throw new UpstreamRejected('no_code', 'The callback carries no code');
    const discovery = await this.#discover();
    // RFC 9207: when the provider names itself, it must be the one the flow went to (mix-up defence).
    const iss = callback.get('iss');
    if (iss !== null && iss !== discovery.issuer)
      throw new UpstreamRejected('wrong_issuer', 'The callback names another issuer');
    const tokens = await this.#exchange(discovery, code, flow);
    if (typeof tokens.id_token !== 'string')
      throw new UpstreamRejected('no_id_token', 'The token endpoint returned no id_token');
    const payload = await this.#verify(tokens.id_token, [this.cfg.client_id]);
    if (payload.nonce !== flow.nonce)
      throw new UpstreamRejected('wrong_nonce', 'The id_token does not carry this flow’s nonce');
    if (flow.reauthenticateSince !== undefined) checkFreshAuthentication(payload, flow.reauthenticateSince);
    return identityOf(payload, this.deps.now());
  }

  async verifyIdToken(idToken: string): Promise<UpstreamIdentity> {
    const audiences = this.cfg.client_ids?.length ? this.cfg.client_ids : [this.cfg.client_id];
    const payload = await this.#verify(idToken, audiences);
    // Once only, until it expires: a copy (a log, a proxy, a compromised game build) signs no one in. The
    // marker is the hash of the signed header and payload, which the signature covers: a re-encoded or
    // re-signed (ECDSA's s and n-s) copy of the same token is the same marker. Claimed after the
    // signature is checked, so forged tokens store nothing.
    const signed = idToken.slice(0, idToken.lastIndexOf('.'));
    const ttlMs = ((payload.exp as number) + CLOCK_TOLERANCE_S) * 1000 - this.deps.now();
    const key = `id_token:${this.id}:${createHash('sha256').update(signed).digest('hex')}`;
    if (!(await this.deps.claimOnce(key, Math.max(ttlMs, 1))))
      throw new UpstreamRejected('replayed', 'This id_token was presented before');
    return identityOf(payload, this.deps.now());
  }

  async #verify(idToken: string, audiences: string[]): Promise<JWTPayload> {
    const discovery = await this.#discover();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(idToken, this.#keys(discovery), {
        issuer: issuersOf(discovery.issuer),
        audience: audiences,
        algorithms: ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_S,
        currentDate: new Date(this.deps.now()),
        requiredClaims: ['sub', 'exp', 'iat'],
      }));
    } catch (err) {
      if (err instanceof UpstreamUnavailable) throw err;
      throw new UpstreamRejected(reasonOf(err), `The id_token was refused: ${(err as Error).message}`);
    }
    // Several audiences: the party it was issued to must be one of ours (OpenID Connect Core §3.1.3.7).
    if (Array.isArray(payload.aud) && payload.aud.length > 1) {
      if (typeof payload.azp !== 'string' || !audiences.includes(payload.azp))
        throw new UpstreamRejected('wrong_azp', 'The id_token was issued to another party (azp)');
    }
    if (typeof payload.sub !== 'string' || payload.sub === '' || payload.sub.length > 255)
      throw new UpstreamRejected('bad_subject', 'The id_token has no usable sub');
    return payload;
  }

  /** The key for a JWS header from the cached JWKS; an unknown kid refetches it (cooldown permitting). */
  #keys(discovery: Discovery): JWTVerifyGetKey {
    return async (header, token) => {
      const cached = this.#jwks ?? (await this.#fetchJwks(discovery));
      try {
        return await createLocalJWKSet(cached)(header, token);
      } catch (err) {
        const unknownKey = err instanceof joseErrors.JWKSNoMatchingKey;
        const now = this.deps.now();
        if (!unknownKey || now - this.#refreshedAt < JWKS_REFRESH_COOLDOWN_MS) throw err;
        this.#refreshedAt = now;
        return createLocalJWKSet(await this.#fetchJwks(discovery))(header, token);
      }
    };
  }

  async #fetchJwks(discovery: Discovery) {
    const keys = (await this.#getJson(discovery.jwks_uri, 'JWKS')) as JSONWebKeySet;
    if (!keys || !Array.isArray(keys.keys))
      throw new UpstreamUnavailable(`${this.id}: the JWKS is not a key set`);
    this.#jwks = keys;
    return keys;
  }

  /** Discovery on first use, cached; a failure is forgotten (after a short pause) so a later use retries. */
  #discover(): Promise<Discovery> {
    if (!this.#discovery) {
      if (this.deps.now() - this.#discoveryFailedAt < DISCOVERY_RETRY_MS) {
        return Promise.reject(
          new UpstreamUnavailable(`${this.id}: the provider's discovery failed just now`),
        );
      }
      this.#discovery = this.#loadDiscovery().catch((err: unknown) => {
        this.#discovery = undefined;
        this.#discoveryFailedAt = this.deps.now();
        throw err;
      });
    }
    return this.#discovery;
  }

  async #loadDiscovery(): Promise<Discovery> {
    const doc = (await this.#getJson(
      `${this.#issuer}/.well-known/openid-configuration`,
      'discovery',
    )) as Partial<Discovery>;
    const issuer = doc.issuer?.replace(/\/+$/, '');
    if (issuer !== this.#issuer)
      throw new UpstreamUnavailable(`${this.id}: the discovery document names another issuer`);
    for (const field of ['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const) {
      if (typeof doc[field] !== 'string')
        throw new UpstreamUnavailable(`${this.id}: discovery lacks ${field}`);
    }
    return { ...(doc as Discovery), issuer: doc.issuer! };
  }

  async #getJson(url: string, what: string): Promise<unknown> {
    let response: Response;
    try {
      response = await this.deps.fetch(url, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      });
    } catch (err) {
      throw new UpstreamUnavailable(`${this.id}: the ${what} could not be fetched`, { cause: err });
    }
    if (!response.ok) throw new UpstreamUnavailable(`${this.id}: the ${what} answered ${response.status}`);
    try {
      return await response.json();
    } catch (err) {
      throw new UpstreamUnavailable(`${this.id}: the ${what} is not JSON`, { cause: err });
    }
  }

  /** The code for tokens at the token endpoint, with the PKCE verifier and the client's authentication. */
  async #exchange(discovery: Discovery, code: string, flow: BrowserFlow): Promise<{ id_token?: unknown }> {
    const secret = await this.#clientSecret();
    const methods = discovery.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
    const { body, headers } = codeTokenRequest(code, flow, {
      id: this.cfg.client_id,
      secret,
      method:
        secret === undefined
          ? 'none'
          : methods.includes('client_secret_basic')
            ? 'client_secret_basic'
            : 'client_secret_post',
    });
    let response: Response;
    try {
      response = await this.deps.fetch(discovery.token_endpoint, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      });
    } catch (err) {
      throw new UpstreamUnavailable(`${this.id}: the token endpoint could not be reached`, { cause: err });
    }
    if (response.status >= 500)
      throw new UpstreamUnavailable(`${this.id}: the token endpoint answered ${response.status}`);
    const json = (await response.json().catch(() => undefined)) as
      { id_token?: unknown; error?: unknown } | undefined;
    if (!response.ok || !json) {
      const error = typeof json?.error === 'string' ? json.error : String(response.status);
      throw new UpstreamRejected('token_refused', `The token endpoint refused the code: ${error}`);
    }
    return json;
  }

  /** The configured secret, or Apple's ES256 client-secret JWT made from team id, key id and key. */
  async #clientSecret(): Promise<string | undefined> {
    if (this.cfg.team_id && this.cfg.key_id && this.cfg.private_key) {
      return appleClientSecret(this.cfg, this.deps.now());
    }
    return this.cfg.client_secret;
  }
}

/** OpenID Connect needs `openid` in the scope for an id_token; Apple's preset lists only `name email`. */
function scopeOf(scopes: string[] | undefined): string {
  const list = scopes ?? ['openid', 'email', 'profile'];
  return (list.includes('openid') ? list : ['openid', ...list]).join(' ');
}

/** Google's id_tokens may name their issuer without the scheme (its documentation allows both). */
function issuersOf(issuer: string): string[] {
  return issuer === 'https://accounts.google.com' ? [issuer, 'accounts.google.com'] : [issuer];
}

function reasonOf(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'expired';
  if (err instanceof joseErrors.JWTClaimValidationFailed) return `wrong_${err.claim}`;
  if (err instanceof joseErrors.JWKSNoMatchingKey) return 'unknown_key';
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return 'bad_signature';
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return 'alg_not_allowed';
  return 'invalid';
}

/**
 * Who signed in: `email_verified` counts only as a boolean true or Apple's string "true". When: the
 * id_token's `auth_time`, else its `iat` (decisions §9), never later than now (a clock ahead upstream
 * must not stretch the freshness of the login).
 */
function identityOf(payload: JWTPayload, nowMs: number): UpstreamIdentity {
  const email = typeof payload.email === 'string' && payload.email.length <= 320 ? payload.email : null;
  const verified = payload.email_verified === true || payload.email_verified === 'true';
  const name =
    typeof payload.name === 'string'
      ? payload.name
      : typeof payload.preferred_username === 'string'
        ? payload.preferred_username
        : null;
  return {
    subject: payload.sub!,
    email,
    emailVerified: email !== null && verified,
    displayName: name === null ? null : name.slice(0, 200),
    authTime: Math.min(authTimeOf(payload), Math.floor(nowMs / 1000)),
  };
}

function authTimeOf(payload: JWTPayload): number {
  const authTime = payload.auth_time;
  return typeof authTime === 'number' && Number.isFinite(authTime) ? Math.floor(authTime) : payload.iat!;
}

/**
 * A step-up flow asked for `max_age=0`: the id_token must say the user authenticated at the upstream after
 * the flow started (a provider that answered from its session, or ignored the request, is refused).
 */
function checkFreshAuthentication(payload: JWTPayload, sinceMs: number): void {
  const authTime = payload.auth_time;
  if (typeof authTime !== 'number' || !Number.isFinite(authTime))
    throw new UpstreamRejected(
      'no_auth_time',
      'The id_token does not say when the user signed in (auth_time)',
    );
  if (authTime < Math.floor(sinceMs / 1000) - CLOCK_TOLERANCE_S)
    throw new UpstreamRejected('stale_authentication', 'The provider did not ask the user to sign in again');
}
