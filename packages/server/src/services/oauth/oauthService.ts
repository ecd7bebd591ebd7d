import { randomUUID } from 'node:crypto';
import type { SecretBox } from '../../crypto/secretBox.js';
import type { OAuthClient } from '../../stores/clientStore.js';
import type { GrantRecord, OAuthGrantStore, RefreshTokenRecord } from '../../stores/oauthGrantStore.js';
import { ACCESS_TOKEN_TTL_SECONDS, type TokenClaims, type TokenService } from '../tokens/tokenService.js';
import { invalidGrant } from './oauthErrors.js';
import { newOpaqueToken, sha256Hex } from './opaqueToken.js';
import { isValidCodeVerifier, s256, verifyS256 } from './pkce.js';
import type { RevocationRegistry } from './revocationRegistry.js';

/** Codes: single use, 10 minutes (decisions §3). */
export const CODE_TTL_MS = 10 * 60_000;
/** Refresh tokens rotate on every use; each one lives 30 days from its issue. */
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3600_000;
/**
 * A refresh token presented again within this window after its rotation, while its successor is
 * still unused, gets that same successor back (two workers refreshing at once) instead of
 * triggering reuse detection.
 */
export const REFRESH_GRACE_MS = 5_000;
/** Revocation entries outlive the newest token they can match by this margin (clock skew between replicas). */
const REVOCATION_MARGIN_MS = 5 * 60_000;

/** What a successful code exchange or refresh yields (the route renders it as the spec's token result). */
export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  /** Seconds (decisions §3: 3600 for a fresh token). */
  expiresIn: number;
  userId: string;
  clientId: string;
  grantId: string;
  /** `dapp: true` apps only, when the user has a main wallet. */
  contentAddress?: string;
}

export interface IntrospectionResult {
  active: boolean;
  client_id?: string;
  user_id?: string;
  sub?: string;
  token_type?: 'Bearer' | 'refresh_token';
  exp?: number;
  iat?: number;
  iss?: string;
  jti?: string;
}

export interface MainWalletLookup {
  mainWallet(userUuid: number): Promise<{ address: string } | undefined>;
}

interface SealedSuccessor {
  access_token: string;
  refresh_token: string;
  /** Access token expiry, seconds since the epoch. */
  exp: number;
}

const successorAad = (oldHash: string) => `refresh_successor:${oldHash}`;

/**
 * The authorization-code grant and everything around it: code issue and redemption, refresh
 * rotation with reuse detection, revocation (RFC 7009) and introspection (RFC 7662). Used by the
 * OAuth routes and by the backend-integration flow (`/v1/oauth-meta/*`).
 */
export class OAuthService {
  readonly #now: () => number;

  constructor(
    private readonly deps: {
      grants: OAuthGrantStore;
      tokens: TokenService;
      revocations: RevocationRegistry;
      wallets: MainWalletLookup;
      secretBox: SecretBox;
      issuer: string;
      now?: () => number;
    },
  ) {
    this.#now = deps.now ?? Date.now;
  }

  /**
   * Issues a code for a user who authorized `client` (the caller has checked the redirect URI is
   * registered and authenticated the user). Creates the grant every later token will belong to.
   */
  async issueCode(input: {
    client: OAuthClient;
    userUuid: number;
    redirectUri: string;
    codeChallenge?: string | undefined;
    codeChallengeMethod?: 'S256' | undefined;
  }): Promise<{ code: string; grantId: string; expiresAt: number }> {
    const now = this.#now();
    const code = newOpaqueToken();
    const grantId = randomUUID();
    const expiresAt = now + CODE_TTL_MS;
    await this.deps.grants.createGrantWithCode(
      this.#newGrant(grantId, input.client.clientId, input.userUuid, now),
      {
        codeHash: sha256Hex(code),
        grantId,
        clientId: input.client.clientId,
        userUuid: input.userUuid,
        redirectUri: input.redirectUri,
        codeChallenge: input.codeChallenge ?? null,
        codeChallengeMethod: input.codeChallenge ? (input.codeChallengeMethod ?? 'S256') : null,
        createdAt: now,
        expiresAt,
        usedAt: null,
      },
    );
    return { code, grantId, expiresAt };
  }

