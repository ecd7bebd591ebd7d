import type { OAuthClient } from '../../stores/clientStore.js';
import type { ClientRowCheck } from '../../stores/oauthGrantStore.js';
import type { Slot } from '../../stores/slotStore.js';
import { timeOrderedUuid } from '../../crypto/timeOrderedUuid.js';
import {
  issuedTokens,
  REFRESH_TOKEN_TTL_MS,
  type IssuedTokens,
  type OAuthGrantContext,
} from './oauthGrantContext.js';
import { newOpaqueToken, sha256Hex } from './opaqueToken.js';

/** How a backend-integration code exchange ended (see `openGrantFromBackendCode`). */
export type BackendCodeGrant =
  /** Not redeemed: unknown, another client's, used or expired (nothing was written). */
  | { outcome: 'not_redeemed' }
  /** Redeemed, but its slot is no longer the user's: no grant was opened. */
  | { outcome: 'slot_gone' }
  | { outcome: 'opened'; slot: Slot; tokens: IssuedTokens };

/**
 * The backend-integration get_token exchange: redeems the code `codeHash` for `client`, checks its
 * slot is still the user's, and opens a grant with its first refresh token, recorded on the code, in
 * one commit (`OAuthGrantStore.exchangeBackendCode`); then signs the access token.
 */
export async function openGrantFromBackendCode(
  context: OAuthGrantContext,
  input: {
    client: Pick<OAuthClient, 'clientId' | 'dapp'>;
    codeHash: string;
    /** The client as a cache held it: re-checked against the stored row in the commit. */
    clientRow?: ClientRowCheck | undefined;
  },
): Promise<BackendCodeGrant> {
  const now = context.now();
  // Time-ordered: oauth_grants grows at one edge of its primary-key index (timeOrderedUuid.ts).
  const grantId = timeOrderedUuid(now);
  const refreshToken = newOpaqueToken();
  const { clientId } = input.client;
  const exchanged = await context.grants.exchangeBackendCode({
    codeHash: input.codeHash,
    clientId,
    now,
    grantId,
    refreshToken: { tokenHash: sha256Hex(refreshToken), expiresAt: now + REFRESH_TOKEN_TTL_MS },
    clientRow: input.clientRow,
  });
  if (!exchanged.redeemed) return { outcome: 'not_redeemed' };
  if (!exchanged.slot) return { outcome: 'slot_gone' };
  const { userUuid, slot } = exchanged;
  const access = await context.tokens.issueAccessToken({ userId: String(userUuid), clientId, grantId });
  const tokens = await issuedTokens(
    context,
    input.client,
    { userUuid, grantId },
    { accessToken: access.token, refreshToken, expiresIn: access.expiresIn },
  );
  return { outcome: 'opened', slot, tokens };
}
