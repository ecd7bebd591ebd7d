import { CallbackTargetPolicy } from '../services/oauth/callbackTargetPolicy.js';
import { PasswordHasher, SCRYPT_PARAMS } from '../crypto/passwordHasher.js';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pino, { type Logger } from 'pino';
import { type ChainServices, type ChainServicesOptions, createChainServices } from './chain.js';
import { StartupProgress } from './startupProgress.js';
import type { Config } from '../config.js';
import { SecretBox } from '../crypto/secretBox.js';
import { ChainOwnerLock } from '../chain/chainOwnerLock.js';
import { type DatabaseHandle, openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { loggerOptions } from '../logger.js';
import { ServiceMetrics } from '../observability/metrics.js';
import { AuditTrail } from '../services/audit/auditTrail.js';
import { AuditLogStore } from '../stores/auditLogStore.js';
import { ensureSecrets, type PlatformSecrets } from '../secrets.js';
import { AccountService } from '../services/accounts/accountService.js';
import { GuestService } from '../services/accounts/guestService.js';
import { PasskeyService } from '../services/passkeys/passkeyService.js';
import { GuestStore } from '../stores/guestStore.js';
import { PasskeyStore } from '../stores/passkeyStore.js';
import { FederationService } from '../services/federation/federationService.js';
import { ProviderRegistry } from '../services/federation/providerRegistry.js';
import { FederationStore } from '../stores/federationStore.js';
import { FederationNonceStore } from '../stores/federationNonceStore.js';
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
import { Authenticator } from '../services/tokens/authenticator.js';
import { TokenService } from '../services/tokens/tokenService.js';
import type { TokenTransferService } from '../services/transfers/tokenTransferService.js';
import type { EmailVerificationService } from '../services/verification/emailVerificationService.js';
import { AddressVerificationService } from '../services/verification/addressVerificationService.js';
import { SigningKeyStore } from '../stores/signingKeyStore.js';
import { UserStore } from '../stores/userStore.js';
import { WalletStore } from '../stores/walletStore.js';
import { type ContentOptions, type ContentServices, createContentServices } from './content.js';
import { createCustodyDomain } from './custody.js';
import { createSessionKeyDomain, createSessionKeyParts } from './sessionKeys.js';
import { createMfaDomain } from './mfa.js';
import { createAccountSessionsDomain } from './accountSessions.js';
import type { AccountSessionsService } from '../services/accountSessions/accountSessionsService.js';
import type { MfaService } from '../services/mfa/mfaService.js';
import type { SessionKeyService } from '../services/sessionKeys/sessionKeyService.js';
import { createMailer } from './mail.js';
import { createSecurityDomain } from './security.js';
import type { AccountSecurityService } from '../services/security/accountSecurityService.js';
import { createOAuthDomain } from './oauth.js';
import { type BackendIntegration, createSlotDomain } from './slots.js';

export type { BackendIntegration, ContentServices };
import type { AccountOverviewService } from '../services/accounts/accountOverview.js';
import { createAccountOverview } from './accountOverview.js';
import { PasswordService } from '../services/accounts/passwordService.js';
import { VerificationStore } from '../stores/verificationStore.js';
import { ConsentService } from '../services/oauth/consentService.js';
import type { OidcServices } from '../services/oidc/oidcServices.js';
import { createOidcServices } from './oidc.js';
import { SponsorshipPolicy } from '../chain/operations/sponsorshipPolicy.js';
import { SlotStore } from '../stores/slotStore.js';
import { SponsorshipStore } from '../stores/sponsorshipStore.js';
import { chainHeadChannel, RedisChainHeadBus } from '../stores/chainHeadBus.js';
import { chainFactsOf } from './chainFacts.js';
import { registerDomainMetrics, sponsorshipObserver } from './observability.js';
import { FundsWatch } from '../services/funds/fundsWatch.js';
import { ChainConsistencyCheck } from '../services/chainConsistency/chainConsistencyCheck.js';
import { ChainBeliefStore } from '../stores/chainBeliefStore.js';
import type { ChainInfo } from '../chain/types.js';
import { PlatformFunding } from '../services/funds/platformFunding.js';
import { SponsorshipReport } from '../services/sponsorship/sponsorshipReport.js';
import type { WebhookEndpointService } from '../services/webhooks/webhookEndpointService.js';
import { AppActivityService } from '../services/activity/appActivityService.js';
import { AppActivityStore } from '../stores/appActivityStore.js';
import { WebhookOutbox } from '../stores/webhookStore.js';
import { createWebhookDomain } from './webhooks.js';
import type { AccountLifeService } from '../services/accountLife/accountLifeService.js';
import { createAccountLife } from './accountLife.js';

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
  /** An app owner's webhook endpoints, deliveries and retries (docs/webhooks.md). */
  webhooks: WebhookEndpointService;
  /** An app owner's activity per day, for the console's charts (docs/console.md). */
  appActivity: AppActivityService;
  /** Wallet grants on chain (docs/session-keys.md): wallet policies, grants, session operations, revocation. */
  sessionKeys: SessionKeyService;
  /** Security mail, "this wasn't me" links and the mailbox proof's purge (docs/security.md). */
  security: AccountSecurityService;
  /** The account's own life (docs/account.md): deletion and export. */
  accountLife: AccountLifeService;
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

export async function createServices(
  config: Config,
  options: CreateServicesOptions = {},
): Promise<Composition> {
  const logger = options.logger ?? pino(loggerOptions(config.logLevel));
  const startup = options.startup ?? new StartupProgress();
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const closer of closers.reverse()) {
      await closer().catch((err: unknown) => logger.warn({ err }, 'error while closing'));
    }
  };
  try {
    const metrics = new ServiceMetrics();
    const secrets = ensureSecrets(config);
    startup.useAdminKey(secrets.adminApiKey);
    for (const target of secrets.tightened) {
      logger.warn({ path: target }, 'group/other permissions removed from a DATA_DIR file (now owner-only)');
    }
    const secretBox = new SecretBox(secrets.masterKey);

    // One process owns a DATA_DIR's embedded chain; a second start is refused before it touches the
    // database (a start racing another on a fresh DATA_DIR would otherwise meet it in the migrations).
    const chainLock =
      config.chain.kind === 'embedded'
        ? await ChainOwnerLock.acquire(path.join(config.dataDir, 'chain'))
        : undefined;
    if (chainLock) closers.push(async () => chainLock.release());

    startup.begin('database');
    logger.info({ dialect: config.databaseUrl ? 'postgres' : 'sqlite' }, 'opening database');
    const database = openDatabase({
      databaseUrl: config.databaseUrl,
      sqlitePath: path.join(config.dataDir, 'dauth.sqlite'),
      ...(options.pgSchema ? { pgSchema: options.pgSchema } : {}),
    });
    closers.push(() => database.close());
    await migrateToLatest(database.db);
    startup.done('database');

    let redis: Redis | undefined;
    if (config.redisUrl) {
      redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true });
      redis.on('error', (err) => logger.warn({ err: err.message }, 'redis error'));
      const client = redis;
      closers.push(async () => void (await client.quit()));
    }

    const readinessProbes: Services['readinessProbes'] = { database: () => database.ping() };
    if (redis) {
      const client = redis;
      readinessProbes.redis = async () => void (await client.ping());
    }

    // The embedded chain starts (and deploys on first start) here; it stops before the database closes.
    startup.begin('chain');
    const chain = await createChainServices(
      config,
      { logger, db: database.db, startup, ...(chainLock ? { chainLock } : {}) },
      options.chain,
    );
    closers.push(() => chain.close());
    startup.done('chain');
    readinessProbes.chain = () => chain.probe();
    // Fees above MAX_FEE_PER_GAS: transactions wait for the base fee to fall (docs/chain.md, "Fees").
    readinessProbes.chain_fees = async () => {
      const capped = chain.fees.detail;
      return capped ? { degraded: capped } : 'ok';
    };
    const probeEndpoints = chain.probeEndpoints;
    if (probeEndpoints) {
      // Failover keeps the service answering; an endpoint down is for the operator to see (degraded).
      readinessProbes.chain_rpc = async () => {
        const down = (await probeEndpoints()).filter((e) => !e.up);
        if (down.length === 0) return 'ok';
        return { degraded: down.map((e) => `${e.name} down (${e.reason ?? 'unknown'})`).join('; ') };
      };
    }

    const probeBundler = chain.probeBundler;
    if (probeBundler) {
      // BUNDLER_RPC_URL down: user wallets' operations answer 503 until it is back; the rest works (degraded).
      readinessProbes.bundler = async () =>
        probeBundler().then(
          () => 'ok',
          () => ({ degraded: 'the bundler at BUNDLER_RPC_URL does not answer' }),
        );
    }

    // Low funds: `/readyz` degraded, a warning, and on the embedded chain an automatic refill from the deployer.
    const funds = new FundsWatch(
      {
        paymasterDeposit: () => chain.gateway.paymasterDeposit(),
        relayerBalance: () => chain.gateway.nativeBalance(chain.telemetry.relayerAddress),
      },
      config.lowFunds,
      logger,
      chain.embedded
        ? {
            paymasterDeposit: (wei) => chain.faucet.depositForPaymaster(wei),
            relayer: (wei) => chain.faucet.sendNative(chain.telemetry.relayerAddress, wei),
          }
        : undefined,
    );
    readinessProbes.funds = async () => {
      const report = await funds.check();
      return report.low.length > 0 ? { degraded: report.detail } : report.detail;
    };

    const audit = new AuditTrail(new AuditLogStore(database.db), logger);
    const users = new UserStore(database.db);
    const tokens = new TokenService(new SigningKeyStore(database.db), secretBox, config.publicUrl);
    await tokens.init();
    const authenticator = new Authenticator(tokens);
    // Password change and reset void the user's earlier login JWTs (docs/accounts.md).
    authenticator.useLoginCutoff((userId) => users.loginCutoff(Number(userId)));
    // Sign-in and sign-up hashes: one scrypt per core at most, a bounded queue behind (SCRYPT_QUEUE_MAX).
    const passwords = new PasswordHasher(
      Math.min(availableParallelism(), config.threadPoolSize),
      config.scryptQueueMax,
      { ...SCRYPT_PARAMS, N: config.scryptN },
    );
    // E-mail (SMTP or the outbox) and the one-time codes and tokens it carries: sign-up verification, PIN
    // recovery and password reset.
    const mailer = createMailer(config);
    closers.push(() => mailer.close());
    const verifications = new VerificationStore(database.db);
    // Sign-up mails a code and a link; until one is used the account's sponsorship is the unverified budget.
    const addressVerification = new AddressVerificationService(
      verifications,
      users,
      mailer,
      secrets.masterKey,
      config.publicUrl,
      logger.child({ component: 'address-verification' }),
    );
    const accounts = new AccountService(users, tokens, passwords, addressVerification);
    const wallets = new WalletStore(database.db);

    // Where redirect URIs (and so backend callbacks) may point: decisions §7, docs/security.md.
    const callbackTargets = new CallbackTargetPolicy({
      allowPrivate: config.callbackAllowPrivate,
      requireHttps: config.requireHttpsRedirects,
    });

    // Webhooks (docs/webhooks.md): the stores below write each event in the transaction of its change.
    const outbox = new WebhookOutbox();

    // OAuth (docs/oauth.md): apps, grants, login pages, login status and the shared revocation list.
    const oauthDomain = await createOAuthDomain({
      outbox,
      callbackTargets,
      config,
      db: database.db,
      logger,
      redis,
      pgSchema: options.pgSchema,
      masterKey: secrets.masterKey,
      secretBox,
      tokens,
      authenticator,
      wallets,
    });
    closers.push(() => oauthDomain.close());
    const { clients, oauth, devices, revocations, browserSessions, loginStatus } = oauthDomain;
    // Players (docs/players.md): guest accounts and passkeys, both real accounts of the users table.
    const guests = new GuestService(
      new GuestStore(database.db),
      tokens,
      passwords,
      clients,
      secrets.masterKey,
    );
    const federationStore = new FederationStore(database.db);
    const passkeys = new PasskeyService(
      new PasskeyStore(database.db),
      accounts,
      guests,
      clients,
      tokens,
      { ...config.webauthn, rpName: 'dauth' },
      federationStore,
    );
    // Sign in with upstream providers (docs/federation.md). Building the registry touches no network:
    // an OpenID provider discovers on first use, so one that is down never blocks the start.
    const nonces = new FederationNonceStore(database.db);
    const federation = new FederationService(
      federationStore,
      new ProviderRegistry(config.identityProviders, {
        fetch: (input, init) => fetch(input, init),
        now: Date.now,
        claimOnce: (key, ttlMs) => nonces.claimOnce(key, ttlMs),
      }),
      accounts,
      guests,
      clients,
      tokens,
      secretBox,
      { publicUrl: config.publicUrl, logger: logger.child({ component: 'federation' }) },
    );
    // Second factors (docs/mfa.md): a password or federated sign-in of an account with TOTP takes a second step.
    const { mfa } = createMfaDomain({
      db: database.db,
      secretBox,
      masterKey: secrets.masterKey,
      tokens,
      issuer: new URL(config.publicUrl).hostname,
      signIns: [accounts, federation],
    });
    // OpenID Connect (docs/oidc.md): id_tokens, userinfo and RP-initiated logout over the OAuth domain.
    const oidc = createOidcServices({
      tokens,
      users: accounts,
      wallets,
      clients,
      sessions: browserSessions,
      loginStatus,
      issuer: config.publicUrl,
    });

    // Session keys (docs/session-keys.md): a wallet handed to its session account sends its owner operations
    // through it, so PIN custody needs the records and the chain reads first.
    const sessionParts = createSessionKeyParts({ db: database.db, outbox, chain });
    // PIN custody, e-mail verification and transfers (docs/pin-custody.md, docs/security.md).
    const custodyDomain = createCustodyDomain({
      sessionAccounts: { store: sessionParts.store, chain: sessionParts.accounts },
      config,
      db: database.db,
      logger,
      secretBox,
      masterKey: secrets.masterKey,
      users,
      wallets,
      verifications,
      mailer,
      chain,
    });
    closers.push(() => custodyDomain.close());
    const sessionKeyDomain = createSessionKeyDomain({
      parts: sessionParts,
      custody: custodyDomain.custody,
      clients,
      oauth,
      secretBox,
      logger,
      maxOperationGas: config.sponsorship.maxOperationGas,
    });
    closers.push(() => sessionKeyDomain.close());
    // Account security (decisions §9 "Ways in"): the purge on a first mailbox proof, the reset hold, security mail.
    const security = createSecurityDomain({
      db: database.db,
      users,
      mailer,
      masterKey: secrets.masterKey,
      publicUrl: config.publicUrl,
      logger,
      oauth,
      sessionKeys: sessionKeyDomain.sessionKeys,
      tokens,
      browserSessions,
      addressVerification,
    });

    // Slots, backend integration and the marketplace (docs/slots.md, docs/backend-integration.md).
    const slotDomain = createSlotDomain({
      outbox,
      db: database.db,
      logger,
      users,
      wallets,
      clients,
      oauth,
      loginStatus,
      chain,
      custody: custodyDomain.custody,
      callbackTargets,
    });
    closers.push(() => slotDomain.close());

    // Content tokens (docs/content-tokens.md): the batcher starts here and first settles what a crash left.
    const content = createContentServices({
      outbox,
      db: database.db,
      logger,
      secretBox,
      chain,
      clients,
      slots: slotDomain.slots,
      custody: custodyDomain.custody,
      wallets,
      options: options.content,
      // Read-your-writes across replicas: each replica tells the others the blocks its writes landed in.
      headBroadcast: redis
        ? new RedisChainHeadBus(redis, chainHeadChannel(`${config.publicUrl}|${options.pgSchema ?? ''}`))
        : undefined,
      // The embedded chain's DATA_DIR lock admits one process, and SQLite lives in that DATA_DIR; PostgreSQL
      // may be shared by replicas, whose batcher leases must expire as before.
      soleProcess: chain.embedded !== undefined && !config.databaseUrl,
      chainConfirmations: config.chainConfirmations,
    });
    startup.begin('content');
    await content.start();
    closers.push(() => content.close());
    startup.done('content');
    // A slot transfer's `cu_id` may name the app by a cuid registered to it (decisions §5).
    slotDomain.slotTransfers.apps.add(content.directory.findProviderByCuid);

    // This replica's webhook delivery worker; it stops before the database closes.
    const webhookDomain = createWebhookDomain({
      config,
      db: database.db,
      logger,
      secretBox,
      clients,
      callbackTargets,
      outbox,
      metrics,
    });
    closers.push(() => webhookDomain.close());

    // Gas sponsorship policy (decisions §7): checked by the operation pipeline before anything is signed.
    const sponsorship = new SponsorshipStore(database.db);
    const slotRecords = new SlotStore(database.db);
    chain.operations.usePolicy(
      new SponsorshipPolicy(
        config.sponsorship,
        chain.info.contracts,
        chain.operator.address,
        {
          // A wallet's session account (docs/session-keys.md) sends its operations: charged to the wallet's user.
          userOfWallet: async (address) =>
            (await wallets.findByAddress(address))?.userUuid ??
            (await sessionParts.store.findAccountByAddress(address))?.userUuid,
          userVerified: (userUuid) => users.emailVerified(userUuid),
          appOfSlot: async (slotId) => (await slotRecords.findById(slotId.toString()))?.clientId,
          appOfCuid: async (cuid) => (await content.directory.registered(cuid))?.clientId,
        },
        sponsorship,
        Date.now,
        sponsorshipObserver(metrics, logger, config.sponsorship.platformDailyGas),
      ),
    );
    const sponsorshipReport = new SponsorshipReport(sponsorship, config.sponsorship.platformDailyGas);
    // The console's charts: read-only over what the domains above record.
    const appActivity = new AppActivityService(
      new AppActivityStore(database.db),
      clients,
      config.sponsorship.appDailyGas,
    );
    // Past the platform-wide cap sponsored writes fail for everyone: degraded, like low funds.
    readinessProbes.sponsorship = () => sponsorshipReport.readiness();

    // After the journal recovery: what the database believes is checked against the chain, in the background.
    const chainConsistency = new ChainConsistencyCheck(
      new ChainBeliefStore(database.db),
      chainFactsOf(chain.gateway),
      logger,
    );
    void chainConsistency
      .run()
      .catch((err: unknown) => logger.warn({ err }, 'chain consistency check failed'));
    readinessProbes.chain_consistency = async () => chainConsistency.detail;

    registerDomainMetrics(metrics, {
      database,
      chain,
      content,
      queues: { scrypt: passwords, pbkdf2: custodyDomain.sharePins },
      revocations,
      sponsorship: sponsorshipReport,
    });

    return {
      config,
      logger,
      database,
      secrets,
      secretBox,
      redis,
      readinessProbes,
      metrics,
      funds,
      audit,
      chain,
      chainInfo: chain.info,
      funding: new PlatformFunding(chain.faucet, chain.gateway, {
        operator: chain.operator.address,
        relayers: chain.telemetry.relayerAddresses,
        ownRelayer: chain.telemetry.relayerAddress,
      }),
      tokens,
      authenticator,
      accounts,
      guests,
      passkeys,
      federation,
      mfa,
      ...createAccountSessionsDomain({
        browserSessions,
        oauth,
        clients,
        accounts,
        passkeys,
        federation,
        mfa,
      }),
      users,
      wallets,
      clients,
      oauth,
      devices,
      revocations,
      browserSessions,
      consents: new ConsentService(browserSessions, oauth, clients),
      passwords: new PasswordService(
        users,
        verifications,
        passwords,
        mailer,
        secrets.masterKey,
        config.publicUrl,
        logger,
        {
          endLoginPageSessions: (userUuid) => browserSessions.endSessionsOf(userUuid),
          revokeAppGrants: (userUuid, reason) => oauth.revokeUserGrants(userUuid, reason),
        },
        security,
      ),
      accountOverview: createAccountOverview({
        wallets,
        providers: content.directory,
        gateway: chain.gateway,
        slots: slotDomain.slots,
        clients,
        balances: content.balances,
        audit,
      }),
      loginStatus,
      oidc,
      slots: slotDomain.slots,
      slotTransfers: slotDomain.slotTransfers,
      slotImport: slotDomain.slotImport,
      backend: slotDomain.backend,
      market: slotDomain.market,
      custody: custodyDomain.custody,
      emailVerification: custodyDomain.emailVerification,
      addressVerification,
      transfers: custodyDomain.transfers,
      content,
      sponsorshipReport,
      sponsorship,
      chainConsistency,
      webhooks: webhookDomain.endpoints,
      appActivity,
      sessionKeys: sessionKeyDomain.sessionKeys,
      security,
      accountLife: createAccountLife({
        db: database.db,
        outbox,
        revocations,
        sessionKeys: sessionKeyDomain.sessionKeys,
        clients,
        logger,
      }),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
