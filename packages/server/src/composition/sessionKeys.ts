import type { Logger } from 'pino';
import type { ChainServices } from './chain.js';
import { checksumAddress } from '../chain/address.js';
import { grantEntriesWithin, SessionAccountGateway } from '../chain/sessionAccountGateway.js';
import type { SecretBox } from '../crypto/secretBox.js';
import type { Db } from '../db/database.js';
import type { CustodyService } from '../services/custody/custodyService.js';
import type { OAuthService } from '../services/oauth/oauthService.js';
import type { AppAccess } from '../services/orgs/appAccess.js';
import type { ClientService } from '../services/oauth/clientService.js';
import { type SessionAccountChain, SessionKeyService } from '../services/sessionKeys/sessionKeyService.js';
import { SessionKeyStore } from '../stores/sessionKeyStore.js';
import type { WebhookOutbox } from '../stores/webhookStore.js';

/** How often the background revocation looks for keys whose app grant ended (docs/session-keys.md). */
export const SESSION_KEY_SWEEP_MS = 2_000;

/** The session-key store and chain gateway, built before PIN custody (whose owner operations route through them). */
export function createSessionKeyParts(deps: {
  db: Db;
  outbox: WebhookOutbox;
  chain: Pick<ChainServices, 'gateway' | 'operations' | 'operator'>;
}): { store: SessionKeyStore; accounts: SessionAccountGateway } {
  return {
    store: new SessionKeyStore(deps.db, deps.outbox, checksumAddress),
    accounts: new SessionAccountGateway(deps.chain.gateway, deps.chain.operations, deps.chain.operator),
  };
}

/** Wires the session-key service and starts its background revocation; `close` stops it. */
export function createSessionKeyDomain(deps: {
  parts: { store: SessionKeyStore; accounts: SessionAccountGateway };
  custody: CustodyService;
  clients: ClientService;
  /** Who manages an app's wallet policy: members of its organization by role (docs/orgs.md). */
  appAccess: AppAccess;
  oauth: OAuthService;
  secretBox: SecretBox;
  logger: Logger;
  /** `SPONSOR_MAX_OPERATION_GAS`: a policy whose grant would ask more is refused when it is set. */
  maxOperationGas: number;
  sweepMs?: number;
}): { sessionKeys: SessionKeyService; close(): Promise<void> } {
  const chain: SessionAccountChain = deps.parts.accounts;
  const logger = deps.logger.child({ component: 'session-keys' });
  const sessionKeys = new SessionKeyService(
    deps.parts.store,
    chain,
    deps.custody,
    {
      findClient: (clientId) => deps.clients.findClient(clientId),
      approvedApps: (userUuid) => deps.oauth.approvedApps(userUuid),
      require: (clientId, actor, action) => deps.appAccess.require(clientId, actor, action),
    },
    deps.secretBox,
    logger,
    Date.now,
    { maxEntries: grantEntriesWithin(deps.maxOperationGas) },
  );
  const timer = setInterval(() => {
    sessionKeys.sweep().catch((err: unknown) => logger.warn({ err }, 'session key sweep failed'));
  }, deps.sweepMs ?? SESSION_KEY_SWEEP_MS);
  timer.unref();
  return {
    sessionKeys,
    close: async () => {
      clearInterval(timer);
      await sessionKeys.sweep().catch(() => undefined);
    },
  };
}
