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
  constructor(
    private readonly tokens: TokenService,
    private revocations: RevocationList = noRevocations,
  ) {}

  useRevocationList(list: RevocationList): void {
    this.revocations = list;
  }

  async authenticate(token: string, accept: TokenClaims['use'] | 'any' = 'any'): Promise<TokenClaims> {
    const claims = await this.tokens.verify(token, accept);
    if (await this.revocations.isRevoked(claims)) {
      throw new AppError(401, 'invalid_token', 'The token has been revoked');
    }
    return claims;
  }
}
