import type { ProviderDeps, UpstreamIdentity } from '../upstreamProvider.js';

/**
 * Platform sign-in inside the game (decisions §9, docs/federation.md "Platform sign-in"): a game hands
 * dauth the credential its platform gave it in the game, and the platform kind checks it exactly as the
 * platform documents. No browser is involved, so these kinds have no "Continue with …" button.
 *   - `steam_ticket`       a Steam Web API session ticket (`GetAuthTicketForWebApi`), checked at
 *                          `ISteamUserAuth/AuthenticateUserTicket/v1` with the publisher key;
 *   - `epic`               an Epic Online Services ID token (a JWT through the EOS JWKS);
 *   - `game_center`        Apple's identity-verification signature (a certificate chained to the trust
 *                          anchor, the signature over team_player_id ‖ bundle_id ‖ timestamp ‖ salt);
 *   - `google_play_games`  a server auth code, exchanged at Google's token endpoint for the player id.
 * A platform kind never creates or links accounts and never sees dauth's users.
 */
export type PlatformKind = 'steam_ticket' | 'epic' | 'game_center' | 'google_play_games';

export const PLATFORM_KINDS: readonly PlatformKind[] = [
  'steam_ticket',
  'epic',
  'game_center',
  'google_play_games',
];

/** The platforms' names, for the console and the errors. */
export const PLATFORM_NAMES: Record<PlatformKind, string> = {
  steam_ticket: 'Steam',
  epic: 'Epic Games',
  game_center: 'Game Center',
  google_play_games: 'Google Play Games',
};

/**
 * The value every Steam identity is stored under, whichever entry (the `steam` OpenID kind on the web, a
 * `steam_ticket` kind in the game) proved it: a SteamID64 is one Steam account everywhere, so a player
 * linked on the web is the same account in the game (decisions §9).
 */
export const STEAM_IDENTITY_KEY = 'steam';

/** `credential` of `POST /v1/dev-user/platform-login`, by kind (decisions §9). */
export type PlatformCredential = Record<string, unknown>;

export interface PlatformProvider {
  readonly id: string;
  readonly kind: PlatformKind;
  readonly name: string;
  /** The provider column of the identities it proves (STEAM_IDENTITY_KEY for Steam, else its id). */
  readonly identityKey: string;
  /**
   * Checks a credential with the platform. Throws PlatformRejected (401 `platform_rejected`),
   * PlatformBanned (403 `platform_banned`) or UpstreamUnavailable (503).
   */
  verify(credential: PlatformCredential): Promise<UpstreamIdentity>;
}

/** The platform (or its signature) refused the credential; `reason` is for logs and tests only. */
export class PlatformRejected extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'PlatformRejected';
  }
}

/** The platform vouches for the player but bans them (Steam: publisher or VAC ban). */
export class PlatformBanned extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'PlatformBanned';
  }
}

export type PlatformDeps = ProviderDeps;

/** A string field of a credential, or a refusal naming it. */
export function credentialString(credential: PlatformCredential, field: string, maxLength: number): string {
  const value = credential[field];
  if (typeof value !== 'string' || value.length === 0 || value.length > maxLength) {
    throw new PlatformRejected('malformed_credential', `credential.${field} is missing or malformed`);
  }
  return value;
}

/** A bounded JSON body, or undefined when it is not JSON (the caller decides what that means). */
export async function platformJson(response: Response, limitBytes = 64 * 1024): Promise<unknown> {
  const text = await boundedText(response, limitBytes);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The body as text, refusing more than `limitBytes` (an upstream cannot make us buffer without end). */
export async function boundedText(response: Response, limitBytes: number): Promise<string> {
  return new TextDecoder().decode(await boundedBytes(response, limitBytes));
}

export async function boundedBytes(response: Response, limitBytes: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > limitBytes) throw new RangeError(`the answer is larger than ${limitBytes} bytes`);
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limitBytes) {
      await reader.cancel();
      throw new RangeError(`the answer is larger than ${limitBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
