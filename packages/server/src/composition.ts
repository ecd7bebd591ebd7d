import path from 'node:path';
import { Redis } from 'ioredis';
import pino, { type Logger } from 'pino';
import type { Config } from './config.js';
import { SecretBox } from './crypto/secretBox.js';
import { type DatabaseHandle, openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { loggerOptions } from './logger.js';
import { ensureSecrets, type PlatformSecrets } from './secrets.js';
import { type ChainServices, type ChainServicesOptions, createChainServices } from './chain/chainServices.js';
import { AccountService } from './services/accounts/accountService.js';
import { Authenticator } from './services/tokens/authenticator.js';
import { TokenService } from './services/tokens/tokenService.js';
import { SigningKeyStore } from './stores/signingKeyStore.js';
import { UserStore } from './stores/userStore.js';
import { WalletStore } from './stores/walletStore.js';
import { BrowserSessionService } from './services/oauth/browserSessions.js';
import { ClientService } from './services/oauth/clientService.js';
import { OAuthService } from './services/oauth/oauthService.js';
import { RevocationRegistry } from './services/oauth/revocationRegistry.js';
import { LoginStatusService } from './services/status/loginStatusService.js';
import { ClientStore } from './stores/clientStore.js';
import { LoginStatusStore } from './stores/loginStatusStore.js';
import { OAuthGrantStore } from './stores/oauthGrantStore.js';
import { PgRevocationBus, RedisRevocationBus, revocationChannel } from './stores/oauthRevocationBus.js';
import { OAuthRevocationStore } from './stores/oauthRevocationStore.js';
import { OAuthSessionStore } from './stores/oauthSessionStore.js';
import { type BackendIntegration, createSlotDomain } from './services/slots/slotDomain.js';
import type { SlotService } from './services/slots/slotService.js';
import type { SlotTransferService } from './services/slots/slotTransferService.js';
import type { SlotImportService } from './services/slots/slotImportService.js';
import type { MarketService } from './services/market/marketService.js';
import { createCustodyDomain } from './services/custody/custodyDomain.js';
import type { CustodyService } from './services/custody/custodyService.js';
import type { EmailVerificationService } from './services/verification/emailVerificationService.js';
import type { TokenTransferService } from './services/transfers/tokenTransferService.js';
import { checksumAddress, ContentTokenGateway } from './chain/contentTokenGateway.js';
import {
  clientDirectoryOf as contentClientsOf,
  slotDirectoryOf,
  walletExecutorOf,
} from './services/content/contentAdapters.js';
import {
  type ContentDeps,
  type ContentServices,
  createContentServices,
} from './services/content/contentServices.js';
import { ContentLedgerStore } from './stores/contentLedgerStore.js';
import { ContentProviderStore } from './stores/contentProviderStore.js';

/**
 * Everything the HTTP layer may use, wired once. This is the only place that knows which
 * store or gateway implementation backs a service.
 */
export interface Services {
  config: Config;
  logger: Logger;
  database: DatabaseHandle;
  secrets: PlatformSecrets;
  secretBox: SecretBox;
  /** Shared state between replicas (rate limits, one-time values) when REDIS_URL is set. */
  redis: Redis | undefined;
  /** Named checks `/readyz` runs; each rejects when its dependency does not answer. */
  readinessProbes: Record<string, () => Promise<void>>;
  tokens: TokenService;
  /** Verifies bearer tokens and checks revocation; routes use it through `http/auth.ts`. */
  authenticator: Authenticator;
  accounts: AccountService;
  users: UserStore;
  /** Main and slot content wallets (shared by PIN custody and slots). */
  wallets: WalletStore;
  /** Apps (OAuth clients): `findClient`, `verifyClientSecret`, `isRegisteredRedirect`. */
  clients: ClientService;
  /** Codes, token exchange, refresh rotation, revocation and introspection (docs/oauth.md). */
  oauth: OAuthService;
  /** The in-memory revocation list every bearer check consults, kept in step across replicas. */
  revocations: RevocationRegistry;
  /** Sessions, CSRF and consent of the service's own login page. */
  browserSessions: BrowserSessionService;
  /** Login status per user and app (`getStatus`, `setStatus`). */
  loginStatus: LoginStatusService;
  /** The chain: gateway (typed reads), `operations.submitOperation`, `operator.execute`, `calls`, faucet. */
  chain: ChainServices;
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
  /** ERC-20 transfers from a user's wallet (`/v1/token/transfer`). */
  transfers: TokenTransferService;
  /** Content tokens (docs/content-tokens.md): providers, purchases, batched consumption, balances, settlement. */
  content: ContentServices;
  /** Releases every resource in reverse order of creation. */
  close(): Promise<void>;
}

export interface CreateServicesOptions {
  logger?: Logger;
  /** Tests isolate PostgreSQL runs in their own schema. */
  pgSchema?: string;
  /** Tuning of the chain layer (bundling, embedded chain); tests and benchmarks use it. */
  chain?: ChainServicesOptions;
  /** Tuning of the content-token domain (batching, answer timeout); tests and benchmarks use it. */
  content?: ContentDeps['options'];
}

export async function createServices(config: Config, options: CreateServicesOptions = {}): Promise<Services> {
  const logger = options.logger ?? pino(loggerOptions(config.logLevel));
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const closer of closers.reverse()) {
      await closer().catch((err: unknown) => logger.warn({ err }, 'error while closing'));
    }
  };
  try {
    const secrets = ensureSecrets(config);
    const secretBox = new SecretBox(secrets.masterKey);

    logger.info({ dialect: config.databaseUrl ? 'postgres' : 'sqlite' }, 'opening database');
    const database = openDatabase({
      databaseUrl: config.databaseUrl,
      sqlitePath: path.join(config.dataDir, 'dauth.sqlite'),
      ...(options.pgSchema ? { pgSchema: options.pgSchema } : {}),
    });
    closers.push(() => database.close());
    await migrateToLatest(database.db);

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
    const chain = await createChainServices(config, { logger, db: database.db }, options.chain);
    closers.push(() => chain.close());
    readinessProbes.chain = () => chain.probe();

    const users = new UserStore(database.db);
    const tokens = new TokenService(new SigningKeyStore(database.db), secretBox, config.publicUrl);
    await tokens.init();
    const authenticator = new Authenticator(tokens);
    const accounts = new AccountService(users, tokens);
    const wallets = new WalletStore(database.db);

    // OAuth (docs/oauth.md): the revocation list lives in memory and follows the other replicas
    // over Redis pub/sub, or PostgreSQL LISTEN/NOTIFY when there is no Redis.
    const clients = new ClientService(new ClientStore(database.db), secrets.masterKey);
    const channel = revocationChannel(`${config.publicUrl}|${options.pgSchema ?? ''}`);
    const revocationBus = redis
      ? new RedisRevocationBus(redis, channel)
      : config.databaseUrl
        ? new PgRevocationBus(database.db, config.databaseUrl, channel)
        : undefined;
    const revocations = new RevocationRegistry(new OAuthRevocationStore(database.db), {
      bus: revocationBus,
      logger,
    });
    closers.push(() => revocations.close());
    await revocations.start();
    authenticator.useRevocationList(revocations);
    const oauth = new OAuthService({
      grants: new OAuthGrantStore(database.db),
      tokens,
      revocations,
      wallets,
      secretBox,
      issuer: config.publicUrl,
    });
    const browserSessions = new BrowserSessionService(new OAuthSessionStore(database.db), secrets.masterKey);
    const loginStatus = new LoginStatusService(new LoginStatusStore(database.db));
    const oauthHousekeeping = setInterval(() => {
      Promise.all([oauth.purgeExpired(), browserSessions.purgeExpired(), revocations.purgeExpired()]).catch(
        (err: unknown) => logger.warn({ err }, 'OAuth housekeeping failed'),
      );
    }, 10 * 60_000);
    oauthHousekeeping.unref();
    closers.push(async () => clearInterval(oauthHousekeeping));

    // Slots, backend integration and the marketplace (docs/slots.md, docs/backend-integration.md).
    const slotDomain = createSlotDomain({
      db: database.db,
      logger,
      users,
      wallets,
      clients,
      oauth,
      loginStatus,
      chain,
    });
    closers.push(() => slotDomain.close());

    // PIN custody, e-mail verification and transfers (docs/pin-custody.md, docs/security.md).
    const custodyDomain = createCustodyDomain({
      config,
      db: database.db,
      logger,
      secretBox,
      masterKey: secrets.masterKey,
      users,
      wallets,
      chain,
    });
    closers.push(() => custodyDomain.close());

    // Content tokens (docs/content-tokens.md): the batcher starts here and first settles what a crash left.
    const content = createContentServices({
      providerStore: new ContentProviderStore(database.db),
      ledger: new ContentLedgerStore(database.db),
      secretBox,
      chain: new ContentTokenGateway(chain.gateway, chain.operator, chain.calls),
      clients: contentClientsOf(clients),
      slots: slotDirectoryOf(slotDomain.slots),
      wallets: walletExecutorOf(custodyDomain.custody, wallets),
      checksum: checksumAddress,
      logger,
      ...(options.content ? { options: options.content } : {}),
    });
    await content.start();
    closers.push(() => content.close());
    // A slot transfer's `cu_id` may name the app by a cuid registered to it (decisions §5).
    slotDomain.slotTransfers.apps.add(content.directory.findProviderByCuid);

    return {
      config,
      logger,
      database,
      secrets,
      secretBox,
      redis,
      readinessProbes,
      chain,
      tokens,
      authenticator,
      accounts,
      users,
      wallets,
      clients,
      oauth,
      revocations,
      browserSessions,
      loginStatus,
      slots: slotDomain.slots,
      slotTransfers: slotDomain.slotTransfers,
      slotImport: slotDomain.slotImport,
      backend: slotDomain.backend,
      market: slotDomain.market,
      custody: custodyDomain.custody,
      emailVerification: custodyDomain.emailVerification,
      transfers: custodyDomain.transfers,
      content,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
