import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../../errors.js';
import type { BackendCodeStore } from '../../stores/backendCodeStore.js';
import type { Slot } from '../../stores/slotStore.js';
import type { EnsureSlotResult, SlotService } from '../slots/slotService.js';
import type { ClientDirectory } from '../oauth/clientDirectory.js';

export interface BackendAuthorizeRequest {
  userUuid: number;
  clientId: string;
  redirectUri: string;
  state: string;
}

export interface BackendAuthorizeOutcome {
  slot: Slot;
  result: EnsureSlotResult;
  /** The code the callback carries; shown to nobody else. */
  code: string;
  codeHash: string;
  redirectUri: string;
  state: string;
}

export const hashCode = (code: string) => createHash('sha256').update(code, 'utf8').digest('hex');

/** `redirect_uri mismatch` exactly, as the spec words it; also for an unknown client (no oracle). */
export const redirectMismatch = () => new AppError(401, 'redirect_uri_mismatch', 'redirect_uri mismatch');

/**
 * The authorize step of the backend integration flow: checks the app and its exact redirect URI,
 * makes sure the user has a slot for the app (creating it on first use), and issues a single-use
 * code bound to the app, the user, the slot and the redirect URI. The route answers, then the
 * `CallbackSender` delivers the code.
 */
export class BackendAuthorizeService {
  readonly codeTtlMs: number;

  constructor(
    private readonly clients: ClientDirectory,
    private readonly slots: SlotService,
    private readonly codes: BackendCodeStore,
    options: { codeTtlMs?: number } = {},
  ) {
    this.codeTtlMs = options.codeTtlMs ?? 120_000;
  }

  async authorize(request: BackendAuthorizeRequest): Promise<BackendAuthorizeOutcome> {
    // The usual case (every login after the first): the app from the client cache and the user's slot
    // already there. The code's insert re-checks the held row (live, same redirect URIs), so a change made
    // on another replica a moment ago never gets a code; anything else is decided on the stored row.
    const cached = await this.clients.findClientCached(request.clientId);
    if (
      cached.held &&
      cached.client &&
      this.clients.isRegisteredRedirect(cached.client, request.redirectUri)
    ) {
      const slot = await this.slots.slotAt(cached.client.clientId, request.userUuid, 0);
      if (slot) {
        const issued = await this.#issueCode(request, slot, cached.client.redirectUris);
        if (issued) return { slot, result: 'existing', ...issued };
        await this.clients.forgetCached(request.clientId);
      }
    }
    const client = cached.held ? await this.clients.findClient(request.clientId) : cached.client;
    if (!client || !this.clients.isRegisteredRedirect(client, request.redirectUri)) throw redirectMismatch();
    const { slot, result } = await this.slots.ensureSlot(request.userUuid, client.clientId);
    const issued = await this.#issueCode(request, slot, undefined);
    return { slot, result, ...issued! };
  }

  /**
   * A fresh code for `slot`, stored as its hash; with `heldRedirectUris` (a cached row), only while the
   * stored app is live with exactly those redirect URIs (undefined when it is not: nothing stored).
   */
  async #issueCode(
    request: BackendAuthorizeRequest,
    slot: Slot,
    heldRedirectUris: readonly string[] | undefined,
  ): Promise<Omit<BackendAuthorizeOutcome, 'slot' | 'result'> | undefined> {
    const code = randomBytes(32).toString('base64url');
    const codeHash = hashCode(code);
    const now = Date.now();
    const stored = await this.codes.insert(
      {
        codeHash,
        clientId: request.clientId,
        userUuid: request.userUuid,
        slotId: slot.id,
        redirectUri: request.redirectUri,
        createdAt: now,
        expiresAt: now + this.codeTtlMs,
      },
      heldRedirectUris,
    );
    if (!stored) return undefined;
    return { code, codeHash, redirectUri: request.redirectUri, state: request.state };
  }
}
