import path from 'node:path';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { ChainOwnerLock } from '../chain/chainOwnerLock.js';
import { SecretBox } from '../crypto/secretBox.js';
import { type Db, openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { ServiceMetrics } from '../observability/metrics.js';
import { startTracing } from '../observability/tracing.js';
import { ensureSecrets } from '../secrets.js';
import { AuditTrail } from '../services/audit/auditTrail.js';
import type { Mailer } from '../services/mail/mailer.js';
import { CallbackTargetPolicy } from '../services/oauth/callbackTargetPolicy.js';
import { AuditLogStore } from '../stores/auditLogStore.js';
import { WalletStore } from '../stores/walletStore.js';
import { WebhookOutbox } from '../stores/webhookStore.js';
import { createMailer } from './mail.js';
import type { Composition, Services } from './index.js';
import type { StartupProgress } from './startupProgress.js';

/** What createInfrastructure was given, which every domain takes too. */
interface InfrastructureDeps {
  config: Config;
  logger: Logger;
  startup: StartupProgress;
  /** Tests isolate PostgreSQL runs in their own schema. */
  pgSchema: string | undefined;
  onClose(closer: () => Promise<void>): void;
}

export interface Infrastructure extends Omit<InfrastructureDeps, 'onClose'> {
  /** What the Composition exposes of it. */
  services: Pick<
    Composition,
    | 'config'
    | 'logger'
    | 'metrics'
    | 'tracing'
    | 'secrets'
    | 'secretBox'
    | 'database'
    | 'redis'
    | 'readinessProbes'
    | 'audit'
    | 'wallets'
  >;
  db: Db;
  masterKey: Buffer;
  /** Held while this process owns the DATA_DIR's embedded chain; undefined on an external chain. */
  chainLock: ChainOwnerLock | undefined;
  /** E-mail (SMTP or the outbox): sign-up verification, PIN recovery, password reset, security mail. */
  mailer: Mailer;
  /** Where redirect URIs (and so backend callbacks and webhooks) may point: decisions §7, docs/security.md. */
  callbackTargets: CallbackTargetPolicy;
  /** Webhooks (docs/webhooks.md): the domains' stores write each event in the transaction of its change. */
  outbox: WebhookOutbox;
}

/**
 * What every domain stands on: secrets, the DATA_DIR's chain lock, the migrated database, Redis, the audit
 * trail, and what several domains share (the mailer, the wallet store, the callback-target policy, the
 * webhook outbox). Each piece hands its closer to `onClose` as soon as it is open (rather than returning one
 * `close`), so a failure part-way (a migration, a second process holding the lock) still releases what
 * was opened before it, in reverse order, with the rest of the root's closers.
 */
export async function createInfrastructure(deps: InfrastructureDeps): Promise<Infrastructure> {
  const { config, logger, startup, onClose } = deps;
  // Traces first, so the start's own work is traced and the last spans are exported after everything closed.
  const tracing = await startTracing(config.tracing);
  onClose(() => tracing.shutdown());
  if (config.tracing) {
    const { url, protocol, sampler } = config.tracing;
    // The origin and path only: a collector's credentials go in headers, but a URL may carry some too.
    const target = `${new URL(url).origin}${new URL(url).pathname}`;
    logger.info({ url: target, protocol, sampler }, 'exporting OpenTelemetry traces');
  }
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
  if (chainLock) onClose(async () => chainLock.release());

  startup.begin('database');
  logger.info({ dialect: config.databaseUrl ? 'postgres' : 'sqlite' }, 'opening database');
  const database = openDatabase({
    databaseUrl: config.databaseUrl,
    sqlitePath: path.join(config.dataDir, 'dauth.sqlite'),
    ...(deps.pgSchema ? { pgSchema: deps.pgSchema } : {}),
    traced: tracing.enabled,
  });
  onClose(() => database.close());
  await migrateToLatest(database.db);
  startup.done('database');

  let redis: Redis | undefined;
  if (config.redisUrl) {
    redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true });
    redis.on('error', (err) => logger.warn({ err: err.message }, 'redis error'));
    const client = redis;
    onClose(async () => void (await client.quit()));
  }

  const readinessProbes: Services['readinessProbes'] = { database: () => database.ping() };
  if (redis) {
    const client = redis;
    readinessProbes.redis = async () => void (await client.ping());
  }

  const audit = new AuditTrail(new AuditLogStore(database.db), logger);
  const mailer = createMailer(config);
  onClose(() => mailer.close());
  const callbackTargets = new CallbackTargetPolicy({
    allowPrivate: config.callbackAllowPrivate,
    requireHttps: config.requireHttpsRedirects,
  });
  // The wallet store: OAuth, OIDC, custody, slots, content and sponsorship all read main wallets.
  const wallets = new WalletStore(database.db);
  return {
    services: {
      config,
      logger,
      metrics,
      tracing,
      secrets,
      secretBox,
      database,
      redis,
      readinessProbes,
      audit,
      wallets,
    },
    config,
    logger,
    startup,
    pgSchema: deps.pgSchema,
    db: database.db,
    masterKey: secrets.masterKey,
    chainLock,
    mailer,
    callbackTargets,
    outbox: new WebhookOutbox(),
  };
}
