import type { OAuthClient } from '../../stores/clientStore.js';
import { revokeGrant, revokeJti } from './grantRevocation.js';
import type { OAuthGrantContext } from './oauthGrantContext.js';
import { sha256Hex } from './opaqueToken.js';

/** A JWT access token has three dot-separated parts; a refresh token is opaque. */
export const isJwt = (token: string) => token.split('.').length === 3;

/**
 * RFC 7009 for an authenticated client. An access token is revoked by its id; a refresh token
 * revokes its whole grant (RFC 7009 §2.1: access tokens of the same grant go too). Unknown,
 * invalid or other clients' tokens change nothing and are not reported (§2.2).
 */
export async function revokeToken(
  context: OAuthGrantContext,
  input: { client: OAuthClient; token: string },
): Promise<void> {
  if (isJwt(input.token)) {
    const claims = await context.tokens.verify(input.token, 'access').catch(() => undefined);
    if (claims && claims.clientId === input.client.clientId) await revokeJti(context, claims.jti, claims.exp);
    return;
  }
  const row = await context.grants.findRefreshToken(sha256Hex(input.token));
  if (row && row.clientId === input.client.clientId)
    await revokeGrant(context, row.grantId, 'revoked_by_client');
}
