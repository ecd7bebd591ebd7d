import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { SponsorshipPolicy } from '../chain/operations/sponsorshipPolicy.js';
import type { Db } from '../db/database.js';
import type { ServiceMetrics } from '../observability/metrics.js';
import { AppActivityService } from '../services/activity/appActivityService.js';
import type { ProviderDirectory } from '../services/content/providerDirectory.js';
import type { AppAccess } from '../services/orgs/appAccess.js';
import { SponsorshipReport } from '../services/sponsorship/sponsorshipReport.js';
import { ApprovalHook } from '../services/sponsorship/approvalHook.js';
import { AppSponsorshipService } from '../services/sponsorship/appSponsorshipService.js';
import type { AuditTrail } from '../services/audit/auditTrail.js';
import type { CallbackTargetPolicy } from '../services/oauth/callbackTargetPolicy.js';
import type { SecretBox } from '../crypto/secretBox.js';
import { userActor } from '../services/orgs/roles.js';
import { AppSponsorshipStore } from '../stores/appSponsorshipStore.js';
import { GuestStore } from '../stores/guestStore.js';
import { derivedMessageId, type WebhookOutbox } from '../stores/webhookStore.js';
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
  /** Per-app sponsorship policies and their approval hooks (docs/sponsorship.md). */
  appSponsorship: AppSponsorshipService;
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
  secretBox: SecretBox;
  callbackTargets: CallbackTargetPolicy;
  audit: AuditTrail;
  outbox: WebhookOutbox;
}): SponsorshipDomain {
  const { config, chain, wallets, users, providers } = deps;
  const sponsorship = new SponsorshipStore(deps.db);
  const appSponsorship = createAppSponsorship(deps, sponsorship);
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
      appSponsorship,
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
  return { sponsorship, sponsorshipReport, appActivity, appSponsorship };
}

/**
 * The per-app policies (decisions §9): who may set them (the org's `developer` role; viewers read), the approval hook's decisions in metrics and the audit log, and the
 * `sponsorship.exhausted` webhook at the first refusal of a day (its id derived from app and day, so
 * replicas racing on it write one delivery).
 */
function createAppSponsorship(
  deps: Parameters<typeof createSponsorshipDomain>[0],
  spend: SponsorshipStore,
): AppSponsorshipService {
  const hook = new ApprovalHook(deps.secretBox, deps.callbackTargets);
  const guests = new GuestStore(deps.db);
  const { metrics, audit, outbox, db } = deps;
  return new AppSponsorshipService(
    new AppSponsorshipStore(db),
    spend,
    {
      // The org's roles (docs/orgs.md): viewers read the policy, developers set it.
      mayManage: async (userUuid, clientId, action) => {
        await deps.appAccess.require(clientId, userActor(userUuid), action);
      },
    },
    deps.secretBox,
    deps.callbackTargets,
    hook,
    deps.config.sponsorship.appDailyGas,
    { isGuest: async (userUuid) => (await guests.find(userUuid)) !== undefined },
    {
      decided: (request, decision) => {
        metrics.count('dauth_sponsorship_approvals_total', 'Approval hook decisions by outcome', {
          outcome: decision.outcome,
          approved: String(decision.approved),
        });
        metrics.observeSeconds(
          'dauth_sponsorship_approval_seconds',
          'Approval hook latency (request to decision), by outcome',
          decision.seconds,
          { outcome: decision.outcome },
        );
        void audit.record({
          action: 'sponsorship.approval',
          outcome: decision.approved ? 'success' : 'denied',
          status: decision.approved ? 200 : 403,
          errorCode: decision.approved ? undefined : 'sponsorship_not_approved',
          actorKind: 'app',
          actorUser: String(request.userUuid),
          clientId: request.clientId,
          address: '',
          requestId: '',
          details: {
            outcome: decision.outcome,
            approved: decision.approved,
            latency_ms: Math.round(decision.seconds * 1000),
            gas: request.gas,
          },
        });
      },
      refused: async (clientId, budget, { day, firstOfDay }) => {
        metrics.count('dauth_app_sponsorship_refusals_total', "Operations refused by an app's own budgets", {
          budget,
        });
        if (!firstOfDay) return;
        const at = Date.now();
        await outbox.record(db, {
          type: 'sponsorship.exhausted',
          clientId,
          at,
          msgId: derivedMessageId(at, `sponsorship.exhausted:${clientId}:${day}`),
          data: { budget, day },
        });
      },
    },
  );
}
