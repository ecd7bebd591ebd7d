import path from 'node:path';
import { Redis } from 'ioredis';
import pino, { type Logger } from 'pino';
import type { Config } from './config.js';
import { SecretBox } from './crypto/secretBox.js';
import { type DatabaseHandle, openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { loggerOptions } from './logger.js';
import { ensureSecrets, type PlatformSecrets } from './secrets.js';
import { AccountService } from './services/accounts/accountService.js';
import { Authenticator } from './services/tokens/authenticator.js';
import { TokenService } from './services/tokens/tokenService.js';
import { SigningKeyStore } from './stores/signingKeyStore.js';
import { UserStore } from './stores/userStore.js';
import { WalletStore } from './stores/walletStore.js';

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
  /** Releases every resource in reverse order of creation. */
  close(): Promise<void>;
}

export interface CreateServicesOptions {
  logger?: Logger;
  /** Tests isolate PostgreSQL runs in their own schema. */
  pgSchema?: string;
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

    const users = new UserStore(database.db);
    const tokens = new TokenService(new SigningKeyStore(database.db), secretBox, config.publicUrl);
    await tokens.init();
    const authenticator = new Authenticator(tokens);
    const accounts = new AccountService(users, tokens);
    const wallets = new WalletStore(database.db);

    return {
      config,
      logger,
      database,
      secrets,
      secretBox,
      redis,
      readinessProbes,
      tokens,
      authenticator,
      accounts,
      users,
      wallets,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
