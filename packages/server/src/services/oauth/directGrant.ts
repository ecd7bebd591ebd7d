import { randomUUID } from 'node:crypto';
import type { OAuthClient } from '../../stores/clientStore.js';
import {
  issuedTokens,
  newGrant,
  refreshRecord,
  type IssuedTokens,
  type OAuthGrantContext,
} from './oauthGrantContext.js';
import { newOpaqueToken } from './opaqueToken.js';

/** What opening a grant without a code needs. */
export interface OpenGrantInput {
  /** The client, as its caller authenticated it moments before (it is not read again). */
  client: Pick<OAuthClient, 'clientId' | 'dapp'>;
  userUuid: number;
  /** The backend-integration code whose exchange opens the grant: linked in the grant's commit. */
  backendCodeHash?: string | undefined;
}

/**
 * Opens a grant without a code and issues its first token pair: for flows that authenticate the
 * user their own way (the backend-integration get_token). Revocable like any other grant.
 */
export async function openGrant(context: OAuthGrantContext, input: OpenGrantInput): Promise<IssuedTokens> {
  const now = context.now();
  const grantId = randomUUID();
  const refreshToken = newOpaqueToken();
  const { clientId } = input.client;
  await context.grants.createGrantWithRefreshToken(
    newGrant(grantId, clientId, input.userUuid, now),
    refreshRecord(refreshToken, grantId, clientId, input.userUuid, now),
    input.backendCodeHash === undefined ? undefined : { backendCodeHash: input.backendCodeHash },
  );
  const access = await context.tokens.issueAccessToken({ userId: String(input.userUuid), clientId, grantId });
  return issuedTokens(
    context,
    input.client,
    { userUuid: input.userUuid, grantId },
    { accessToken: access.token, refreshToken, expiresIn: access.expiresIn },
  );
}
