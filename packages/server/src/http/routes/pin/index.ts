import type { Services } from '../../../composition/index.js';
import type { App } from '../../types.js';
import { pinRecoverRoutes } from './recover.js';
import { pinRegisterRoutes } from './register.js';
import { pinResetRoutes } from './reset.js';
import { pinVerifyRoutes } from './verify.js';

/** Spec endpoints 9–12: PIN registration, verification, reset and recovery (`/v1/pin/*`). */
export async function pinRoutes(app: App, services: Services): Promise<void> {
  await pinRegisterRoutes(app, services);
  await pinVerifyRoutes(app, services);
  await pinResetRoutes(app, services);
  await pinRecoverRoutes(app, services);
}
