import { AppError } from '../../errors.js';
import type { LoginCutoff } from '../../stores/userStore.js';
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
  /** The user's login cutoff (password change/reset), when one was set. */
  #loginCutoff: ((userId: string) => Promise<LoginCutoff | undefined>) | undefined;

  constructor(
    private readonly tokens: TokenService,
    private revocations: RevocationList = noRevocations,
  ) {}

  useRevocationList(list: RevocationList): void {
    this.revocations = list;
  }

  /** "Log out everywhere": login JWTs issued before the user's cutoff fail, checked on every call. */
  useLoginCutoff(cutoff: (userId: string) => Promise<LoginCutoff | undefined>): void {
    this.#loginCutoff = cutoff;
  }

  /**
   * `authenticate`, answered without a promise when every check can be made from memory: a token
   * whose signature was checked before (the verified-token cache) and a revocation list that answers
   * at once (`RevocationRegistry` while in sync). Then it returns the claims or throws the same error
   * `authenticate` would reject with; otherwise it returns `authenticate`'s promise. Login tokens
   * always take that path (their password-change cutoff is read from the store).
   */
  authenticateNow(
    token: string,
    accept: TokenClaims['use'] | 'any' = 'any',
  ): TokenClaims | Promise<TokenClaims> {
    return this.authenticateSeen(token, accept) ?? this.authenticate(token, accept);
  }

  /**
   * `authenticateNow` for a token whose exact text was verified before (the verified-token cache's hit), and
   * that is not a login JWT: its answer or error. Undefined otherwise (call `authenticate`). A hit's text is a
   * verified JWT's, so the caller may pass text it has not checked for anything else (whitespace, say).
   */
  authenticateSeen(
    token: string,
    accept: TokenClaims['use'] | 'any' = 'any',
  ): TokenClaims | Promise<TokenClaims> | undefined {
    const claims = this.tokens.verifyCached(token, accept);
    if (!claims || claims.use === 'login') return undefined;
    const revoked = this.revocations.isRevoked(claims);
    if (revoked === false) return claims;
    if (revoked === true) throw revokedError();
    return revoked.then((isRevoked) => {
      if (isRevoked) throw revokedError();
      return claims;
    });
  }

  async authenticate(token: string, accept: TokenClaims['use'] | 'any' = 'any'): Promise<TokenClaims> {
    const claims = await this.tokens.verify(token, accept);
    if (await this.revocations.isRevoked(claims)) throw revokedError();
    if (claims.use === 'login' && this.#loginCutoff) {
      const cutoff = await this.#loginCutoff(claims.userId);
      if (cutoff !== undefined && claims.iat < cutoff.validAfter && claims.jti !== cutoff.keptJti) {
        throw new AppError(
          401,
          'invalid_token',
          cutoff.deleted
            ? 'The token has been revoked (the account was deleted)'
            : 'The token has been revoked (the password changed since)',
        );
      }
    }
    return claims;
  }
}

const revokedError = () => new AppError(401, 'invalid_token', 'The token has been revoked');
