import type { BackendCodeStore } from '../../stores/backendCodeStore.js';
import type { Slot } from '../../stores/slotStore.js';
import type { SlotService } from '../slots/slotService.js';
import { hashCode } from './backendAuthorizeService.js';
import { getTokenErrors } from './envelopeCodes.js';
import type { ClientDirectory, DirectoryClient } from '../oauth/clientDirectory.js';
import { RefreshRefused, type TokenGrants, type TokenPair } from './ports.js';

/** What get_token returns: the slot with the token pair (SlotInfo on the wire). */
export interface SlotGrant {
  slot: Slot;
  tokens: TokenPair;
  /** The authorization code exchanged; empty for a refresh. */
  code: string;
}

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/**
 * get_token (spec endpoint 13): exchanges a backend-integration code, or rotates a refresh token,
 * for the slot's information and a token pair from the OAuth grant machinery. The checks run in
 * the order the envelope codes need: unknown client 570, wrong secret 410, unknown code 570, code
 * of another client 410, expired or used code 510. A replayed code also revokes the grant its
 * first exchange opened.
 */
export class GetTokenService {
  constructor(
    private readonly clients: ClientDirectory,
    private readonly codes: BackendCodeStore,
    private readonly slots: SlotService,
    private readonly grants: TokenGrants,
  ) {}

  async exchangeCode(credentials: ClientCredentials, code: string): Promise<SlotGrant> {
    const codeHash = hashCode(code);
    // The client from the cache (docs/oauth.md, "The client cache"): the exchange's commit re-checks the
    // row it held, so an app deleted, or a secret rotated, on another replica a moment ago is never used.
    const cached = await this.clients.checkClientSecretCached(credentials.clientId, credentials.clientSecret);
    const held = cached.heldRow;
    if (held) {
      if (cached.client && cached.secretMatches) {
        const exchanged = await this.grants.openFromBackendCode({
          client: cached.client,
          codeHash,
          clientRow: held,
        });
        if (exchanged.outcome !== 'not_redeemed') return this.#opened(exchanged, code);
      }
      // Refused on the held row (its secret, or at commit): the stored row decides, as without a cache.
      await this.clients.dropIfChanged(credentials.clientId, held);
      return this.#exchangeWith(await this.#authenticateClient(credentials), codeHash, code);
    }
    // Read from the database in this request: nothing to re-check.
    if (!cached.client) throw getTokenErrors.unknownClient();
    if (!cached.secretMatches) throw getTokenErrors.wrongSecret();
    return this.#exchangeWith(cached.client, codeHash, code);
  }

  /** The exchange for a client read from the database; the refusals told apart by the code's row. */
  async #exchangeWith(client: DirectoryClient, codeHash: string, code: string): Promise<SlotGrant> {
    // The usual case in one commit (redemption, the slot still the user's, the grant and its link);
    // the refusals are told apart afterwards, and change nothing.
    const exchanged = await this.grants.openFromBackendCode({ client, codeHash });
    if (exchanged.outcome === 'not_redeemed') {
      const found = await this.codes.find(codeHash);
      if (!found) throw getTokenErrors.unknownCode();
      if (found.clientId !== client.clientId) throw getTokenErrors.codeOfOtherClient();
      // Presented again after a successful exchange: whoever holds it now is not to be trusted.
      if (found.grantId) await this.grants.revokeGrant(found.grantId, 'code_reuse');
      throw getTokenErrors.codeExpired();
    }
    return this.#opened(exchanged, code);
  }

  #opened(
    exchanged: Exclude<Awaited<ReturnType<TokenGrants['openFromBackendCode']>>, { outcome: 'not_redeemed' }>,
    code: string,
  ): SlotGrant {
    // The slot must still be the user's: it may have been sold between authorize and exchange.
    if (exchanged.outcome === 'slot_gone') throw getTokenErrors.codeExpired();
    const { slot, tokens } = exchanged;
    return { slot, tokens, code };
  }

  async refresh(credentials: ClientCredentials, refreshToken: string): Promise<SlotGrant> {
    const client = await this.#authenticateClient(credentials);
    let tokens: TokenPair & { userUuid: number };
    try {
      tokens = await this.grants.refresh({ client, refreshToken });
    } catch (err) {
      if (!(err instanceof RefreshRefused)) throw err;
      if (err.reason === 'unknown') throw getTokenErrors.unknownRefreshToken();
      if (err.reason === 'other_client') throw getTokenErrors.refreshOfOtherClient();
      throw getTokenErrors.refreshExpired();
    }
    const [slot] = await this.slots.listForOwner(tokens.userUuid, credentials.clientId);
    if (!slot) {
      // The user no longer holds a slot of this app (sold it): the fresh pair must not outlive that.
      await this.grants.revokeGrant(tokens.grantId, 'slot_gone');
      throw getTokenErrors.refreshExpired();
    }
    return { slot, tokens, code: '' };
  }

  /** The client, when the credentials are right: handed on to the grant machinery, which does not read it again. */
  async #authenticateClient(credentials: ClientCredentials): Promise<DirectoryClient> {
    // One lookup for both checks (the client was read twice before: a statement per get_token).
    const { client, secretMatches } = await this.clients.checkClientSecret(
      credentials.clientId,
      credentials.clientSecret,
    );
    if (!client) throw getTokenErrors.unknownClient();
    if (!secretMatches) throw getTokenErrors.wrongSecret();
    return client;
  }
}
