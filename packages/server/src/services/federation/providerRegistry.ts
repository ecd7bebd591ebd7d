import { OAuth2Provider, type OAuth2Settings } from './oauth2Provider.js';
import { OidcProvider } from './oidcProvider.js';
import { EpicProvider } from './platform/epic.js';
import { GameCenterProvider } from './platform/gameCenter.js';
import { GooglePlayGamesProvider } from './platform/googlePlayGames.js';
import {
  PLATFORM_NAMES,
  type PlatformKind,
  type PlatformProvider,
  STEAM_IDENTITY_KEY,
} from './platform/platformProvider.js';
import { SteamTicketProvider } from './platform/steamTicket.js';
import { SteamProvider } from './steam/steamProvider.js';
import type { ProviderConfig, ProviderDeps, ProviderKind, UpstreamProvider } from './upstreamProvider.js';

/** Identity provider ids: they appear in URLs (`/v1/federation/{id}/…`) and in stored identities. */
export const PROVIDER_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * The configured upstream providers (`IDENTITY_PROVIDERS`, presets already applied by the configuration),
 * one instance per entry: the browser kinds (`find`, `list`: the login page's "Continue with …") and the
 * platform kinds of sign-in inside the game (`findPlatform`). Building one touches no network: an `oidc`
 * provider discovers on first use, so a provider that is down never blocks the start.
 */
export class ProviderRegistry {
  readonly #providers = new Map<string, UpstreamProvider>();
  readonly #platforms = new Map<string, PlatformProvider>();

  constructor(configs: readonly (ProviderConfig & OAuth2Settings)[], deps: ProviderDeps) {
    for (const cfg of configs) {
      if (!PROVIDER_ID.test(cfg.id))
        throw new Error(`identity provider id "${cfg.id}" is not [a-z0-9_-]{1,64}`);
      if (this.#providers.has(cfg.id) || this.#platforms.has(cfg.id))
        throw new Error(`identity provider id "${cfg.id}" is listed twice`);
      if (isPlatformKind(cfg.kind)) this.#platforms.set(cfg.id, buildPlatformProvider(cfg, deps));
      else this.#providers.set(cfg.id, buildProvider(cfg, deps));
    }
  }

  find(id: string): UpstreamProvider | undefined {
    return this.#providers.get(id);
  }

  list(): UpstreamProvider[] {
    return [...this.#providers.values()];
  }

  findPlatform(id: string): PlatformProvider | undefined {
    return this.#platforms.get(id);
  }

  listPlatforms(): PlatformProvider[] {
    return [...this.#platforms.values()];
  }

  /**
   * The provider column of the identities an entry proves: `steam` for every Steam entry (the OpenID kind
   * on the web and the ticket kind in the game prove the same SteamID64), the entry's id otherwise.
   */
  identityKey(id: string): string {
    const platform = this.#platforms.get(id);
    if (platform) return platform.identityKey;
    return this.#providers.get(id)?.kind === 'steam' ? STEAM_IDENTITY_KEY : id;
  }

  /** The name to show for an identity's provider column (a provider may have left the configuration). */
  nameOfIdentityKey(key: string): string {
    if (key === STEAM_IDENTITY_KEY) {
      const steam =
        this.list().find((p) => p.kind === 'steam') ??
        this.listPlatforms().find((p) => p.kind === 'steam_ticket');
      return steam?.name ?? PLATFORM_NAMES.steam_ticket;
    }
    return this.#providers.get(key)?.name ?? this.#platforms.get(key)?.name ?? key;
  }
}

export function isPlatformKind(kind: ProviderKind | PlatformKind): kind is PlatformKind {
  return kind === 'steam_ticket' || kind === 'epic' || kind === 'game_center' || kind === 'google_play_games';
}

export function buildProvider(cfg: ProviderConfig & OAuth2Settings, deps: ProviderDeps): UpstreamProvider {
  switch (cfg.kind) {
    case 'oidc':
      return new OidcProvider(cfg, deps);
    case 'oauth2':
      return new OAuth2Provider(cfg, deps);
    case 'steam':
      return new SteamProvider(cfg, deps);
    default:
      throw new Error(`identity provider ${cfg.id}: ${cfg.kind} is a platform kind`);
  }
}

export function buildPlatformProvider(cfg: ProviderConfig, deps: ProviderDeps): PlatformProvider {
  switch (cfg.kind) {
    case 'steam_ticket':
      return new SteamTicketProvider(cfg, deps);
    case 'epic':
      return new EpicProvider(cfg, deps);
    case 'game_center':
      return new GameCenterProvider(cfg, deps);
    case 'google_play_games':
      return new GooglePlayGamesProvider(cfg, deps);
    default:
      throw new Error(`identity provider ${cfg.id}: ${cfg.kind} is not a platform kind`);
  }
}
