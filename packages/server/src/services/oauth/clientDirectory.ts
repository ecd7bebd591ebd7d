/**
 * The registered apps (OAuth clients) as other domains use them: the backend-integration flow, the slot
 * import and content tokens. `ClientService` is the implementation; this port keeps those domains to the
 * few calls they need.
 */
import type { ClientRowCheck } from '../../stores/oauthGrantStore.js';

/** A registered app, as far as other domains care. */
export interface DirectoryClient {
  clientId: string;
  /** The user who registered the app. */
  ownerUuid: number;
  redirectUris: string[];
  /** Whether the app's token results carry the user's content address (`dapp: true` apps). */
  dapp: boolean;
}

export interface ClientDirectory {
  findClient(clientId: string): Promise<DirectoryClient | undefined>;
  /** Constant-time check of the client's secret; false for an unknown client. */
  verifyClientSecret(clientId: string, secret: string): Promise<boolean>;
  /** The client (undefined when unknown) and whether `secret` is its secret, in one lookup. */
  checkClientSecret(
    clientId: string,
    secret: string,
  ): Promise<{ client: DirectoryClient | undefined; secretMatches: boolean }>;
  /**
   * As `checkClientSecret`, from the client cache when it holds the row (docs/oauth.md, "The client cache").
   * `heldRow` is set when the row came from memory: the caller's commit re-checks it, and a refusal is
   * decided again on the stored row (`dropIfChanged`, then `checkClientSecret`).
   */
  checkClientSecretCached(
    clientId: string,
    secret: string,
  ): Promise<{
    client: DirectoryClient | undefined;
    secretMatches: boolean;
    heldRow?: ClientRowCheck | undefined;
  }>;
  /**
   * The live client from the client cache when it holds it (`held`): the caller's commit re-checks what
   * it used of a held row, and on a refusal calls `forgetCached` and decides again with `findClient`.
   */
  findClientCached(clientId: string): Promise<{ client: DirectoryClient | undefined; held: boolean }>;
  /** A held row was refused where it was re-checked (the stored row differs): this replica drops it. */
  forgetCached(clientId: string): Promise<void>;
  /** A held row was refused: the cache drops it if the stored row differs from it (or is gone). */
  dropIfChanged(clientId: string, held: ClientRowCheck): Promise<void>;
  /** Exact string match against the registered redirect URIs (scheme, host, port, path, trailing slash). */
  isRegisteredRedirect(client: Pick<DirectoryClient, 'redirectUris'>, redirectUri: string): boolean;
}
