import {
  type BrowserFlow,
  type ProviderConfig,
  type ProviderDeps,
  type UpstreamIdentity,
  type UpstreamProvider,
  UpstreamRejected,
  UpstreamUnavailable,
} from '../upstreamProvider.js';
import {
  OPENID_NS,
  parseKeyValueForm,
  parseResponseNonceTime,
  REQUIRED_SIGNED_FIELDS,
  returnToFor,
} from './openId2.js';

/** Steam's OpenID 2.0 OP endpoint: the only one whose assertions about Steam ids are believed. */
export const STEAM_OP_ENDPOINT = 'https://steamcommunity.com/openid/login';
export const STEAM_WEB_API_URL = 'https://api.steampowered.com';
const IDENTIFIER_SELECT = 'http://specs.openid.net/auth/2.0/identifier_select';
/** Steam's claimed identifier: its own prefix and a 64-bit Steam id (17 digits). */
const STEAM_CLAIMED_ID = /^https:\/\/steamcommunity\.com\/openid\/id\/(\d{17})$/;
/** A response nonce older (or further ahead) than this is refused as stale. */
export const NONCE_MAX_AGE_MS = 5 * 60_000;
/** Markers outlive the window in which a nonce is accepted at all, so none is accepted twice. */
const NONCE_MARKER_TTL_MS = 2 * NONCE_MAX_AGE_MS + 60_000;
const VERIFY_TIMEOUT_MS = 10_000;
const WEB_API_TIMEOUT_MS = 5_000;

/**
 * The `steam` kind: Steam's OpenID 2.0 (https://openid.net/specs/openid-authentication-2_0.html), not
 * OpenID Connect. The browser is sent to Steam with `checkid_setup`; Steam redirects back to the callback
 * with a positive assertion (`id_res`), which is believed only when all of these hold:
 *   - it names the configured OP endpoint (`openid.op_endpoint`): an assertion from another OP (whose
 *     `check_authentication` would happily say `is_valid:true`) is refused without ever calling it;
 *   - its `return_to` is the one this flow sent (the callback URL with this flow's `state`);
 *   - the signature covers op_endpoint, claimed_id, identity, return_to, response_nonce and assoc_handle;
 *   - the claimed id is Steam's `https://steamcommunity.com/openid/id/<steamid64>` (Steam's OP is the
 *     only one authoritative for it, so this stands in for the spec's discovery of the claimed id, §11.2);
 *   - the response nonce is at most 5 minutes old and has not been seen before (`deps.claimOnce`);
 *   - direct verification (§11.4.2): the same fields with `openid.mode=check_authentication`, POSTed to
 *     the configured endpoint, answered `is_valid:true`.
 * The subject is the Steam id. With a Web API key the display name is the player's persona name
 * (`ISteamUser/GetPlayerSummaries/v2`); that call failing never fails the sign-in. Steam shares no e-mail.
 */
export class SteamProvider implements UpstreamProvider {
  readonly id: string;
  readonly kind = 'steam' as const;
  readonly name: string;
  private readonly opEndpoint: string;
  private readonly webApiKey: string | undefined;
  private readonly webApiUrl: string;

  constructor(
    cfg: ProviderConfig,
    private readonly deps: ProviderDeps,
  ) {
    this.id = cfg.id;
    this.name = cfg.name;
    this.opEndpoint = cfg.op_endpoint ?? STEAM_OP_ENDPOINT;
    this.webApiKey = cfg.web_api_key === '' ? undefined : cfg.web_api_key;
    this.webApiUrl = (cfg.web_api_url ?? STEAM_WEB_API_URL).replace(/\/+$/, '');
    // Fails at construction (the start), not at the first sign-in.
    new URL(this.opEndpoint);
    new URL(this.webApiUrl);
  }

  authorizationUrl(flow: BrowserFlow): Promise<URL> {
    const returnTo = returnToFor(flow);
    const url = new URL(this.opEndpoint);
    url.searchParams.set('openid.ns', OPENID_NS);
    url.searchParams.set('openid.mode', 'checkid_setup');
    url.searchParams.set('openid.claimed_id', IDENTIFIER_SELECT);
    url.searchParams.set('openid.identity', IDENTIFIER_SELECT);
    url.searchParams.set('openid.return_to', returnTo);
    url.searchParams.set('openid.realm', new URL(flow.callbackUrl).origin);
    return Promise.resolve(url);
  }

