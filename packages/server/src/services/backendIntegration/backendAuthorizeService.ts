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
    const client = await this.clients.findClient(request.clientId);
    if (!client || !this.clients.isRegisteredRedirect(client, request.redirectUri)) throw redirectMismatch();
    const { slot, result } = await this.slots.ensureSlot(request.userUuid, client.clientId);
    const code = randomBytes(32).toString('base64url');
    const codeHash = hashCode(code);
    const now = Date.now();
    await this.codes.insert({
      codeHash,
      clientId: client.clientId,
      userUuid: request.userUuid,
      slotId: slot.id,
      redirectUri: request.redirectUri,
      createdAt: now,
      expiresAt: now + this.codeTtlMs,
    });
    return { slot, result, code, codeHash, redirectUri: request.redirectUri, state: request.state };
  }
}
