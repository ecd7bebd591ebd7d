import { AppError } from '../../errors.js';
import type { TokenClaims } from '../tokens/tokenService.js';
import type { LoginStatusPort, TokenGrants } from './ports.js';

/**
 * `user/logout` of the backend flow: revokes the token pair of the presented access token (its
 * grant: the access token and its refresh token family) and sets the user's status for the app to
 * `logged_out`, which is what allows a marketplace listing.
 */
export class BackendLogoutService {
  constructor(
    private readonly grants: TokenGrants,
    private readonly status: LoginStatusPort,
  ) {}

  async logout(claims: TokenClaims): Promise<{ userId: string; clientId: string }> {
    if (claims.use !== 'access' || !claims.clientId || !claims.grantId) {
      throw new AppError(401, 'invalid_token', 'An access token is required');
    }
    await this.grants.revokeGrant(claims.grantId, 'logout');
    await this.status.setStatus(Number(claims.userId), claims.clientId, 'logged_out');
    return { userId: claims.userId, clientId: claims.clientId };
  }
}