  /**
   * `grant_type=authorization_code` for an already authenticated client. A code presented a second
   * time fails with `invalid_grant` and revokes every token issued from it.
   */
  async exchangeCode(input: {
    client: OAuthClient;
    code: string;
    redirectUri: string;
    codeVerifier?: string | undefined;
  }): Promise<IssuedTokens> {
    const now = this.#now();
    const codeHash = sha256Hex(input.code);
    const presentedChallenge =
      input.codeVerifier === undefined
        ? null
        : isValidCodeVerifier(input.codeVerifier)
          ? s256(input.codeVerifier)
          : undefined;
    // Fast path: one conditional UPDATE checks every binding and consumes the code.
    const row =
      presentedChallenge === undefined
        ? undefined
        : await this.deps.grants.consumeCode({
            codeHash,
            now,
            clientId: input.client.clientId,
            redirectUri: input.redirectUri,
            codeChallenge: presentedChallenge,
          });
    if (!row) throw await this.#codeRefusal(codeHash, input, now);

    // The code is spent from here on. Should the insert below fail, no token was issued and the
    // app starts over: a safe failure (the code's consumption is the only race to settle).
    const refreshToken = newOpaqueToken();
    await this.deps.grants.insertRefreshToken(
      this.#refreshRecord(refreshToken, row.grantId, row.clientId, row.userUuid, now),
    );
    const access = await this.deps.tokens.issueAccessToken({
      userId: String(row.userUuid),
      clientId: row.clientId,
      grantId: row.grantId,
    });
    return this.#issued(
      input.client,
      row.userUuid,
      row.grantId,
      access.token,
      refreshToken,
      access.expiresIn,
    );
  }

  /** Says why a code was not redeemed (slow path only); a used code revokes its grant. */
  async #codeRefusal(
    codeHash: string,
    input: { client: OAuthClient; redirectUri: string; codeVerifier?: string | undefined },
    now: number,
  ): Promise<Error> {
    const row = await this.deps.grants.findCode(codeHash);
    if (!row) return invalidGrant('code_unknown', 'The authorization code is invalid');
    // A stolen code presented by someone else must not burn it: these checks change nothing.
    if (row.clientId !== input.client.clientId) {
      return invalidGrant('client_mismatch', 'The authorization code was issued to another client');
    }
    if (row.usedAt !== null) {
      await this.revokeGrant(row.grantId, 'code_reuse');
      return invalidGrant(
        'code_used',
        'The authorization code was already used; every token issued from it is revoked',
      );
    }
    if (row.expiresAt <= now) return invalidGrant('code_expired', 'The authorization code has expired');
    if (row.redirectUri !== input.redirectUri)
      return invalidGrant('redirect_uri_mismatch', 'redirect_uri mismatch');
    if (row.codeChallenge !== null) {
      if (!input.codeVerifier || !verifyS256(input.codeVerifier, row.codeChallenge)) {
        return invalidGrant('pkce_failed', 'code_verifier is missing or does not match the code_challenge');
      }
    } else if (input.codeVerifier !== undefined) {
      return invalidGrant(
        'pkce_unexpected',
        'code_verifier was sent but the authorization used no code_challenge',
      );
    }
    // Every binding holds and the code is unused: what refused it is its revoked grant.
    return invalidGrant('grant_revoked', 'The authorization was revoked');
  }

  /**
   * Opens a grant without a code and issues its first token pair: for flows that authenticate the
   * user their own way (the backend-integration get_token). Revocable like any other grant.
   */
  async openGrant(input: { client: OAuthClient; userUuid: number }): Promise<IssuedTokens> {
    const now = this.#now();
    const grantId = randomUUID();
    const refreshToken = newOpaqueToken();
    await this.deps.grants.createGrantWithRefreshToken(
      this.#newGrant(grantId, input.client.clientId, input.userUuid, now),
      this.#refreshRecord(refreshToken, grantId, input.client.clientId, input.userUuid, now),
    );
    const access = await this.deps.tokens.issueAccessToken({
      userId: String(input.userUuid),
      clientId: input.client.clientId,
      grantId,
    });
    return this.#issued(input.client, input.userUuid, grantId, access.token, refreshToken, access.expiresIn);
  }

  /** `grant_type=refresh_token`: rotation with reuse detection and a short grace for concurrent refreshes. */
  async refresh(input: { client: OAuthClient; refreshToken: string }): Promise<IssuedTokens> {
    const oldHash = sha256Hex(input.refreshToken);
    const row = await this.deps.grants.findRefreshToken(oldHash);
    if (!row) throw invalidGrant('refresh_token_unknown', 'The refresh token is invalid');
    if (row.clientId !== input.client.clientId) {
      throw invalidGrant('client_mismatch', 'The refresh token was issued to another client');
    }
    const grant = await this.deps.grants.findGrant(row.grantId);
    if (!grant || grant.revokedAt !== null)
      throw invalidGrant('grant_revoked', 'The refresh token has been revoked');
    if (row.usedAt !== null) return this.#graceOrReuse(input.client, row);
    const now = this.#now();
    if (row.expiresAt <= now) throw invalidGrant('refresh_token_expired', 'The refresh token has expired');

    const successorToken = newOpaqueToken();
    const access = await this.deps.tokens.issueAccessToken({
      userId: String(row.userUuid),
      clientId: row.clientId,
      grantId: row.grantId,
    });
    const sealed: SealedSuccessor = {
      access_token: access.token,
      refresh_token: successorToken,
      exp: access.exp,
    };
    const outcome = await this.deps.grants.rotateRefreshToken({
      oldHash,
      now,
      successor: this.#refreshRecord(successorToken, row.grantId, row.clientId, row.userUuid, now),
      successorSealed: this.deps.secretBox.seal(JSON.stringify(sealed), successorAad(oldHash)),
    });
    if (outcome === 'lost') {
      const current = await this.deps.grants.findRefreshToken(oldHash);
      if (!current || current.usedAt === null)
        throw invalidGrant('grant_revoked', 'The refresh token has been revoked');
      return this.#graceOrReuse(input.client, current);
    }
    return this.#issued(
      input.client,
      row.userUuid,
      row.grantId,
      access.token,
      successorToken,
      access.expiresIn,
    );
  }

  /** Revokes a grant: every access and refresh token issued from its code, on every replica. */
  async revokeGrant(grantId: string, reason: string): Promise<void> {
    const now = this.#now();
    await this.deps.revocations.revoke({
      kind: 'grant',
      value: grantId,
      expiresAt: now + ACCESS_TOKEN_TTL_SECONDS * 1000 + REVOCATION_MARGIN_MS,
    });
    await this.deps.grants.revokeGrant(grantId, reason, now);
  }

  /** Revokes every grant a user gave an app (marketplace sale, account actions). Returns how many. */
  async revokeUserClientGrants(userUuid: number, clientId: string, reason: string): Promise<number> {
    const now = this.#now();
    const ids = await this.deps.grants.revokeGrantsOf(userUuid, clientId, reason, now);
    for (const id of ids) {
      await this.deps.revocations.revoke({
        kind: 'grant',
        value: id,
        expiresAt: now + ACCESS_TOKEN_TTL_SECONDS * 1000 + REVOCATION_MARGIN_MS,
      });
    }
    return ids.length;
  }

  /**
   * Revokes the token pair an access token belongs to: its grant (so its refresh token too). Used by
   * the backend-integration logout; a login JWT (no grant) is revoked by its id alone.
   */
  async revokeTokenPair(claims: TokenClaims): Promise<void> {
    if (claims.grantId) await this.revokeGrant(claims.grantId, 'logout');
    else await this.revokeJti(claims.jti, claims.exp);
  }

  /** Revokes one token by its id until it would have expired anyway. */
  async revokeJti(jti: string, expSeconds: number): Promise<void> {
    await this.deps.revocations.revoke({
      kind: 'jti',
      value: jti,
      expiresAt: expSeconds * 1000 + REVOCATION_MARGIN_MS,
    });
  }

  /**
   * RFC 7009 for an authenticated client. An access token is revoked by its id; a refresh token
   * revokes its whole grant (RFC 7009 §2.1: access tokens of the same grant go too). Unknown,
   * invalid or other clients' tokens change nothing and are not reported (§2.2).
   */
  async revokeToken(input: { client: OAuthClient; token: string }): Promise<void> {
    if (input.token.split('.').length === 3) {
      const claims = await this.deps.tokens.verify(input.token, 'access').catch(() => undefined);
      if (claims && claims.clientId === input.client.clientId) await this.revokeJti(claims.jti, claims.exp);
      return;
    }
    const row = await this.deps.grants.findRefreshToken(sha256Hex(input.token));
    if (row && row.clientId === input.client.clientId)
      await this.revokeGrant(row.grantId, 'revoked_by_client');
  }

  /** RFC 7662 for an authenticated client: only its own tokens are ever reported active. */
  async introspect(input: { client: OAuthClient; token: string }): Promise<IntrospectionResult> {
    if (input.token.split('.').length === 3) {
      const claims = await this.deps.tokens.verify(input.token, 'access').catch(() => undefined);
      if (!claims || claims.clientId !== input.client.clientId) return { active: false };
      if (await this.deps.revocations.isRevoked(claims)) return { active: false };
      return {
        active: true,
        client_id: input.client.clientId,
        user_id: claims.userId,
        sub: claims.userId,
        token_type: 'Bearer',
        exp: claims.exp,
        iat: claims.iat,
        iss: this.deps.issuer,
        jti: claims.jti,
      };
    }
    const row = await this.deps.grants.findRefreshToken(sha256Hex(input.token));
    const now = this.#now();
    if (!row || row.clientId !== input.client.clientId || row.usedAt !== null || row.expiresAt <= now) {
      return { active: false };
    }
    const grant = await this.deps.grants.findGrant(row.grantId);
    if (!grant || grant.revokedAt !== null) return { active: false };
    return {
      active: true,
      client_id: row.clientId,
      user_id: String(row.userUuid),
      sub: String(row.userUuid),
      token_type: 'refresh_token',
      exp: Math.floor(row.expiresAt / 1000),
      iat: Math.floor(row.createdAt / 1000),
      iss: this.deps.issuer,
    };
  }

  async purgeExpired(): Promise<void> {
    await this.deps.grants.purgeExpired(this.#now(), REFRESH_GRACE_MS);
  }

  async #graceOrReuse(client: OAuthClient, row: RefreshTokenRecord): Promise<IssuedTokens> {
    const now = this.#now();
    const withinGrace = row.usedAt !== null && now - row.usedAt <= REFRESH_GRACE_MS;
    if (withinGrace && row.successorHash && row.successorSealed) {
      const successor = await this.deps.grants.findRefreshToken(row.successorHash);
      const grant = await this.deps.grants.findGrant(row.grantId);
      if (successor && successor.usedAt === null && grant && grant.revokedAt === null) {
        const opened = this.deps.secretBox.open(row.successorSealed, successorAad(row.tokenHash));
        let sealed: SealedSuccessor;
        try {
          sealed = JSON.parse(opened.toString('utf8')) as SealedSuccessor;
        } finally {
          opened.fill(0);
        }
        const expiresIn = Math.max(0, sealed.exp - Math.floor(now / 1000));
        return this.#issued(
          client,
          row.userUuid,
          row.grantId,
          sealed.access_token,
          sealed.refresh_token,
          expiresIn,
        );
      }
    }
    await this.revokeGrant(row.grantId, 'refresh_token_reuse');
    await this.deps.grants.clearSuccessor(row.tokenHash);
    throw invalidGrant(
      'refresh_token_reused',
      'The refresh token was already used; every token of its grant is revoked',
    );
  }

  /** A live grant: the family every code, access and refresh token of one authorization belongs to. */
  #newGrant(grantId: string, clientId: string, userUuid: number, now: number): GrantRecord {
    return { grantId, clientId, userUuid, createdAt: now, revokedAt: null, revokedReason: null };
  }

  #refreshRecord(
    token: string,
    grantId: string,
    clientId: string,
    userUuid: number,
    now: number,
  ): RefreshTokenRecord {
    return {
      tokenHash: sha256Hex(token),
      grantId,
      clientId,
      userUuid,
      createdAt: now,
      expiresAt: now + REFRESH_TOKEN_TTL_MS,
      usedAt: null,
      successorHash: null,
      successorSealed: null,
    };
  }

  async #issued(
    client: OAuthClient,
    userUuid: number,
    grantId: string,
    accessToken: string,
    refreshToken: string,
    expiresIn: number,
  ): Promise<IssuedTokens> {
    const issued: IssuedTokens = {
      accessToken,
      refreshToken,
      expiresIn,
      userId: String(userUuid),
      clientId: client.clientId,
      grantId,
    };
    if (client.dapp) {
      const wallet = await this.deps.wallets.mainWallet(userUuid);
      if (wallet) issued.contentAddress = wallet.address;
    }
    return issued;
  }
}
