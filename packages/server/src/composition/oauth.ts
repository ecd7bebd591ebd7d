import type { CallbackTargetPolicy } from '../services/oauth/callbackTargetPolicy.js';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { SecretBox } from '../crypto/secretBox.js';
import type { Db } from '../db/database.js';
import type { Authenticator } from '../services/tokens/authenticator.js';
import type { TokenService } from '../services/tokens/tokenService.js';
import { BrowserSessionService } from '../services/oauth/browserSessions.js';
import type { AppAccess } from '../services/orgs/appAccess.js';
import { LruClientCache } from '../services/oauth/clientCache.js';
import { ClientService } from '../services/oauth/clientService.js';
import { DeviceAuthorizationService } from '../services/oauth/deviceAuthorizationGrant.js';
import { OAuthService } from '../services/oauth/oauthService.js';
import { RevocationRegistry } from '../services/oauth/revocationRegistry.js';
import { LoginStatusService } from '../services/status/loginStatusService.js';
import { ClientStore } from '../stores/clientStore.js';
import { DeviceAuthorizationStore } from '../stores/deviceAuthorizationStore.js';
import { LoginStatusStore } from '../stores/loginStatusStore.js';
import type { WebhookOutbox } from '../stores/webhookStore.js';
import { OAuthGrantStore } from '../stores/oauthGrantStore.js';
import { PgRevocationBus, RedisRevocationBus, revocationChannel } from '../stores/oauthRevocationBus.js';
import { OAuthRevocationStore } from '../stores/oauthRevocationStore.js';
import { OAuthSessionStore } from '../stores/oauthSessionStore.js';
import type { WalletStore } from '../stores/walletStore.js';

export interface OAuthDomain {
  clients: ClientService;
  oauth: OAuthService;
  /** The device authorization grant (RFC 8628): consoles, TVs and launchers (docs/players.md). */
  devices: DeviceAuthorizationService;
  revocations: RevocationRegistry;
  browserSessions: BrowserSessionService;
  loginStatus: LoginStatusService;
  /** Stops the housekeeping timer and the revocation list's subscription. */
  close(): Promise<void>;
}

/**
 * Wires OAuth (docs/oauth.md): apps, grants, the service's own login pages and login status. The
 * revocation list lives in memory and follows the other replicas over Redis pub/sub, or PostgreSQL
 * LISTEN/NOTIFY when there is no Redis; the authenticator consults it from here on.
 */
export async function createOAuthDomain(deps: {
  config: Pick<Config, 'publicUrl' | 'databaseUrl' | 'deviceCode'>;
  db: Db;
  logger: Logger;
  redis: Redis | undefined;
  /** Keeps the revocation channel of a test's PostgreSQL schema apart from the others. */
  pgSchema: string | undefined;
  masterKey: Buffer;
  /** Who may manage an app (docs/orgs.md). */
  appAccess: AppAccess;
  secretBox: SecretBox;
  tokens: TokenService;
  authenticator: Authenticator;
  wallets: WalletStore;
  /** The SSRF policy redirect URIs are registered under. */
  callbackTargets: CallbackTargetPolicy;
  /** Webhook events written with the changes they report (grants, login status). */
  outbox?: WebhookOutbox | undefined;
}): Promise<OAuthDomain> {
  const { config, db, logger, redis } = deps;
  const channel = revocationChannel(`${config.publicUrl}|${deps.pgSchema ?? ''}`);
  const revocationBus = redis
    ? new RedisRevocationBus(redis, channel)
    : config.databaseUrl
      ? new PgRevocationBus(db, config.databaseUrl, channel)
      : undefined;
  const revocations = new RevocationRegistry(new OAuthRevocationStore(db), { bus: revocationBus, logger });
  try {
    await revocations.start();
  } catch (err) {
    await revocations.close().catch(() => undefined);
    throw err;
  }
  deps.authenticator.useRevocationList(revocations);
  // The apps' rows in memory, invalidated over the revocation bus (docs/oauth.md, "The client cache").
  const clients = new ClientService(
    new ClientStore(db),
    deps.masterKey,
    deps.appAccess,
    deps.callbackTargets,
    {
      cache: new LruClientCache(revocations),
    },
  );
  const oauth = new OAuthService({
    grants: new OAuthGrantStore(db, deps.outbox),
    tokens: deps.tokens,
    revocations,
    wallets: deps.wallets,
    secretBox: deps.secretBox,
    issuer: config.publicUrl,
  });
  const browserSessions = new BrowserSessionService(new OAuthSessionStore(db), deps.masterKey);
  const devices = new DeviceAuthorizationService({
    devices: new DeviceAuthorizationStore(db, deps.outbox),
    oauth,
    clients,
    consents: browserSessions,
    ttlSeconds: config.deviceCode.ttlSeconds,
    intervalSeconds: config.deviceCode.intervalSeconds,
  });
  const loginStatus = new LoginStatusService(new LoginStatusStore(db, deps.outbox));
  const housekeeping = setInterval(() => {
    Promise.all([
      oauth.purgeExpired(),
      devices.purgeExpired(),
      browserSessions.purgeExpired(),
      revocations.purgeExpired(),
    ]).catch((err: unknown) => logger.warn({ err }, 'OAuth housekeeping failed'));
  }, 10 * 60_000);
  housekeeping.unref();

  return {
    clients,
    oauth,
    devices,
    revocations,
    browserSessions,
    loginStatus,
    close: async () => {
      clearInterval(housekeeping);
      await revocations.close();
    },
  };
}
