/**
 * What the backend-integration flow needs from the OAuth domain, as small ports: the flow reuses
 * the OAuth engineer's grants, refresh-token rotation, revocation and login status rather than
 * keeping a second copy (apps come through `oauth/clientDirectory.ts`). `composition/oauthPorts.ts`
 * fits the real services to these ports.
 */
import type { ClientRowCheck } from '../../stores/oauthGrantStore.js';
import type { Slot } from '../../stores/slotStore.js';
import type { DirectoryClient } from '../oauth/clientDirectory.js';

/** An access token (JWT) and its refresh token, both belonging to one grant. */
export interface TokenPair {
  accessToken: string;
  refreshToken: string;
  /** Seconds. */
  expiresIn: number;
  grantId: string;
}

/** Why a refresh token was refused, in the terms of the get_token envelope codes. */
export type RefreshRefusal = 'unknown' | 'other_client' | 'expired_or_used';

export class RefreshRefused extends Error {
  constructor(readonly reason: RefreshRefusal) {
    super(`refresh token refused: ${reason}`);
    this.name = 'RefreshRefused';
  }
}

/** The app, as the caller authenticated it in this request: the grant machinery does not read it again. */
export type GrantingClient = Pick<DirectoryClient, 'clientId' | 'dapp'>;

export interface TokenGrants {
  /**
   * get_token's code exchange, in one commit: redeems the backend-integration code `codeHash` if it
   * is `client`'s, unused and unexpired; when its slot is still the user's, opens a grant with its
   * first token pair and records the grant on the code (a replay of the code revokes it).
   * `not_redeemed` and `slot_gone` wrote nothing but the code's use (for `slot_gone`).
   */
  openFromBackendCode(input: {
    client: GrantingClient;
    codeHash: string;
    /** The client came from the cache: redeemed only if the stored row still matches (else `not_redeemed`). */
    clientRow?: ClientRowCheck | undefined;
  }): Promise<
    | { outcome: 'not_redeemed' }
    | { outcome: 'slot_gone' }
    | { outcome: 'opened'; slot: Slot; tokens: TokenPair }
  >;
  /** Rotates a refresh token presented by `client`; throws `RefreshRefused`. */
  refresh(input: { client: GrantingClient; refreshToken: string }): Promise<TokenPair & { userUuid: number }>;
  /** Revokes every token of one grant (the pair of a logout, or the grant of a replayed code). */
  revokeGrant(grantId: string, reason: string): Promise<void>;
  /** Revokes every grant of a user for an app (a marketplace sale). */
  revokeUserClient(userUuid: number, clientId: string, reason: string): Promise<void>;
}

export type LoginStatusValue = 'logged_in' | 'logged_out';

export interface LoginStatusPort {
  getStatus(userUuid: number, clientId: string): Promise<LoginStatusValue>;
  setStatus(userUuid: number, clientId: string, status: LoginStatusValue): Promise<void>;
}
