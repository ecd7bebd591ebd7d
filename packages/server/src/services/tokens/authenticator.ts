import { AppError } from '../../errors.js';
import type { TokenClaims, TokenService } from './tokenService.js';

/** Answers whether a verified token has since been revoked (logout, code reuse, marketplace sale…). */
export interface RevocationList {
  isRevoked(claims: TokenClaims): boolean | Promise<boolean>;
}

/** Nothing is revoked: used until the OAuth grant store provides the real list. */
export const noRevocations: RevocationList = { isRevoked: () => false };

/**
 * The single entry point for "is this bearer token good?": signature, expiry and use through
 * `TokenService`, then revocation on every call (never cached).
 */
export class Authenticator {
  /** Unix seconds before which a user's login JWTs are void (password change/reset), when known. */
  #loginCutoff: ((userId: string) => Promise<number | undefined>) | undefined;

  constructor(
    private readonly tokens: TokenService,
    private revocations: RevocationList = noRevocations,
  ) {}

  useRevocationList(list: RevocationList): void {
    this.revocations = list;
  }

  /** "Log out everywhere": login JWTs issued before the user's cutoff fail, checked on every call. */
  useLoginCutoff(cutoff: (userId: string) => Promise<number | undefined>): void {
    this.#loginCutoff = cutoff;
  }

  async authenticate(token: string, accept: TokenClaims['use'] | 'any' = 'any'): Promise<TokenClaims> {
    const claims = await this.tokens.verify(token, accept);
    if (await this.revocations.isRevoked(claims)) {
      throw new AppError(401, 'invalid_token', 'The token has been revoked');
    }
    if (claims.use === 'login' && this.#loginCutoff) {
      const cutoff = await this.#loginCutoff(claims.userId);
      if (cutoff !== undefined && claims.iat < cutoff) {
        throw new AppError(401, 'invalid_token', 'The token has been revoked (the password changed since)');
      }
    }
    return claims;
  }
}
