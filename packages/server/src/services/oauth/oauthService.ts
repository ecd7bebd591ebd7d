import type { OAuthClient } from '../../stores/clientStore.js';
import type { ClientRowCheck, GrantRecord, LiveGrant } from '../../stores/oauthGrantStore.js';
import type { TokenClaims } from '../tokens/tokenService.js';
import {
  exchangeCode,
  issueCode,
  type ExchangeCodeInput,
  type IssueCodeInput,
} from './authorizationCodeGrant.js';
import { type BackendCodeGrant, openGrantFromBackendCode } from './directGrant.js';
import {
  revokeClientGrants,
  revokeGrant,
  revokeJti,
  revokeTokenPair,
  revokeUserClientGrants,
  revokeUserGrants,
} from './grantRevocation.js';
import type { IssuedTokens, OAuthGrantContext } from './oauthGrantContext.js';
import { REFRESH_GRACE_MS, refresh, type RefreshingClient } from './refreshTokenGrant.js';
import { introspect, type IntrospectionResult } from './tokenIntrospection.js';
import { revokeToken } from './tokenRevocation.js';

export { CODE_TTL_MS } from './authorizationCodeGrant.js';
export { REFRESH_TOKEN_TTL_MS, type IssuedTokens, type MainWalletLookup } from './oauthGrantContext.js';
export { REFRESH_GRACE_MS } from './refreshTokenGrant.js';
export type { IntrospectionResult } from './tokenIntrospection.js';

/**
 * The OAuth grants as one object for the routes and the backend-integration flow (`/v1/oauth-meta/*`).
 * A thin facade: each use case lives in its own module (`authorizationCodeGrant.ts`,
 * `refreshTokenGrant.ts`, `directGrant.ts`, `grantRevocation.ts`, `tokenRevocation.ts` (RFC 7009),
 * `tokenIntrospection.ts` (RFC 7662)).
 */
export class OAuthService {
  readonly #context: OAuthGrantContext;

  constructor(deps: Omit<OAuthGrantContext, 'now'> & { now?: () => number }) {
    this.#context = { ...deps, now: deps.now ?? Date.now };
  }

  issueCode(input: IssueCodeInput): Promise<{ code: string; grantId: string; expiresAt: number }> {
    return issueCode(this.#context, input);
  }

  exchangeCode(input: ExchangeCodeInput): Promise<IssuedTokens> {
    return exchangeCode(this.#context, input);
  }

  /** get_token's code exchange: redemption, slot check, grant and refresh token in one commit. */
  openGrantFromBackendCode(input: {
    client: Pick<OAuthClient, 'clientId' | 'dapp'>;
    codeHash: string;
    clientRow?: ClientRowCheck | undefined;
  }): Promise<BackendCodeGrant> {
    return openGrantFromBackendCode(this.#context, input);
  }

  refresh(input: { client: RefreshingClient; refreshToken: string }): Promise<IssuedTokens> {
    return refresh(this.#context, input);
  }

  revokeGrant(grantId: string, reason: string): Promise<void> {
    return revokeGrant(this.#context, grantId, reason);
  }

  revokeUserClientGrants(userUuid: number, clientId: string, reason: string): Promise<number> {
    return revokeUserClientGrants(this.#context, userUuid, clientId, reason);
  }

  revokeUserGrants(userUuid: number, reason: string): Promise<number> {
    return revokeUserGrants(this.#context, userUuid, reason);
  }

  revokeClientGrants(clientId: string, reason: string): Promise<number> {
    return revokeClientGrants(this.#context, clientId, reason);
  }

  /** The apps a user holds live grants for (the console's "apps you approved"). */
  approvedApps(userUuid: number): Promise<{ clientId: string; since: number; scopes: string[] }[]> {
    return this.#context.grants.liveGrantsOfUser(userUuid);
  }

  /** A user's live grants with their device and last use (the account's Security page). */
  liveGrantsOf(userUuid: number): Promise<LiveGrant[]> {
    return this.#context.grants.liveGrantDetailsOf(userUuid);
  }

  findGrant(grantId: string): Promise<GrantRecord | undefined> {
    return this.#context.grants.findGrant(grantId);
  }

  revokeTokenPair(claims: TokenClaims): Promise<void> {
    return revokeTokenPair(this.#context, claims);
  }

  revokeJti(jti: string, expSeconds: number): Promise<void> {
    return revokeJti(this.#context, jti, expSeconds);
  }

  revokeToken(input: { client: OAuthClient; token: string }): Promise<void> {
    return revokeToken(this.#context, input);
  }

  introspect(input: { client: OAuthClient; token: string }): Promise<IntrospectionResult> {
    return introspect(this.#context, input);
  }

  /** Drops codes and refresh tokens past use, keeping rotated ones for the refresh grace window. */
  async purgeExpired(): Promise<void> {
    await this.#context.grants.purgeExpired(this.#context.now(), REFRESH_GRACE_MS);
  }
}
