import type { Redis } from 'ioredis';
import pino, { type Logger } from 'pino';
import type { ChainServices, ChainServicesOptions } from './chain.js';
import { StartupProgress } from './startupProgress.js';
import type { Config } from '../config.js';
import type { SecretBox } from '../crypto/secretBox.js';
import type { DatabaseHandle } from '../db/database.js';
import { loggerOptions } from '../logger.js';
import type { ServiceMetrics } from '../observability/metrics.js';
import type { Tracing } from '../observability/tracing.js';
import type { AuditTrail } from '../services/audit/auditTrail.js';
import type { AppSponsorshipService } from '../services/sponsorship/appSponsorshipService.js';
import type { PlatformSecrets } from '../secrets.js';
import type { AccountService } from '../services/accounts/accountService.js';
import type { GuestService } from '../services/accounts/guestService.js';
import type { PasskeyService } from '../services/passkeys/passkeyService.js';
import type { FederationService } from '../services/federation/federationService.js';
import type { CustodyService } from '../services/custody/custodyService.js';
import type { MarketService } from '../services/market/marketService.js';
import type { BrowserSessionService } from '../services/oauth/browserSessions.js';
import type { ClientService } from '../services/oauth/clientService.js';
import type { OAuthService } from '../services/oauth/oauthService.js';
import type { DeviceAuthorizationService } from '../services/oauth/deviceAuthorizationGrant.js';
import type { RevocationRegistry } from '../services/oauth/revocationRegistry.js';
import type { SlotImportService } from '../services/slots/slotImportService.js';
import type { SlotService } from '../services/slots/slotService.js';
import type { SlotTransferService } from '../services/slots/slotTransferService.js';
import type { LoginStatusService } from '../services/status/loginStatusService.js';
import type { Authenticator } from '../services/tokens/authenticator.js';
import type { TokenService } from '../services/tokens/tokenService.js';
import type { TokenTransferService } from '../services/transfers/tokenTransferService.js';
import type { EmailVerificationService } from '../services/verification/emailVerificationService.js';
import type { AddressVerificationService } from '../services/verification/addressVerificationService.js';
import type { UserStore } from '../stores/userStore.js';
import type { WalletStore } from '../stores/walletStore.js';
import {
  type ContentOptions,
  type ContentServices,
  contentReplicaOf,
  createContentServices,
} from './content.js';
import { createCustodyDomain } from './custody.js';
import { createSessionKeyDomain, createSessionKeyParts } from './sessionKeys.js';
import { createAccountSessionsDomain } from './accountSessions.js';
import type { AccountSessionsService } from '../services/accountSessions/accountSessionsService.js';
import type { MfaService } from '../services/mfa/mfaService.js';
import type { SessionKeyService } from '../services/sessionKeys/sessionKeyService.js';
import type { AccountSecurityService } from '../services/security/accountSecurityService.js';
import { createOAuthDomain } from './oauth.js';
import { type BackendIntegration, createSlotDomain } from './slots.js';

export type { BackendIntegration, ContentServices };
import type { AccountOverviewService } from '../services/accounts/accountOverview.js';
import { createAccountOverview } from './accountOverview.js';
import type { PasswordService } from '../services/accounts/passwordService.js';
import type { ConsentService } from '../services/oauth/consentService.js';
import type { OidcServices } from '../services/oidc/oidcServices.js';
import { createOidcServices } from './oidc.js';
import type { SponsorshipStore } from '../stores/sponsorshipStore.js';
import { registerDomainMetrics } from './observability.js';
import type { FundsWatch } from '../services/funds/fundsWatch.js';
import type { ChainConsistencyCheck } from '../services/chainConsistency/chainConsistencyCheck.js';
import type { ChainInfo } from '../chain/types.js';
import type { PlatformFunding } from '../services/funds/platformFunding.js';
import type { SponsorshipReport } from '../services/sponsorship/sponsorshipReport.js';
import type { WebhookEndpointService } from '../services/webhooks/webhookEndpointService.js';
import type { AppActivityService } from '../services/activity/appActivityService.js';
import { createWebhookDomain } from './webhooks.js';
import { createStudioDomain } from './studio.js';
import type { PlayerDirectoryService } from '../services/players/playerDirectoryService.js';
import type { PregenerationService } from '../services/players/pregenerationService.js';
import type { ServiceAccountService } from '../services/serviceAccounts/serviceAccountService.js';
import { createOrgDomain } from './orgs.js';
import type { OrgService } from '../services/orgs/orgService.js';
import type { AppAccess } from '../services/orgs/appAccess.js';
import { createInfrastructure } from './infrastructure.js';
import { createSponsorshipDomain } from './sponsorship.js';
import { createTokenDomain } from './tokens.js';
import { createAccountCare, createAccountDomain } from './accounts.js';
import { createChainDomain, startChainConsistency } from './chainHealth.js';
import type { AccountLifeService } from '../services/accountLife/accountLifeService.js';
import type { BotChallengeService } from '../services/defense/botChallenge.js';
import type { LoginDefenseService } from '../services/defense/loginDefense.js';
import { createDefenseDomain } from './defense.js';

