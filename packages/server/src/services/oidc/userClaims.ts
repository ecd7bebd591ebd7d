import { scopeIncludes } from './scopes.js';

/** What the claims of a user are made of (the account as `AccountService.findUser` returns it). */
export interface ClaimsUser {
  userUuid: number;
  /** Null for a guest or a passkey-only account: the `email` claim is then left out. */
  email: string | null;
  nickname: string;
}

export interface UserDirectory {
  findUser(userUuid: number): Promise<ClaimsUser | undefined>;
}

/**
 * The profile and e-mail claims a scope releases (OIDC Core §5.4). `name` is the account's
 * nickname. dauth does not verify e-mail addresses at registration, so `email_verified` is false.
 */
export function scopedUserClaims(user: ClaimsUser, scope: string): Record<string, unknown> {
  const claims: Record<string, unknown> = {};
  if (scopeIncludes(scope, 'profile')) claims.name = user.nickname;
  if (scopeIncludes(scope, 'email') && user.email !== null) {
    claims.email = user.email;
    claims.email_verified = false;
  }
  return claims;
}

/** Whether a scope asks for claims beyond `sub` (then the account must be read). */
export const needsUserRecord = (scope: string): boolean =>
  scopeIncludes(scope, 'profile') || scopeIncludes(scope, 'email');
