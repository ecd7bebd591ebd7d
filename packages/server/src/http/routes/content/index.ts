import type { Services } from '../../../composition/index.js';
import type { App } from '../../types.js';
import { balanceAdexRoutes } from './balanceAdex.js';
import { consumeAuthRoutes } from './consumeAuth.js';
import { increaseUsedContentTokenRoutes } from './increaseUsedContentToken.js';
import { initPermissionProviderRoutes } from './initPermissionProvider.js';
import { payloadModeRoutes } from './payloadMode.js';
import { releaseUsedBalanceRoutes } from './releaseUsedBalance.js';
import { testEncryptionRoutes } from './testEncryption.js';
import { userBuyContentTokenRoutes } from './userBuyContentToken.js';

/**
 * Content tokens (spec endpoint group 14, decisions §6). Provider registration, settlement, the payload
 * setting and `test_encryption` take the client owner's login JWT; the purchase takes the slot owner's
 * bearer token and the PIN trio; consumption is authenticated by its encrypted payload; the balance query
 * is public.
 */
export async function contentTokenRoutes(app: App, services: Services): Promise<void> {
  await initPermissionProviderRoutes(app, services);
  await userBuyContentTokenRoutes(app, services);
  await increaseUsedContentTokenRoutes(app, services);
  await balanceAdexRoutes(app, services);
  await releaseUsedBalanceRoutes(app, services);
  await testEncryptionRoutes(app, services);
  await payloadModeRoutes(app, services);
  await consumeAuthRoutes(app, services);
}