/**
 * Everything the HTTP layer and the CLI may use, wired once: services, settings and the process's
 * plumbing, never a store or a chain gateway. The composition root (this folder, one file per domain) is
 * the only place that constructs stores, gateways and services, and so the only place that knows which
 * store or gateway implementation backs a service.
 */
export interface Services {
  config: Config;
  logger: Logger;
  secrets: PlatformSecrets;
  secretBox: SecretBox;
  /** Shared state between replicas (rate limits, one-time values) when REDIS_URL is set. */
  redis: Redis | undefined;
  /**
   * Named checks `/readyz` runs; each rejects when its dependency does not answer (a string resolved is a
   * detail; `{ degraded }` keeps the service ready but reports `degraded`, e.g. low funds).
   */
  readinessProbes: Record<string, () => Promise<void | string | { degraded: string }>>;
  /** The paymaster deposit and relayer balance against LOW_FUNDS_* (docs/operations.md). */
  funds: FundsWatch;
  /** Prometheus metrics: request counts and latencies, queue depths and balances read at scrape time. */
  metrics: ServiceMetrics;
  /** OpenTelemetry traces (OTEL_*): whether they are on; the HTTP layer traces requests only then. */
  tracing: Pick<Tracing, 'enabled'>;
  /** The append-only audit trail (docs/operations.md); the HTTP layer records every audited route. */
  audit: AuditTrail;
  tokens: TokenService;
  /** Verifies bearer tokens and checks revocation; routes use it through `http/auth.ts`. */
  authenticator: Authenticator;
  accounts: AccountService;
  /** Guest accounts (docs/players.md): create, sign in with the device secret, upgrade. */
  guests: GuestService;
  /** Passkeys (docs/players.md): registration, discoverable sign-in, list and delete. */
  passkeys: PasskeyService;
  /** Sign in with Google, Apple, Discord, Steam (docs/federation.md): flows, identities, linking. */
  federation: FederationService;
  /** Second factors (docs/mfa.md): TOTP, recovery codes, the sign-in's second step. */
  mfa: MfaService;
  /** The account's sessions and ways in, as its Security page lists them (docs/account.md). */
  accountSessions: AccountSessionsService;
  /** Apps (OAuth clients): `findClient`, `verifyClientSecret`, `isRegisteredRedirect`. */
  clients: ClientService;
  /** Codes, token exchange, refresh rotation, revocation and introspection (docs/oauth.md). */
  oauth: OAuthService;
  /** The device authorization grant (RFC 8628): device codes, user codes, approval (docs/players.md). */
  devices: DeviceAuthorizationService;
  /** The in-memory revocation list every bearer check consults, kept in step across replicas. */
  revocations: RevocationRegistry;
  /** Sessions, CSRF and consent of the service's own login page. */
  browserSessions: BrowserSessionService;
  /** The console's account page: main wallet, slots with content balances, wallet operations. */
  accountOverview: AccountOverviewService;
  /** Password reset by e-mail and password change (docs/accounts.md). */
  passwords: PasswordService;
  /** The apps each user approved: list and revoke (docs/accounts.md). */
  consents: ConsentService;
  /** Login status per user and app (`getStatus`, `setStatus`). */
  loginStatus: LoginStatusService;
  /** OpenID Connect (docs/oidc.md): ID tokens, userinfo, RP-initiated logout. */
  oidc: OidcServices;
  /** Which chain the service uses and where its contracts are (`GET /v1/chain/info`). */
  chainInfo: ChainInfo;
  /** The admin's faucet (chain 31337) and the refill of the paymaster deposit, operator and relayers. */
  funding: PlatformFunding;
  /** Slots (docs/slots.md): created on a user's first backend authorize; `findSlot`, `listForOwner`, … */
  slots: SlotService;
  /** Ticketed slot ownership transfers (`exchange_token_owner`, admin tickets, marketplace). */
  slotTransfers: SlotTransferService;
  /** `dauth slots import`: earlier-issued slots. */
  slotImport: SlotImportService;
  /** Backend integration flow (docs/backend-integration.md): authorize, callbacks, get_token, logout. */
  backend: BackendIntegration;
  /** The marketplace of OAuth rights and slots. */
  market: MarketService;
  /** PIN key custody (docs/pin-custody.md): register, verify, reset, recover, and `operate` for PIN-gated operations. */
  custody: CustodyService;
  /** E-mail codes and single-use verification tokens (`pin_recover`). */
  emailVerification: EmailVerificationService;
  /** The account's own address: the sign-up mail's code and link (docs/accounts.md). */
  addressVerification: AddressVerificationService;
  /** ERC-20 transfers from a user's wallet (`/v1/token/transfer`). */
  transfers: TokenTransferService;
  /** Content tokens (docs/content-tokens.md): providers, purchases, batched consumption, balances, settlement. */
  content: ContentServices;
  /** Sponsored gas per day, user and app (docs/security.md, "Gas sponsorship policy"). */
  sponsorshipReport: SponsorshipReport;
  /** Database beliefs compared with the chain after start (docs/chain.md, "Durability"). */
  chainConsistency: ChainConsistencyCheck;
  /** Organizations: members by role, invitations, the org's apps and audit log (docs/orgs.md). */
  orgs: OrgService;
  /** Who may manage an app: `require(clientId, actor, action)`, a member of its organization by role. */
  appAccess: AppAccess;
  /** An app owner's webhook endpoints, deliveries and retries (docs/webhooks.md). */
  webhooks: WebhookEndpointService;
  /** An app owner's activity per day, for the console's charts (docs/console.md). */
  appActivity: AppActivityService;
  /** Per-app sponsorship policies and approval hooks (docs/sponsorship.md). */
  appSponsorship: AppSponsorshipService;
  /** Wallet grants on chain (docs/session-keys.md): wallet policies, grants, session operations, revocation. */
  sessionKeys: SessionKeyService;
  /** Security mail, "this wasn't me" links and the mailbox proof's purge (docs/security.md). */
  security: AccountSecurityService;
  /** The account's own life (docs/account.md): deletion and export. */
  accountLife: AccountLifeService;
  /** ALTCHA proof of work: `GET /v1/challenge` and the `BOT_CHALLENGE` requests (docs/security.md). */
  botChallenge: BotChallengeService;
  /** Sign-ins of an account under guessing need a challenge or a mailed code (docs/security.md). */
  loginDefense: LoginDefenseService;
  /** An organization's machine clients (docs/machines.md). */
  serviceAccounts: ServiceAccountService;
  /** An app's players: list, search, detail, revoke (docs/players.md). */
  playerDirectory: PlayerDirectoryService;
  /** Players a studio makes before their first sign-in (docs/players.md). */
  pregeneration: PregenerationService;
  /** Releases every resource in reverse order of creation. */
  close(): Promise<void>;
}