  async completeBrowserFlow(callback: URLSearchParams, flow: BrowserFlow): Promise<UpstreamIdentity> {
    const fields = openIdFields(callback);
    const field = (name: string): string | undefined => fields.get(`openid.${name}`);

    if (field('ns') !== OPENID_NS) throw new UpstreamRejected('not_openid2', 'The answer is not OpenID 2.0.');
    const mode = field('mode');
    if (mode === 'cancel') throw new UpstreamRejected('cancelled', 'The sign-in was cancelled at Steam.');
    if (mode !== 'id_res')
      throw new UpstreamRejected('not_positive_assertion', 'Steam did not confirm a sign-in.');
    // Before anything else, and never relaxed: only the configured OP's word counts.
    if (field('op_endpoint') !== this.opEndpoint) {
      throw new UpstreamRejected('wrong_op_endpoint', 'The assertion comes from another OpenID provider.');
    }
    if (field('return_to') !== returnToFor(flow)) {
      throw new UpstreamRejected('return_to_mismatch', 'The assertion was not made for this sign-in.');
    }
    const signed = new Set((field('signed') ?? '').split(','));
    const unsigned = REQUIRED_SIGNED_FIELDS.filter((name) => !signed.has(name));
    if (unsigned.length > 0 || !field('sig') || !field('assoc_handle')) {
      throw new UpstreamRejected(
        'unsigned_fields',
        `The assertion does not sign ${unsigned.join(', ') || 'itself'}.`,
      );
    }
    const claimedId = field('claimed_id') ?? '';
    const steamId = STEAM_CLAIMED_ID.exec(claimedId)?.[1];
    if (steamId === undefined || field('identity') !== claimedId) {
      throw new UpstreamRejected('not_a_steam_id', 'The assertion does not name a Steam account.');
    }
    const nonce = field('response_nonce') ?? '';
    const issuedAt = parseResponseNonceTime(nonce);
    if (issuedAt === undefined || nonce.length > 255) {
      throw new UpstreamRejected('bad_nonce', 'The assertion carries no valid response nonce.');
    }
    if (Math.abs(this.deps.now() - issuedAt) > NONCE_MAX_AGE_MS) {
      throw new UpstreamRejected('stale_nonce', 'The assertion is too old.');
    }
    if (!(await this.deps.claimOnce(`openid2:${this.opEndpoint}:${nonce}`, NONCE_MARKER_TTL_MS))) {
      throw new UpstreamRejected('replayed_nonce', 'The assertion was already used.');
    }
    await this.verifyDirectly(fields);
    return {
      subject: steamId,
      email: null,
      emailVerified: false,
      displayName: await this.personaName(steamId),
    };
  }

  /** §11.4.2: the OP itself checks the signature; its answer must be `is_valid:true`. */
  private async verifyDirectly(fields: Map<string, string>): Promise<void> {
    const body = new URLSearchParams();
    for (const [name, value] of fields) body.set(name, value);
    body.set('openid.mode', 'check_authentication');
    let response: Response;
    let text: string;
    try {
      response = await this.deps.fetch(this.opEndpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/plain' },
        body: body.toString(),
        redirect: 'error',
        signal: AbortSignal.timeout(VERIFY_TIMEOUT_MS),
      });
      text = await response.text();
    } catch (err) {
      throw new UpstreamUnavailable('Steam could not be reached to verify the sign-in.', { cause: err });
    }
    if (response.status >= 500) {
      throw new UpstreamUnavailable(`Steam answered ${response.status} to the verification.`);
    }
    const answer = parseKeyValueForm(text);
    if (response.status !== 200 || answer.get('ns') !== OPENID_NS) {
      throw new UpstreamRejected('verification_error', 'Steam refused to verify the sign-in.');
    }
    if (answer.get('is_valid') !== 'true') {
      throw new UpstreamRejected('invalid_signature', 'Steam did not confirm the assertion.');
    }
  }

  /** The persona name from the Steam Web API, or null (no key, or any failure: it is only a label). */
  private async personaName(steamId: string): Promise<string | null> {
    if (this.webApiKey === undefined) return null;
    const url = new URL(`${this.webApiUrl}/ISteamUser/GetPlayerSummaries/v2/`);
    url.searchParams.set('key', this.webApiKey);
    url.searchParams.set('steamids', steamId);
    try {
      const response = await this.deps.fetch(url, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(WEB_API_TIMEOUT_MS),
      });
      if (!response.ok) return null;
      const body = (await response.json()) as { response?: { players?: unknown } };
      const players = Array.isArray(body.response?.players) ? (body.response.players as unknown[]) : [];
      const player = players.find(
        (p): p is { steamid: string; personaname?: unknown } =>
          typeof p === 'object' && p !== null && (p as { steamid?: unknown }).steamid === steamId,
      );
      const name = typeof player?.personaname === 'string' ? player.personaname.trim() : '';
      return name === '' ? null : name.slice(0, 100);
    } catch {
      return null;
    }
  }
}

/**
 * The callback's `openid.*` fields. A field given twice is refused: the OP might verify one copy while
 * this code reads the other.
 */
function openIdFields(callback: URLSearchParams): Map<string, string> {
  const fields = new Map<string, string>();
  for (const [name, value] of callback) {
    if (!name.startsWith('openid.')) continue;
    if (fields.has(name)) throw new UpstreamRejected('duplicate_field', `The assertion repeats ${name}.`);
    fields.set(name, value);
  }
  return fields;
}
