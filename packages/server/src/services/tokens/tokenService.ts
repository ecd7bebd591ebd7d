import {
  createPrivateKey,
  type JsonWebKey,
  type KeyObject,
  randomUUID,
  sign as signWithKey,
} from 'node:crypto';
import {
  decodeJwt,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  type JWTPayload,
  jwtVerify,
  type CryptoKey,
  errors as joseErrors,
} from 'jose';
import type { SecretBox } from '../../crypto/secretBox.js';
import { AppError } from '../../errors.js';
import { derToP1363 } from '../../crypto/ecdsaSignature.js';
import type { SigningKeyStore } from '../../stores/signingKeyStore.js';

export const SIGNING_ALG = 'ES256';
export const LOGIN_TOKEN_TTL_SECONDS = 3600;
export const ACCESS_TOKEN_TTL_SECONDS = 3600;

/**
 * What a verified token says. `use` separates login JWTs from OAuth access tokens, and both from
 * `client` tokens: client_credentials access tokens (RFC 6749 §4.4) whose subject is the client itself,
 * never a person, so no route that acts for a person accepts them (`accept = 'any'` refuses them too;
 * only a caller asking for `'client'` gets them, docs/machines.md).
 */
export interface TokenClaims {
  use: 'login' | 'access' | 'client';
  userId: string;
  jti: string;
  exp: number;
  iat: number;
  /** Login tokens only: when the user last proved their password (Unix seconds); step-up checks it. */
  authTime?: number;
  /**
   * Login tokens only: the app the sign-in was made for (`azp`). A bound login JWT opens only that
   * app at the authorize endpoints (docs/security.md, "Login binding"); unbound when absent.
   */
  azp?: string;
  /** Login tokens only: how the user signed in (RFC 8176 `amr` values, docs/mfa.md). */
  amr?: string[];
  /** Access and client tokens. */
  clientId?: string;
  /** Access tokens only: the grant (authorization code family) the token came from. */
  grantId?: string;
  scope?: string;
}

/** How a login JWT is issued: when the password was checked, and the app the sign-in is bound to. */
export interface LoginTokenOptions {
  /** Unix seconds; defaults to now. */
  authTime?: number;
  /** The app (client_id) the login is for: the token's `azp`. Unbound when absent. */
  clientId?: string;
  /** How the user proved who they are: RFC 8176 values (`pwd`, `otp`, `mfa`, …; docs/mfa.md). */
  amr?: readonly string[];
}

interface ActiveKey {
  kid: string;
  /** The private key for node:crypto's synchronous signing (`signJwt`). */
  keyObject: KeyObject;
  /** base64url of the JWT header `{alg, kid, typ}`. */
  encodedHeader: string;
}

const base64url = (text: string) => Buffer.from(text).toString('base64url');

const SEAL_AAD = (kid: string) => `signing_key:${kid}`;

/**
 * The verified-token cache's key: a token's last 32 characters (all of a shorter one), which for a JWS are
 * signature (an ES256 one is 86 characters): 192 bits that differ between any two tokens signed. A suffix of
 * fixed length needs no scan for the last dot (≈ 700 instructions on a ~600-character token) and hashes 32
 * characters instead of 86. The entry's whole text is still compared, so a shared suffix is only a miss.
 */
const CACHE_KEY_LENGTH = 32;

const cacheKey = (token: string): string =>
  token.length > CACHE_KEY_LENGTH ? token.slice(-CACHE_KEY_LENGTH) : token;

/** A JWS in compact serialization: three base64url segments (RFC 7515 §7.1), no padding, nothing else. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * Issues and verifies the service's JWTs (ES256, public half at /.well-known/jwks.json).
 * Verified tokens are cached by their exact text: a byte-identical token has an identical,
 * already-checked signature, so a hit costs a map lookup (keyed by the last characters of its
 * signature, then the whole text compared: see `#cached`). Revocation is deliberately not part of this cache; callers
 * check it on every use.
 */
export class TokenService {
  #active: ActiveKey | undefined;
  #publicKeys = new Map<string, CryptoKey>();
  #jwks: { keys: JWK[] } = { keys: [] };
  /** Signature segment → the verified token's exact text and claims (`#cached`). */
  #verified = new Map<string, { token: string; claims: TokenClaims }>();
  static readonly CACHE_LIMIT = 50_000;

