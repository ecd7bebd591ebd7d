import { isAppError } from '../errors.js';
import type { LoginStatusPort, TokenGrants, TokenPair } from '../services/backendIntegration/ports.js';
import { RefreshRefused } from '../services/backendIntegration/ports.js';
import { reasonOf } from '../services/oauth/oauthErrors.js';
import type { OAuthService } from '../services/oauth/oauthService.js';
import type { LoginStatusService } from '../services/status/loginStatusService.js';

/**
 * The backend-integration flow's ports over the OAuth domain's services (one grant machinery for both
 * flows). The marketplace uses the same two. Apps need no adapter: `ClientService` is a `ClientDirectory`.
 */

export function tokenGrantsOf(oauth: OAuthService): TokenGrants {
  const pair = (issued: {
    accessToken: string;
    refreshToken: string;
    expiresIn: number;
    grantId: string;
  }): TokenPair => ({
    accessToken: issued.accessToken,
    refreshToken: issued.refreshToken,
    expiresIn: issued.expiresIn,
    grantId: issued.grantId,
  });
  return {
    openFromBackendCode: async (input) => {
      const exchanged = await oauth.openGrantFromBackendCode(input);
      return exchanged.outcome === 'opened'
        ? { outcome: 'opened', slot: exchanged.slot, tokens: pair(exchanged.tokens) }
        : exchanged;
    },
    refresh: async ({ client, refreshToken }) => {
      try {
        const issued = await oauth.refresh({ client, refreshToken });
        return { ...pair(issued), userUuid: Number(issued.userId) };
      } catch (err) {
        if (!isAppError(err)) throw err;
        const reason = reasonOf(err);
        if (reason === 'refresh_token_unknown') throw new RefreshRefused('unknown');
        if (reason === 'client_mismatch') throw new RefreshRefused('other_client');
        if (reason !== undefined) throw new RefreshRefused('expired_or_used');
        throw err;
      }
    },
    revokeGrant: (grantId, reason) => oauth.revokeGrant(grantId, reason),
    revokeUserClient: async (userUuid, clientId, reason) =>
      void (await oauth.revokeUserClientGrants(userUuid, clientId, reason)),
  };
}

export function loginStatusOf(status: LoginStatusService): LoginStatusPort {
  return {
    getStatus: async (userUuid, clientId) => (await status.getStatus(userUuid, clientId)).status,
    setStatus: async (userUuid, clientId, value) => void (await status.setStatus(userUuid, clientId, value)),
  };
}
