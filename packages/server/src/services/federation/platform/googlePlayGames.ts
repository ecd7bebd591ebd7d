import type { ProviderConfig, UpstreamIdentity } from '../upstreamProvider.js';
import { UpstreamUnavailable } from '../upstreamProvider.js';
import {
  type PlatformCredential,
  type PlatformDeps,
  type PlatformProvider,
  PlatformRejected,
  credentialString,
  platformJson,
} from './platformProvider.js';

export const GOOGLE_TOKEN_ENDPOINT = 'https://oauth2.googleapis.com/token';
export const PLAY_GAMES_API_URL = 'https://games.googleapis.com';
const TIMEOUT_MS = 10_000;
const PLAYER_ID = /^[A-Za-z0-9_.:-]{1,255}$/;

/**
 * The `google_play_games` kind: the game asks Play Games Services for a server auth code
 * (`PlayGames.requestServerSideAccess`) and sends it; dauth exchanges it at Google's token endpoint
 * (`token_endpoint`, `grant_type=authorization_code` with the entry's web `client_id` and
 * `client_secret`, an empty `redirect_uri` as Google wants for codes made on a device), then reads the
 * player from the Play Games API: `GET {api_base_url}/games/v1/players/me` with that access token. The
 * subject is its `playerId`; `displayName` becomes the nickname of a new account. A code is single-use at
 * Google (an `invalid_grant` answer is a refusal). Google says nothing of when the player proved a
 * credential, so the sign-in is not fresh (docs/federation.md "Authentication time").
 */
export class GooglePlayGamesProvider implements PlatformProvider {
  readonly id: string;
  readonly kind = 'google_play_games' as const;
  readonly name: string;
  readonly identityKey: string;
  readonly #clientId: string;
  readonly #clientSecret: string;
  readonly #tokenEndpoint: string;
  readonly #apiBase: string;

  constructor(
    cfg: ProviderConfig,
    private readonly deps: PlatformDeps,
  ) {
    this.id = cfg.id;
    this.name = cfg.name;
    this.identityKey = cfg.id;
    if (!cfg.client_id || !cfg.client_secret)
      throw new Error(`identity provider ${cfg.id}: client_id and client_secret are required`);
    this.#clientId = cfg.client_id;
    this.#clientSecret = cfg.client_secret;
    this.#tokenEndpoint = cfg.token_endpoint ?? GOOGLE_TOKEN_ENDPOINT;
    this.#apiBase = (cfg.api_base_url ?? PLAY_GAMES_API_URL).replace(/\/+$/, '');
    new URL(this.#tokenEndpoint);
    new URL(this.#apiBase);
  }

  async verify(credential: PlatformCredential): Promise<UpstreamIdentity> {
    const code = credentialString(credential, 'server_auth_code', 2048);
    const token = await this.#exchange(code);
    const player = await this.#player(token);
    return {
      subject: player.playerId,
      email: null,
      emailVerified: false,
      displayName: player.displayName,
    };
  }

  async #exchange(code: string): Promise<string> {
    const body = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      client_id: this.#clientId,
      client_secret: this.#clientSecret,
      redirect_uri: '',
    });
    let response: Response;
    try {
      response = await this.deps.fetch(this.#tokenEndpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body,
        redirect: 'error',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw new UpstreamUnavailable(`${this.id}: Google's token endpoint cannot be reached`, { cause: err });
    }
    const answer = (await platformJson(response).catch(() => undefined)) as
      { access_token?: unknown; error?: unknown } | undefined;
    if (response.status === 400 || response.status === 401) {
      // invalid_grant: an unknown, used or expired code; invalid_client: dauth's own settings.
      if (answer?.error === 'invalid_client' || answer?.error === 'unauthorized_client')
        throw new UpstreamUnavailable(`${this.id}: Google refused the client (${String(answer.error)})`);
      throw new PlatformRejected(
        typeof answer?.error === 'string' ? answer.error.slice(0, 64) : 'code_refused',
        'Google refused the server auth code',
      );
    }
    if (!response.ok || typeof answer?.access_token !== 'string' || answer.access_token === '')
      throw new UpstreamUnavailable(`${this.id}: Google's token endpoint answered ${response.status}`);
    return answer.access_token;
  }

  async #player(accessToken: string): Promise<{ playerId: string; displayName: string | null }> {
    let response: Response;
    try {
      response = await this.deps.fetch(`${this.#apiBase}/games/v1/players/me`, {
        headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw new UpstreamUnavailable(`${this.id}: the Play Games API cannot be reached`, { cause: err });
    }
    if (response.status === 401 || response.status === 403)
      throw new PlatformRejected('player_refused', 'The Play Games API refused the access');
    const player = (await platformJson(response).catch(() => undefined)) as
      { playerId?: unknown; displayName?: unknown } | undefined;
    if (!response.ok || typeof player?.playerId !== 'string' || !PLAYER_ID.test(player.playerId))
      throw new UpstreamUnavailable(`${this.id}: the Play Games API answered no player`);
    return {
      playerId: player.playerId,
      displayName: typeof player.displayName === 'string' ? player.displayName.slice(0, 100) : null,
    };
  }
}
