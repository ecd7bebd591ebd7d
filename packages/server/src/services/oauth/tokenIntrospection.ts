import type { OAuthClient } from '../../stores/clientStore.js';
import { authenticationClaims } from '../oidc/authenticationContext.js';
import type { OAuthGrantContext } from './oauthGrantContext.js';
import { sha256Hex } from './opaqueToken.js';
import { isJwt } from './tokenRevocation.js';

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
  /** client_credentials tokens: the granted scope. */
  scope?: string;
  /** client_credentials tokens: `"client"` — the token stands for the client itself, never a person. */
  token_use?: 'client';
  /** How the user signed in for the token's grant (RFC 8176), and `acr: "mfa"` when two factors. */
  amr?: string[];
  acr?: string;
}

/** RFC 7662 for an authenticated client: only its own tokens are ever reported active. */
export async function introspect(
  context: OAuthGrantContext,
  input: { client: OAuthClient; token: string },
): Promise<IntrospectionResult> {
  if (isJwt(input.token)) {
    const claims =
      (await context.tokens.verify(input.token, 'access').catch(() => undefined)) ??
      (await context.tokens.verify(input.token, 'client').catch(() => undefined));
    if (!claims || claims.clientId !== input.client.clientId) return { active: false };
    if (await context.revocations.isRevoked(claims)) return { active: false };
    if (claims.use === 'client') {
      // A client_credentials token: its subject is the client, no user and no authentication of one.
      return {
        active: true,
        client_id: input.client.clientId,
        sub: claims.userId,
        token_type: 'Bearer',
        token_use: 'client',
        exp: claims.exp,
        iat: claims.iat,
        iss: context.issuer,
        jti: claims.jti,
        ...(claims.scope !== undefined ? { scope: claims.scope } : {}),
      };
    }
    const grant = claims.grantId === undefined ? undefined : await context.grants.findGrant(claims.grantId);
    return {
      active: true,
      client_id: input.client.clientId,
      user_id: claims.userId,
      sub: claims.userId,
      token_type: 'Bearer',
      exp: claims.exp,
      iat: claims.iat,
      iss: context.issuer,
      jti: claims.jti,
      ...authenticationClaims(grant?.amr),
    };
  }
  const row = await context.grants.findRefreshToken(sha256Hex(input.token));
  const now = context.now();
  if (!row || row.clientId !== input.client.clientId || row.usedAt !== null || row.expiresAt <= now) {
    return { active: false };
  }
  const grant = await context.grants.findGrant(row.grantId);
  if (!grant || grant.revokedAt !== null) return { active: false };
  return {
    active: true,
    client_id: row.clientId,
    user_id: String(row.userUuid),
    sub: String(row.userUuid),
    token_type: 'refresh_token',
    exp: Math.floor(row.expiresAt / 1000),
    iat: Math.floor(row.createdAt / 1000),
    iss: context.issuer,
    ...authenticationClaims(grant.amr),
  };
}
