import { AppError, insufficientScope } from '../../errors.js';
import type { MainWalletLookup } from '../oauth/oauthService.js';
import type { TokenClaims } from '../tokens/tokenService.js';
import { scopeIncludes } from './scopes.js';
import { scopedUserClaims, type UserDirectory } from './userClaims.js';

/**
 * The UserInfo endpoint's claims (OIDC Core §5.3) for a verified, unrevoked access token: `sub`
 * always, `name` for `profile`, `email`/`email_verified` for `email`, and dauth's own
 * `wallet_address` (the user's main wallet, when they have one) for `wallet`.
 */
export class UserInfoService {
  constructor(private readonly deps: { users: UserDirectory; wallets: MainWalletLookup }) {}

  async claimsFor(token: TokenClaims): Promise<{ sub: string } & Record<string, unknown>> {
    const scope = token.scope;
    if (token.use !== 'access' || !scopeIncludes(scope, 'openid'))
      throw insufficientScope('The access token was not granted the openid scope');
    const userUuid = Number(token.userId);
    const user = await this.deps.users.findUser(userUuid);
    if (!user) throw new AppError(401, 'invalid_token', 'The token names no user');
    const claims: { sub: string } & Record<string, unknown> = {
      sub: token.userId,
      ...scopedUserClaims(user, scope!),
    };
    if (scopeIncludes(scope, 'wallet')) {
      const wallet = await this.deps.wallets.mainWallet(userUuid);
      if (wallet) claims.wallet_address = wallet.address;
    }
    return claims;
  }
}
