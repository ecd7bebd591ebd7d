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

/**
 * Opens a grant without a code and issues its first token pair: for flows that authenticate the
 * user their own way (the backend-integration get_token). Revocable like any other grant.
 */
export async function openGrant(
  context: OAuthGrantContext,
  input: { client: OAuthClient; userUuid: number },
): Promise<IssuedTokens> {
  const now = context.now();
  const grantId = randomUUID();
  const refreshToken = newOpaqueToken();
  const { clientId } = input.client;
  await context.grants.createGrantWithRefreshToken(
    newGrant(grantId, clientId, input.userUuid, now),
    refreshRecord(refreshToken, grantId, clientId, input.userUuid, now),
  );
  const access = await context.tokens.issueAccessToken({ userId: String(input.userUuid), clientId, grantId });
  return issuedTokens(
    context,
    input.client,
    { userUuid: input.userUuid, grantId },
    { accessToken: access.token, refreshToken, expiresIn: access.expiresIn },
  );
}
