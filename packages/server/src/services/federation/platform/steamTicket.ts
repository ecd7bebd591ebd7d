import { createHash } from 'node:crypto';
import type { ProviderConfig, UpstreamIdentity } from '../upstreamProvider.js';
import { UpstreamUnavailable } from '../upstreamProvider.js';
import {
  type PlatformCredential,
  type PlatformDeps,
  type PlatformProvider,
  PlatformBanned,
  PlatformRejected,
  STEAM_IDENTITY_KEY,
  credentialString,
  platformJson,
} from './platformProvider.js';

/** The Steamworks partner Web API: the publisher key's calls (AuthenticateUserTicket) live here. */
export const STEAM_PARTNER_API_URL = 'https://partner.steam-api.com';
const TIMEOUT_MS = 10_000;
/** A ticket of GetAuthTicketForWebApi is a few hundred bytes: 2 hex digits a byte. */
const TICKET = /^[0-9a-fA-F]{16,4096}$/;
const STEAM_ID64 = /^\d{17}$/;
/** A ticket is accepted once; Steam keeps a web API ticket valid until the game cancels it. */
const TICKET_MARKER_TTL_MS = 24 * 3_600_000;

/**
 * The `steam_ticket` kind: a Steam session ticket for the Web API (`ISteamUser::GetAuthTicketForWebApi`
 * with the entry's `identity` string) checked with the publisher Web API key at
 * `GET {api_base_url}/ISteamUserAuth/AuthenticateUserTicket/v1/?key&appid&ticket&identity`
 * (partner.steam-api.com). Steam answers `{response: {params: {result: "OK", steamid, ownersteamid,
 * vacbanned, publisherbanned}}}` or `{response: {error: {errorcode, errordesc}}}`:
 *   - an error (a ticket for another app id or identity, expired or cancelled) → PlatformRejected;
 *   - `publisherbanned` → PlatformBanned; `vacbanned` too unless the entry sets `allow_vac_banned`;
 *   - family sharing (`ownersteamid` ≠ `steamid`): the player is `steamid`, who signs in as themselves
 *     (the owner lends the game, not the account); a banned owner still refuses through Steam's flags.
 * The subject is the SteamID64, stored under the provider key `steam`, the same as the `steam` OpenID kind.
 * Each ticket is accepted once (its hash is claimed), so a relayed ticket signs no one in twice.
 */
export class SteamTicketProvider implements PlatformProvider {
  readonly id: string;
  readonly kind = 'steam_ticket' as const;
  readonly name: string;
  readonly identityKey = STEAM_IDENTITY_KEY;
  readonly #appId: string;
  readonly #key: string;
  readonly #identity: string;
  readonly #base: string;
  readonly #allowVacBanned: boolean;

  constructor(
    cfg: ProviderConfig,
    private readonly deps: PlatformDeps,
  ) {
    this.id = cfg.id;
    this.name = cfg.name;
    if (!cfg.app_id || !cfg.web_api_key || !cfg.identity)
      throw new Error(`identity provider ${cfg.id}: app_id, web_api_key and identity are required`);
    this.#appId = cfg.app_id;
    this.#key = cfg.web_api_key;
    this.#identity = cfg.identity;
    this.#base = (cfg.api_base_url ?? STEAM_PARTNER_API_URL).replace(/\/+$/, '');
    this.#allowVacBanned = cfg.allow_vac_banned === true;
    new URL(this.#base);
  }

  async verify(credential: PlatformCredential): Promise<UpstreamIdentity> {
    const ticket = credentialString(credential, 'ticket', 4096);
    if (!TICKET.test(ticket) || ticket.length % 2 !== 0)
      throw new PlatformRejected('malformed_ticket', 'credential.ticket must be the ticket in hex');
    const url = new URL(`${this.#base}/ISteamUserAuth/AuthenticateUserTicket/v1/`);
    url.searchParams.set('key', this.#key);
    url.searchParams.set('appid', this.#appId);
    url.searchParams.set('ticket', ticket);
    url.searchParams.set('identity', this.#identity);
    let response: Response;
    try {
      response = await this.deps.fetch(url, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw new UpstreamUnavailable(`${this.id}: the Steam Web API cannot be reached`, { cause: err });
    }
    // 403: the publisher key is wrong or not allowed for this app — the operator's problem, not the player's.
    if (response.status === 401 || response.status === 403 || response.status >= 500)
      throw new UpstreamUnavailable(`${this.id}: the Steam Web API answered ${response.status}`);
    const body = (await platformJson(response).catch(() => undefined)) as SteamAnswer | undefined;
    const answer = body?.response;
    if (answer?.error) {
      throw new PlatformRejected(
        `steam_error_${Number(answer.error.errorcode) || 0}`,
        `Steam refused the ticket: ${String(answer.error.errordesc ?? 'error')}`,
      );
    }
    const params = answer?.params;
    if (!params) throw new UpstreamUnavailable(`${this.id}: the Steam Web API answered no params`);
    if (params.result !== 'OK' || typeof params.steamid !== 'string' || !STEAM_ID64.test(params.steamid))
      throw new PlatformRejected('not_ok', 'Steam did not confirm the ticket');
    if (params.publisherbanned === true)
      throw new PlatformBanned('publisher_banned', 'This Steam account is banned by the publisher');
    if (params.vacbanned === true && !this.#allowVacBanned)
      throw new PlatformBanned('vac_banned', 'This Steam account is VAC-banned');
    const marker = `steam_ticket:${this.#appId}:${createHash('sha256').update(ticket.toLowerCase()).digest('hex')}`;
    if (!(await this.deps.claimOnce(marker, TICKET_MARKER_TTL_MS)))
      throw new PlatformRejected('replayed', 'This ticket was already used');
    return { subject: params.steamid, email: null, emailVerified: false, displayName: null };
  }
}

interface SteamAnswer {
  response?: {
    params?: {
      result?: unknown;
      steamid?: unknown;
      ownersteamid?: unknown;
      vacbanned?: unknown;
      publisherbanned?: unknown;
    };
    error?: { errorcode?: unknown; errordesc?: unknown };
  };
}
