import type { SecretBox } from '../../crypto/secretBox.js';
import type { OAuthClient } from '../../stores/clientStore.js';
import type {
  GrantRecord,
  OAuthGrantStore,
  OidcGrant,
  RefreshTokenRecord,
} from '../../stores/oauthGrantStore.js';
import type { TokenService } from '../tokens/tokenService.js';
import { sha256Hex } from './opaqueToken.js';
import type { RevocationRegistry } from './revocationRegistry.js';

/** Refresh tokens rotate on every use; each one lives 30 days from its issue. */
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3600_000;

export interface MainWalletLookup {
  mainWallet(userUuid: number): Promise<{ address: string } | undefined>;
}

/** What every grant use case works with: the `OAuthService` constructor options, the clock resolved. */
export interface OAuthGrantContext {
  grants: OAuthGrantStore;
  tokens: TokenService;
  revocations: RevocationRegistry;
  wallets: MainWalletLookup;
  secretBox: SecretBox;
  issuer: string;
  now: () => number;
}

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
  /** OpenID Connect authorizations only: what the `id_token` needs (services/oidc adds it). */
  oidc?: OidcGrant;
}

/** A live grant: the family every code, access and refresh token of one authorization belongs to. */
export function newGrant(grantId: string, clientId: string, userUuid: number, now: number): GrantRecord {
  return { grantId, clientId, userUuid, createdAt: now, revokedAt: null, revokedReason: null };
}

/** The stored form of a fresh refresh token: only its hash is kept. */
export function refreshRecord(
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

/** The token result, with the content address of a `dapp` app's user added. */
export async function issuedTokens(
  context: OAuthGrantContext,
  client: Pick<OAuthClient, 'clientId' | 'dapp'>,
  grant: { userUuid: number; grantId: string },
  pair: { accessToken: string; refreshToken: string; expiresIn: number },
  oidc?: OidcGrant,
): Promise<IssuedTokens> {
  const issued: IssuedTokens = {
    ...pair,
    userId: String(grant.userUuid),
    clientId: client.clientId,
    grantId: grant.grantId,
  };
  if (oidc) issued.oidc = oidc;
  if (client.dapp) {
    const wallet = await context.wallets.mainWallet(grant.userUuid);
    if (wallet) issued.contentAddress = wallet.address;
  }
  return issued;
}
