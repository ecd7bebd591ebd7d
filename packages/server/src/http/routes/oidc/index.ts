import type { Services } from '../../../composition/index.js';
import type { App } from '../../types.js';
import { oidcDiscoveryRoutes } from './discovery.js';
import { userinfoRoutes } from './userinfo.js';

/**
 * OpenID Connect (docs/oidc.md): discovery and userinfo. RP-initiated logout (`endSession.ts`) sets cookies,
 * so app.ts registers it with the cookie pages.
 */
export async function oidcRoutes(app: App, services: Services): Promise<void> {
  await oidcDiscoveryRoutes(app, services);
  await userinfoRoutes(app, services);
}