/**
 * What the composition root built: the `Services`, plus the database, stores and chain layer behind them,
 * which the process and the test suites reach (http/ and cli/ may not import this type: eslint.config.js).
 */
export interface Composition extends Services {
  database: DatabaseHandle;
  users: UserStore;
  /** Main and slot content wallets (shared by PIN custody and slots). */
  wallets: WalletStore;
  /** The chain: gateway (typed reads), `operations.submitOperation`, `operator.execute`, `calls`, faucet. */
  chain: ChainServices;
  /** Sponsored gas per day, user and app: the store the policy charges. */
  sponsorship: SponsorshipStore;
}

export interface CreateServicesOptions {
  logger?: Logger;
  /** Tests isolate PostgreSQL runs in their own schema. */
  pgSchema?: string;
  /** Tuning of the chain layer (bundling, embedded chain); tests and benchmarks use it. */
  chain?: ChainServicesOptions;
  /** Tuning of the content-token domain (batching, answer timeout); tests and benchmarks use it. */
  content?: ContentOptions;
  /** Where each start step reports its progress while the port already answers (server.ts). */
  startup?: StartupProgress;
}

/** What was opened, closed in reverse order of opening (also when a start fails part-way); errors are logged. */
function closingOrder(logger: Logger) {
  const closers: (() => Promise<void>)[] = [];
  const onClose = (closer: () => Promise<void>) => void closers.push(closer);
  const close = async () => {
    for (const closer of closers.reverse()) {
      await closer().catch((err: unknown) => logger.warn({ err }, 'error while closing'));
    }
  };
  return { onClose, close };
}

