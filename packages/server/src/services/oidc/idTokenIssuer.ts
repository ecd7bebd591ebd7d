import { createHash } from 'node:crypto';
import { AppError } from '../../errors.js';
import type { IssuedTokens } from '../oauth/oauthService.js';
import type { OidcGrant } from '../../stores/oauthGrantStore.js';
import { ACCESS_TOKEN_TTL_SECONDS } from '../tokens/tokenService.js';
import { authenticationClaims } from './authenticationContext.js';
import { needsUserRecord, scopedUserClaims, type UserDirectory } from './userClaims.js';

/** ID tokens live as long as the access token they come with. */
export const ID_TOKEN_TTL_SECONDS = ACCESS_TOKEN_TTL_SECONDS;

/** Signs a JWT with the service's active key (`TokenService.signJwt`). */
export interface JwtSigner {
  signJwt(claims: Record<string, unknown>): string;
}

/** What a token answer carries once OpenID Connect has had its say. */
export type TokensWithIdToken = IssuedTokens & { idToken?: string };

/** OIDC Core §3.1.3.6: the left half of SHA-256 of the access token's ASCII text, base64url. */
export function accessTokenHash(accessToken: string): string {
  return createHash('sha256').update(accessToken, 'ascii').digest().subarray(0, 16).toString('base64url');
}

/**
 * Issues OpenID Connect ID tokens (ES256, under the key published at /.well-known/jwks.json) for
 * token answers whose authorization asked for `openid`. Anything else passes through untouched, so
 * a plain OAuth 2.0 answer stays exactly what it was.
 */
export class IdTokenIssuer {
  readonly #now: () => number;

  constructor(
    private readonly deps: {
      signer: JwtSigner;
      users: UserDirectory;
      issuer: string;
      now?: () => number;
    },
  ) {
    this.#now = deps.now ?? Date.now;
  }

  /** Adds `idToken` to a code exchange's or refresh's result when its grant is an OIDC one. */
  async complete(issued: IssuedTokens): Promise<TokensWithIdToken> {
    if (!issued.oidc) return issued;
    const idToken = await this.issue({
      userUuid: Number(issued.userId),
      clientId: issued.clientId,
      grant: issued.oidc,
      accessToken: issued.accessToken,
    });
    return { ...issued, idToken };
  }

  /**
   * One ID token. `nonce` is echoed exactly when the grant has one (a refresh's grant has none:
   * OIDC Core §12.2 keeps `auth_time` at the original authentication and needs no nonce).
   * `ttlSeconds` may be negative only in tests that need an expired token.
   */
  async issue(input: {
    userUuid: number;
    clientId: string;
    grant: OidcGrant;
    accessToken?: string | undefined;
    ttlSeconds?: number;
  }): Promise<string> {
    const iat = Math.floor(this.#now() / 1000);
    const claims: Record<string, unknown> = {
      iss: this.deps.issuer,
      sub: String(input.userUuid),
      aud: input.clientId,
      exp: iat + (input.ttlSeconds ?? ID_TOKEN_TTL_SECONDS),
      iat,
      auth_time: Math.floor(input.grant.authTime / 1000),
      // How the sign-in that made the grant was proved (a refresh keeps it, like auth_time).
      ...authenticationClaims(input.grant.amr),
    };
    if (input.grant.nonce !== undefined) claims.nonce = input.grant.nonce;
    if (input.accessToken !== undefined) claims.at_hash = accessTokenHash(input.accessToken);
    if (needsUserRecord(input.grant.scope)) {
      const user = await this.deps.users.findUser(input.userUuid);
      // The account is gone (deleted between authorization and exchange): issue nothing about it.
      if (!user)
        throw new AppError(400, 'invalid_grant', 'The account of this authorization no longer exists');
      Object.assign(claims, scopedUserClaims(user, input.grant.scope));
    }
    return this.deps.signer.signJwt(claims);
  }
}
