import type { Services } from '../../../composition/index.js';
import { requireAdmin } from '../../adminAuth.js';
import type { App } from '../../types.js';
import { adminAuditRoutes } from './audit.js';
import { adminContentRoutes } from './content.js';
import { adminFaucetRoutes } from './faucet.js';
import { adminFundingRoutes } from './funding.js';
import { adminSlotImportRoutes } from './slots/import.js';
import { adminSponsorshipRoutes } from './sponsorship.js';
import { adminTransferTicketRoutes } from './transferTickets.js';

/**
 * Every `/v1/admin/*` route, behind one guard. The ADMIN_API_KEY check is an `onRequest` hook of this
 * scope: it runs before the body is parsed or validated, so a caller without the key learns nothing
 * about what a valid body looks like (401, never 400), and no admin route can forget the check. Before
 * it, each request counts in its address's `admin` limit, so key guesses are cut off (429).
 */
export async function adminRoutes(app: App, services: Services): Promise<void> {
  app.addHook('onRequest', app.adminRateLimit);
  app.addHook('onRequest', requireAdmin(services.secrets.adminApiKey));
  await adminAuditRoutes(app, services);
  await adminContentRoutes(app, services);
  await adminFaucetRoutes(app, services);
  await adminFundingRoutes(app, services);
  await adminSlotImportRoutes(app, services);
  await adminSponsorshipRoutes(app, services);
  await adminTransferTicketRoutes(app, services);
}