export async function createServices(
  config: Config,
  options: CreateServicesOptions = {},
): Promise<Composition> {
  const logger = options.logger ?? pino(loggerOptions(config.logLevel));
  const startup = options.startup ?? new StartupProgress();
  const { onClose, close } = closingOrder(logger);
  try {
    // One domain per file, in dependency order; each declares the deps it takes, most of them from `base`.
    const { pgSchema } = options;
    const infrastructure = await createInfrastructure({ config, logger, startup, pgSchema, onClose });
    // What most domains take: the infrastructure's services and what it was given and opened.
    const { services: shared, ...context } = infrastructure;
    // Organizations (docs/orgs.md): every domain that manages an app checks the caller's role (`appAccess`).
    const orgDomain = createOrgDomain({ ...shared, ...context });
    const base = { ...shared, ...context, appAccess: orgDomain.appAccess };

    // The embedded chain starts (and deploys on first start) here; it stops before the database closes.
    const chainDomain = await createChainDomain({ ...base, options: options.chain });
    const { close: closeChain, ...chainServices } = chainDomain;
    onClose(closeChain);
    const { chain } = chainDomain;
    const tokenDomain = await createTokenDomain(base);
    const { close: closeOAuth, ...oauthDomain } = await createOAuthDomain({ ...base, ...tokenDomain });
    onClose(closeOAuth);
    const { clients, browserSessions } = oauthDomain;
    // The ways in (decisions §9): accounts, address verification, guests, passkeys, federation, MFA.
    const accountDomain = createAccountDomain({ ...base, ...tokenDomain, clients });
    const { verifications, hasher, strength, ...accountServices } = accountDomain;
    onClose(() => strength.close());
    const { users, accounts } = accountDomain;
    const defense = createDefenseDomain({ ...base, users, verifications });
    const oidc = createOidcServices({
      ...shared,
      ...tokenDomain,
      ...oauthDomain,
      users: accounts,
      sessions: browserSessions,
      issuer: config.publicUrl,
    });

    // Session keys (docs/session-keys.md): a wallet handed to its session account sends its owner operations
    // through it, so PIN custody needs the records and the chain reads first.
    const sessionParts = createSessionKeyParts({ ...base, chain });
    const sessionAccounts = { store: sessionParts.store, chain: sessionParts.accounts };
    const custodyDomain = createCustodyDomain({ ...base, sessionAccounts, users, verifications, chain });
    const { close: closeCustody, sharePins, ...custodyServices } = custodyDomain;
    onClose(closeCustody);
    const { custody } = custodyServices;
    const { close: closeSessionKeys, sessionKeys } = createSessionKeyDomain({
      ...base,
      ...oauthDomain,
      parts: sessionParts,
      custody,
      maxOperationGas: config.sponsorship.maxOperationGas,
    });
    onClose(closeSessionKeys);
    // Account security, password reset, approved apps, deletion and export.
    const accountCare = createAccountCare({
      ...base,
      ...tokenDomain,
      ...oauthDomain,
      ...accountDomain,
      sessionKeys,
    });

    const { close: closeSlots, ...slotDomain } = createSlotDomain({
      ...base,
      ...oauthDomain,
      users,
      chain,
      custody,
    });
    onClose(closeSlots);
    // Content tokens (docs/content-tokens.md): the batcher starts here and first settles what a crash left.
    const content = createContentServices({
      ...base,
      ...shared,
      ...contentReplicaOf({ ...base, chain }),
      chain,
      clients,
      slots: slotDomain.slots,
      custody,
      options: options.content,
    });
    startup.begin('content');
    await content.start();
    onClose(() => content.close());
    startup.done('content');
    // A slot transfer's `cu_id` may name the app by a cuid registered to it (decisions §5).
    slotDomain.slotTransfers.apps.add(content.directory.findProviderByCuid);

    // This replica's webhook delivery worker; it stops before the database closes.
    const { close: closeWebhooks, endpoints: webhooks } = createWebhookDomain(base);
    onClose(closeWebhooks);
    const sponsorshipDomain = createSponsorshipDomain({
      ...base,
      chain,
      users,
      sessionAccounts: sessionParts.store,
      providers: content.directory,
    });
    // After the journal recovery: what the database believes is checked against the chain, in the background.
    const chainConsistency = startChainConsistency({ ...base, chain });
    registerDomainMetrics(shared.metrics, {
      ...shared,
      ...oauthDomain,
      chain,
      content,
      queues: { scrypt: hasher, pbkdf2: sharePins },
      sponsorship: sponsorshipDomain.sponsorshipReport,
    });

    const accountOverview = createAccountOverview({
      ...shared,
      ...slotDomain,
      clients,
      providers: content.directory,
      gateway: chain.gateway,
      balances: content.balances,
    });
    return {
      ...shared,
      ...chainServices,
      chainInfo: chain.info,
      ...tokenDomain,
      ...orgDomain,
      ...oauthDomain,
      ...accountServices,
      ...defense,
      // The account's Security page: its sessions and ways in, over the domains that own them.
      ...createAccountSessionsDomain({ ...oauthDomain, ...accountServices }),
      oidc,
      ...custodyServices,
      sessionKeys,
      ...accountCare,
      ...slotDomain,
      content,
      webhooks,
      ...sponsorshipDomain,
      chainConsistency,
      accountOverview,
      ...createStudioDomain({ ...base, ...tokenDomain, ...oauthDomain, ...accountDomain, chain }),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
