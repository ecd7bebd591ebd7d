import type { TokenClaims } from '../tokens/tokenService.js';
import { ACCESS_TOKEN_TTL_SECONDS, clientGrantId } from '../tokens/tokenService.js';
import type { OAuthGrantContext } from './oauthGrantContext.js';

/** Revocation entries outlive the newest token they can match by this margin (clock skew between replicas). */
const REVOCATION_MARGIN_MS = 5 * 60_000;

/** Until when a grant's revocation entry must live: past the last access token it could have issued. */
export const grantEntryExpiry = (now: number) => now + ACCESS_TOKEN_TTL_SECONDS * 1000 + REVOCATION_MARGIN_MS;

/** Revokes a grant: every access and refresh token issued from its code, on every replica. */
export async function revokeGrant(
  context: OAuthGrantContext,
  grantId: string,
  reason: string,
): Promise<void> {
  const now = context.now();
  await context.revocations.revoke({ kind: 'grant', value: grantId, expiresAt: grantEntryExpiry(now) });
  await context.grants.revokeGrant(grantId, reason, now);
}

/** Revokes every grant a user gave an app (marketplace sale, account actions). Returns how many. */
export async function revokeUserClientGrants(
  context: OAuthGrantContext,
  userUuid: number,
  clientId: string,
  reason: string,
): Promise<number> {
  const now = context.now();
  const ids = await context.grants.revokeGrantsOf(userUuid, clientId, reason, now);
  for (const id of ids) {
    await context.revocations.revoke({ kind: 'grant', value: id, expiresAt: grantEntryExpiry(now) });
  }
  return ids.length;
}

/**
 * Revokes every grant of a user, every app (password reset or change): every refresh token and the
 * access tokens they minted, on every replica. Returns how many.
 */
export async function revokeUserGrants(
  context: OAuthGrantContext,
  userUuid: number,
  reason: string,
): Promise<number> {
  const now = context.now();
  const ids = await context.grants.revokeAllGrantsOfUser(userUuid, reason, now);
  for (const id of ids) {
    await context.revocations.revoke({ kind: 'grant', value: id, expiresAt: grantEntryExpiry(now) });
  }
  return ids.length;
}

/**
 * Revokes every grant of an app (deleted by its owner), and its client_credentials tokens, on every
 * replica. Returns how many grants.
 */
export async function revokeClientGrants(
  context: OAuthGrantContext,
  clientId: string,
  reason: string,
): Promise<number> {
  const now = context.now();
  await context.revocations.revoke({
    kind: 'grant',
    value: clientGrantId(clientId),
    expiresAt: grantEntryExpiry(now),
  });
  const ids = await context.grants.revokeGrantsOfClient(clientId, reason, now);
  for (const id of ids) {
    await context.revocations.revoke({ kind: 'grant', value: id, expiresAt: grantEntryExpiry(now) });
  }
  return ids.length;
}

/** Revokes one token by its id until it would have expired anyway. */
export async function revokeJti(context: OAuthGrantContext, jti: string, expSeconds: number): Promise<void> {
  await context.revocations.revoke({
    kind: 'jti',
    value: jti,
    expiresAt: expSeconds * 1000 + REVOCATION_MARGIN_MS,
  });
}

/**
 * Revokes the token pair an access token belongs to: its grant (so its refresh token too). Used by
 * the backend-integration logout; a login JWT (no grant) is revoked by its id alone.
 */
export async function revokeTokenPair(context: OAuthGrantContext, claims: TokenClaims): Promise<void> {
  if (claims.grantId) await revokeGrant(context, claims.grantId, 'logout');
  else await revokeJti(context, claims.jti, claims.exp);
}
