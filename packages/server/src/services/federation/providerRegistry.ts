import { OAuth2Provider, type OAuth2Settings } from './oauth2Provider.js';
import { OidcProvider } from './oidcProvider.js';
import { SteamProvider } from './steam/steamProvider.js';
import type { ProviderConfig, ProviderDeps, UpstreamProvider } from './upstreamProvider.js';

/** Identity provider ids: they appear in URLs (`/v1/federation/{id}/…`) and in stored identities. */
export const PROVIDER_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * The configured upstream providers (`IDENTITY_PROVIDERS`, presets already applied by the configuration),
 * one instance per entry. Building one touches no network: an `oidc` provider discovers on first use, so a
 * provider that is down never blocks the start.
 */
export class ProviderRegistry {
  readonly #providers = new Map<string, UpstreamProvider>();

  constructor(configs: readonly (ProviderConfig & OAuth2Settings)[], deps: ProviderDeps) {
    for (const cfg of configs) {
      if (!PROVIDER_ID.test(cfg.id))
        throw new Error(`identity provider id "${cfg.id}" is not [a-z0-9_-]{1,64}`);
      if (this.#providers.has(cfg.id)) throw new Error(`identity provider id "${cfg.id}" is listed twice`);
      this.#providers.set(cfg.id, buildProvider(cfg, deps));
    }
  }

  find(id: string): UpstreamProvider | undefined {
    return this.#providers.get(id);
  }

  list(): UpstreamProvider[] {
    return [...this.#providers.values()];
  }
}

export function buildProvider(cfg: ProviderConfig & OAuth2Settings, deps: ProviderDeps): UpstreamProvider {
  switch (cfg.kind) {
    case 'oidc':
      return new OidcProvider(cfg, deps);
    case 'oauth2':
      return new OAuth2Provider(cfg, deps);
    case 'steam':
      return new SteamProvider(cfg, deps);
  }
}
