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
  'acr',
  'amr',
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

/** A claim the consent page names when a scope releases it (the page words it in the player's language). */
export type DisclosedClaim = 'email' | 'name' | 'wallet_address';

/** What an OpenID scope lets the app read: the claims the consent page names, in a fixed order. */
export function disclosedClaims(scope: string | undefined): DisclosedClaim[] {
  const shared: DisclosedClaim[] = [];
  if (scopeIncludes(scope, 'email')) shared.push('email');
  if (scopeIncludes(scope, 'profile')) shared.push('name');
  if (scopeIncludes(scope, 'wallet')) shared.push('wallet_address');
  return shared;
}

/**
 * Scopes that release a claim (userinfo, ID token): each needs the user's approval on the consent
 * page, which names what it releases. `openid` (the `sub` any grant reveals) and `offline_access`
 * (a refresh token, which every dauth grant carries) add nothing a consent to the app did not give.
 */
const DISCLOSING_SCOPES: readonly SupportedScope[] = ['profile', 'email', 'wallet'];

/**
 * Whether a recorded consent (`approved`, undefined when there is none) covers a request's granted
 * scope (undefined for plain OAuth 2.0): every claim-releasing scope asked must have been approved.
 */
export function consentCovers(approved: string | undefined, requested: string | undefined): boolean {
  if (approved === undefined) return false;
  return DISCLOSING_SCOPES.every((s) => !scopeIncludes(requested, s) || scopeIncludes(approved, s));
}

/** Two scope strings as one (their union, in `SUPPORTED_SCOPES` order): approving more never narrows. */
export function mergedScope(a: string | undefined, b: string | undefined): string {
  const all = new Set([...(a ?? '').split(' '), ...(b ?? '').split(' ')]);
  return SUPPORTED_SCOPES.filter((s) => all.has(s)).join(' ');
}