  constructor(
    private readonly keys: SigningKeyStore,
    private readonly secretBox: SecretBox,
    private readonly issuer: string,
  ) {}

  /** Loads the signing keys, creating the first one when the database has none. */
  async init(): Promise<void> {
    let stored = await this.keys.list();
    if (stored.length === 0) {
      const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
      const kid = randomUUID();
      const privateJwk = await exportJWK(privateKey);
      await this.keys.insert({
        kid,
        alg: SIGNING_ALG,
        publicJwk: JSON.stringify({ ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALG, use: 'sig' }),
        privateJwkSealed: this.secretBox.seal(JSON.stringify(privateJwk), SEAL_AAD(kid)),
        createdAt: Date.now(),
      });
      // Another replica may have raced us: read back and use whatever is oldest.
      stored = await this.keys.list();
    }
    const jwks: JWK[] = [];
    for (const key of stored) {
      const publicJwk = JSON.parse(key.publicJwk) as JWK;
      jwks.push(publicJwk);
      this.#publicKeys.set(key.kid, (await importJWK(publicJwk, key.alg)) as CryptoKey);
    }
    const signing = stored[0]!;
    const sealed = this.secretBox.open(signing.privateJwkSealed, SEAL_AAD(signing.kid));
    try {
      const privateJwk = JSON.parse(sealed.toString('utf8')) as JWK;
      this.#active = {
        kid: signing.kid,
        keyObject: createPrivateKey({ key: privateJwk as JsonWebKey, format: 'jwk' }),
        // The protected header is the same for every token this key signs: encoded once.
        encodedHeader: base64url(JSON.stringify({ alg: SIGNING_ALG, kid: signing.kid, typ: 'JWT' })),
      };
    } finally {
      sealed.fill(0);
    }
    this.#jwks = { keys: jwks };
  }

  get jwks(): { keys: JWK[] } {
    return this.#jwks;
  }

  #signInGates: ((userId: string) => Promise<void>)[] = [];

  /**
   * Asked before every login JWT is issued (every sign-in path comes through here): throws to refuse the
   * sign-in (an account held for a password reset, docs/security.md; a pre-generated account before its
   * e-mail is proved, docs/players.md). Every gate added is asked, in order.
   */
  useSignInGate(gate: (userId: string) => Promise<void>): void {
    this.#signInGates.push(gate);
  }

  /**
   * A login JWT: `aud` is the service itself (so it is never mistaken for a token meant for anyone else),
   * `auth_time` is when the password was checked (defaults to now; step-up compares against it), and
   * `azp` the app the sign-in was made for when `clientId` is given (the caller checked it exists), and
   * `amr` how the user signed in. Every sign-in path (password, guest, passkey, federated, the second
   * factor) binds and says its `amr` through these options.
   */
  async issueLoginToken(
    userId: string,
    authTimeOrOptions: number | LoginTokenOptions = {},
  ): Promise<{ token: string; jti: string; expiresIn: number }> {
    // A bare number is the earlier signature's `authTime`.
    const options =
      typeof authTimeOrOptions === 'number' ? { authTime: authTimeOrOptions } : authTimeOrOptions;
    for (const gate of this.#signInGates) await gate(userId);
    const jti = randomUUID();
    const authTime = options.authTime ?? Math.floor(Date.now() / 1000);
    const token = this.#sign(
      {
        token_use: 'login',
        aud: this.issuer,
        auth_time: authTime,
        ...(options.clientId !== undefined ? { azp: options.clientId } : {}),
        ...(options.amr !== undefined ? { amr: [...options.amr] } : {}),
      },
      userId,
      LOGIN_TOKEN_TTL_SECONDS,
      jti,
    );
    return { token, jti, expiresIn: LOGIN_TOKEN_TTL_SECONDS };
  }

  async issueAccessToken(input: {
    userId: string;
    clientId: string;
    grantId: string;
    scope?: string;
    ttlSeconds?: number;
  }): Promise<{ token: string; jti: string; expiresIn: number; exp: number }> {
    const ttl = input.ttlSeconds ?? ACCESS_TOKEN_TTL_SECONDS;
    const jti = randomUUID();
    const token = this.#sign(
      {
        token_use: 'access',
        client_id: input.clientId,
        gid: input.grantId,
        ...(input.scope ? { scope: input.scope } : {}),
      },
      input.userId,
      ttl,
      jti,
    );
    return { token, jti, expiresIn: ttl, exp: Math.floor(Date.now() / 1000) + ttl };
  }

  /**
   * A client_credentials access token: `sub` = `client_id` = the client, the granted `scope`, and
   * `token_use: "client"`, so it is never taken for a person's token. Its `gid` is `client:<client_id>`,
   * one revocation entry of which ends every such token of the client (its deletion).
   */
  issueClientToken(input: { clientId: string; scope?: string; ttlSeconds?: number }): {
    token: string;
    jti: string;
    expiresIn: number;
    exp: number;
  } {
    const ttl = input.ttlSeconds ?? ACCESS_TOKEN_TTL_SECONDS;
    const jti = randomUUID();
    const token = this.#sign(
      {
        token_use: 'client',
        client_id: input.clientId,
        gid: clientGrantId(input.clientId),
        ...(input.scope ? { scope: input.scope } : {}),
      },
      input.clientId,
      ttl,
      jti,
    );
    return { token, jti, expiresIn: ttl, exp: Math.floor(Date.now() / 1000) + ttl };
  }

  /**
   * Signs exactly the given claims (ES256, the active key, header `typ: JWT`): for tokens whose
   * claims a caller assembles itself, such as OpenID Connect ID tokens. node:crypto signs
   * synchronously, which on the code exchange's hot path costs less than WebCrypto's round trip.
   */
  signJwt(claims: Record<string, unknown>): string {
    if (!this.#active) throw new Error('TokenService.init() has not run');
    const input = `${this.#active.encodedHeader}.${base64url(JSON.stringify(claims))}`;
    // The KeyObject alone (DER out, then r || s): half the CPU of `dsaEncoding: 'ieee-p1363'` (ecdsaSignature.ts).
    const signature = derToP1363(signWithKey('sha256', Buffer.from(input), this.#active.keyObject), 32);
    return `${input}.${signature.toString('base64url')}`;
  }

  /** The public key of one of the service's signing keys (by `kid`), for verifying its own JWTs. */
  publicKey(kid: string): CryptoKey | undefined {
    return this.#publicKeys.get(kid);
  }

  /**
   * A login or access token: the given claims plus iss, sub, iat, exp and jti, signed like
   * `signJwt` (node:crypto on a KeyObject, ≈ 2.5× less CPU than jose's WebCrypto path, which also
   * hops through libuv's thread pool; bench/tokenSigning.bench.ts).
   */
  #sign(claims: JWTPayload, subject: string, ttlSeconds: number, jti = randomUUID()): string {
    const iat = Math.floor(Date.now() / 1000);
    return this.signJwt({ ...claims, iss: this.issuer, sub: subject, iat, exp: iat + ttlSeconds, jti });
  }

  /**
   * Verifies signature (ES256 only: `none`, HS256 and every other algorithm are refused),
   * issuer, expiry and token use. Throws `AppError` 401 with `expired_token` or `invalid_token`.
   */
  async verify(token: string, accept: TokenClaims['use'] | 'any' = 'any'): Promise<TokenClaims> {
    let claims = this.#cached(token);
    if (!claims) {
      claims = await this.#verifyUncached(token);
      if (this.#verified.size >= TokenService.CACHE_LIMIT) {
        // Drop the oldest insertion; Map iteration order is insertion order.
        this.#verified.delete(this.#verified.keys().next().value as string);
      }
      this.#verified.set(cacheKey(token), { token, claims });
    }
    return this.#checkVerified(token, claims, accept);
  }

  /**
   * `verify` without a promise for a token whose signature was already checked (the cache's hit):
   * the same expiry and use checks, the same errors thrown. Undefined when the token has not been
   * seen yet (call `verify`).
   */
  verifyCached(token: string, accept: TokenClaims['use'] | 'any' = 'any'): TokenClaims | undefined {
    const claims = this.#cached(token);
    return claims && this.#checkVerified(token, claims, accept);
  }

  /**
   * The claims of a token verified before, when `token` is byte for byte that token. The map is keyed by
   * the token's last characters alone (`cacheKey`): a `Map` hashes its key's every character on each lookup
   * of a string it has not seen (each request's header is a new string), and the whole JWT is ~600
   * characters (docs/performance-http.md, issue 43). The exact text is still what decides: a different
   * token that shares the key is a miss and goes through full verification.
   */
  #cached(token: string): TokenClaims | undefined {
    const entry = this.#verified.get(cacheKey(token));
    return entry !== undefined && entry.token === token ? entry.claims : undefined;
  }

  #checkVerified(token: string, claims: TokenClaims, accept: TokenClaims['use'] | 'any'): TokenClaims {
    if (claims.exp * 1000 <= Date.now()) {
      this.#verified.delete(cacheKey(token));
      throw new AppError(401, 'expired_token', 'The token has expired');
    }
    if (claims.use === 'client' && accept !== 'client') {
      // A machine's token never stands for a person: refused wherever a person's token is asked for.
      throw new AppError(
        401,
        'invalid_token',
        "A client_credentials token does not act for a person: this route needs a user's token",
      );
    }
    if (accept !== 'any' && claims.use !== accept) {
      throw new AppError(
        401,
        'invalid_token',
        `A ${accept === 'login' ? 'login' : accept === 'client' ? 'client_credentials' : 'access'} token is required`,
      );
    }
    return claims;
  }

  async #verifyUncached(token: string): Promise<TokenClaims> {
    try {
      // Only the JWS compact form's own characters: jose decodes base64url forgivingly (whitespace inside the
      // signature still verifies), and one token must have one text — the cache, and `requireTokenNow`'s
      // trust in a cached text, rely on it.
      if (!COMPACT_JWS.test(token)) throw new joseErrors.JWSInvalid('not a JWS in compact form');
      const { payload } = await jwtVerify(
        token,
        async (header) => {
          const key = header.kid ? this.#publicKeys.get(header.kid) : undefined;
          if (!key) throw new joseErrors.JWKSNoMatchingKey();
          return key;
        },
        { issuer: this.issuer, algorithms: [SIGNING_ALG], requiredClaims: ['sub', 'exp', 'iat', 'jti'] },
      );
      const use = payload.token_use;
      if (use !== 'login' && use !== 'access' && use !== 'client')
        throw new joseErrors.JWTClaimValidationFailed('token_use', payload);
      // A login JWT must name this service as its audience and say when the password was checked.
      // Login JWTs issued before these claims existed (no `aud`) are refused: they lived one hour.
      const authTime = payload.auth_time;
      if (use === 'login' && (payload.aud !== this.issuer || typeof authTime !== 'number')) {
        throw new joseErrors.JWTClaimValidationFailed('aud', payload);
      }
      return {
        use,
        userId: String(payload.sub),
        jti: String(payload.jti),
        exp: Number(payload.exp),
        iat: Number(payload.iat),
        ...(use === 'login' ? { authTime: authTime as number } : {}),
        ...(use === 'login' && typeof payload.azp === 'string' ? { azp: payload.azp } : {}),
        ...(use === 'login' && isStringArray(payload.amr) ? { amr: payload.amr } : {}),
        ...(typeof payload.client_id === 'string' ? { clientId: payload.client_id } : {}),
        ...(typeof payload.gid === 'string' ? { grantId: payload.gid } : {}),
        ...(typeof payload.scope === 'string' ? { scope: payload.scope } : {}),
      };
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) {
        throw new AppError(401, 'expired_token', 'The token has expired');
      }
      const issuer = foreignIssuer(token, this.issuer);
      if (issuer !== undefined) {
        throw new AppError(
          401,
          'invalid_token',
          `The token was issued by ${issuer}, not by this service (${this.issuer}); send it to the service that issued it`,
        );
      }
      throw new AppError(401, 'invalid_token', 'The token is invalid');
    }
  }
}

/** The revocation key (`gid`) every client_credentials token of a client carries. */
export const clientGrantId = (clientId: string) => `client:${clientId}`;

const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((v) => typeof v === 'string');

/**
 * The `iss` of a JWT that names another issuer than `ours`, read without verifying it (it only explains a
 * refusal: the token's own text, shortened, goes back to the caller who sent it); undefined otherwise.
 */
function foreignIssuer(token: string, ours: string): string | undefined {
  let iss: unknown;
  try {
    iss = decodeJwt(token).iss;
  } catch {
    return undefined;
  }
  if (typeof iss !== 'string' || iss === ours) return undefined;
  return JSON.stringify(iss.length > 200 ? `${iss.slice(0, 200)}…` : iss);
}
