import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { SponsorshipPolicy } from '../chain/operations/sponsorshipPolicy.js';
import type { Db } from '../db/database.js';
import type { ServiceMetrics } from '../observability/metrics.js';
import { AppActivityService } from '../services/activity/appActivityService.js';
import type { ProviderDirectory } from '../services/content/providerDirectory.js';
import type { AppAccess } from '../services/orgs/appAccess.js';
import { SponsorshipReport } from '../services/sponsorship/sponsorshipReport.js';
import { AppActivityStore } from '../stores/appActivityStore.js';
import type { SessionKeyStore } from '../stores/sessionKeyStore.js';
import { SlotStore } from '../stores/slotStore.js';
import { SponsorshipStore } from '../stores/sponsorshipStore.js';
import type { UserStore } from '../stores/userStore.js';
import type { WalletStore } from '../stores/walletStore.js';
import type { ChainServices } from './chain.js';
import type { Services } from './index.js';
import { sponsorshipObserver } from './observability.js';

export interface SponsorshipDomain {
  /** Sponsored gas per day, user and app: the store the policy charges. */
  sponsorship: SponsorshipStore;
  sponsorshipReport: SponsorshipReport;
  /** An app owner's activity per day, for the console's charts (against the app's daily gas). */
  appActivity: AppActivityService;
}

/**
 * Gas sponsorship (decisions §7, docs/security.md): the policy the operation pipeline checks before
 * anything is signed, charged to the wallet's user (or its session account's), the slot's or the cuid's
 * app; the spend report, whose platform-wide cap makes `/readyz` degraded; and the console's charts, read-only
 * over what the domains record.
 */
export function createSponsorshipDomain(deps: {
  config: Pick<Config, 'sponsorship'>;
  db: Db;
  logger: Logger;
  metrics: ServiceMetrics;
  chain: Pick<ChainServices, 'operations' | 'info' | 'operator'>;
  wallets: WalletStore;
  sessionAccounts: SessionKeyStore;
  users: UserStore;
  providers: Pick<ProviderDirectory, 'registered'>;
  appAccess: AppAccess;
  /** Where the spend's check is added. */
  readinessProbes: Services['readinessProbes'];
}): SponsorshipDomain {
  const { config, chain, wallets, users, providers } = deps;
  const sponsorship = new SponsorshipStore(deps.db);
  const slotRecords = new SlotStore(deps.db);
  chain.operations.usePolicy(
    new SponsorshipPolicy(
      config.sponsorship,
      chain.info.contracts,
      chain.operator.address,
      {
        // A wallet's session account (docs/session-keys.md) sends its operations: charged to the wallet's user.
        userOfWallet: async (address) =>
          (await wallets.findByAddress(address))?.userUuid ??
          (await deps.sessionAccounts.findAccountByAddress(address))?.userUuid,
        userVerified: (userUuid) => users.emailVerified(userUuid),
        appOfSlot: async (slotId) => (await slotRecords.findById(slotId.toString()))?.clientId,
        appOfCuid: async (cuid) => (await providers.registered(cuid))?.clientId,
      },
      sponsorship,
      Date.now,
      sponsorshipObserver(deps.metrics, deps.logger, config.sponsorship.platformDailyGas),
    ),
  );
  const sponsorshipReport = new SponsorshipReport(sponsorship, config.sponsorship.platformDailyGas);
  // The console's charts: read-only over what the domains record.
  const appActivity = new AppActivityService(
    new AppActivityStore(deps.db),
    deps.appAccess,
    config.sponsorship.appDailyGas,
  );
  // Past the platform-wide cap sponsored writes fail for everyone: degraded, like low funds.
  deps.readinessProbes.sponsorship = () => sponsorshipReport.readiness();
  return { sponsorship, sponsorshipReport, appActivity };
}
