/**
 * OpenID Connect scopes dauth understands. `wallet` is dauth's own: it releases the `wallet_address`
 * claim (the user's main wallet) at the userinfo endpoint.
 */
export const SUPPORTED_SCOPES = ['openid', 'profile', 'email', 'offline_access', 'wallet'] as const;
export type SupportedScope = (typeof SUPPORTED_SCOPES)[number];

/** Claims dauth can release, for the discovery document's `claims_supported`. */
export const SUPPORTED_CLAIMS = [
  'sub',
  'iss',
  'aud',
  'exp',
  'iat',
  'auth_time',
  'nonce',
  'at_hash',
  'name',
  'email',
  'email_verified',
  'wallet_address',
] as const;

/**
 * The scope an authorization grants, or undefined for a plain OAuth 2.0 request (no `openid`).
 * Values dauth does not know are ignored (OIDC Core §3.1.2.1); the rest keep the order of
 * `SUPPORTED_SCOPES`, so one request always records one string.
 */
export function grantedOidcScope(requested: string | undefined): string | undefined {
  if (requested === undefined) return undefined;
  const asked = new Set(requested.split(' ').filter((s) => s !== ''));
  if (!asked.has('openid')) return undefined;
  return SUPPORTED_SCOPES.filter((s) => asked.has(s)).join(' ');
}

export function scopeIncludes(scope: string | undefined, value: SupportedScope): boolean {
  return scope !== undefined && scope.split(' ').includes(value);
}

/** What an OpenID scope lets the app read, in words for the consent page. */
export function disclosedClaims(scope: string | undefined): string[] {
  const shared: string[] = [];
  if (scopeIncludes(scope, 'email')) shared.push('your e-mail address');
  if (scopeIncludes(scope, 'profile')) shared.push('your name');
  if (scopeIncludes(scope, 'wallet')) shared.push('your wallet address');
  return shared;
}
