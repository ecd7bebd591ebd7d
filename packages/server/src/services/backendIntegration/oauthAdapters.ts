import { AppError, isAppError } from '../../errors.js';
import type { ClientService } from '../oauth/clientService.js';
import { reasonOf } from '../oauth/oauthErrors.js';
import type { OAuthService } from '../oauth/oauthService.js';
import type { LoginStatusService } from '../status/loginStatusService.js';
import {
  type ClientDirectory,
  type LoginStatusPort,
  RefreshRefused,
  type TokenGrants,
  type TokenPair,
} from './ports.js';

/** The backend flow's ports over the OAuth domain's services (one grant machinery for both flows). */
export function clientDirectoryOf(clients: ClientService): ClientDirectory {
  return {
    findClient: (clientId) => clients.findClient(clientId),
    verifyClientSecret: (clientId, secret) => clients.verifyClientSecret(clientId, secret),
    isRegisteredRedirect: (client, uri) => clients.isRegisteredRedirect(client, uri),
  };
}

export function tokenGrantsOf(oauth: OAuthService, clients: ClientService): TokenGrants {
  const clientOf = async (clientId: string) => {
    const client = await clients.findClient(clientId);
    if (!client) throw new AppError(401, 'invalid_client', 'Unknown client');
    return client;
  };
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
    open: async ({ userUuid, clientId }) =>
      pair(await oauth.openGrant({ client: await clientOf(clientId), userUuid })),
    refresh: async ({ clientId, refreshToken }) => {
      try {
        const issued = await oauth.refresh({ client: await clientOf(clientId), refreshToken });
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
