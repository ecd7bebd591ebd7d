import type { Services } from '../../../composition/index.js';
import type { App } from '../../types.js';
import { oidcDiscoveryRoutes } from './discovery.js';
import { endSessionRoutes } from './endSession.js';
import { userinfoRoutes } from './userinfo.js';

/** OpenID Connect (docs/oidc.md): discovery, userinfo and RP-initiated logout. */
export async function oidcRoutes(app: App, services: Services): Promise<void> {
  await oidcDiscoveryRoutes(app, services);
  await userinfoRoutes(app, services);
  // A scope of its own: it sets cookies (useCookies), and discovery and userinfo need no cookie hook.
  await app.register(async (scope) => endSessionRoutes(scope as App, services));
}
