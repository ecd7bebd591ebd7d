import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import { AccountLifeService } from '../services/accountLife/accountLifeService.js';
import { grantEntryExpiry } from '../services/oauth/grantRevocation.js';
import type { ClientService } from '../services/oauth/clientService.js';
import type { RevocationRegistry } from '../services/oauth/revocationRegistry.js';
import type { SessionKeyService } from '../services/sessionKeys/sessionKeyService.js';
import { AccountLifeStore } from '../stores/accountLifeStore.js';
import type { WebhookOutbox } from '../stores/webhookStore.js';

/** Wires account deletion and export (docs/account.md) onto the OAuth, session-key and webhook domains. */
export function createAccountLife(deps: {
  db: Db;
  outbox: WebhookOutbox;
  revocations: RevocationRegistry;
  sessionKeys: SessionKeyService;
  clients: ClientService;
  logger: Logger;
}): AccountLifeService {
  return new AccountLifeService(
    new AccountLifeStore(deps.db, deps.outbox),
    {
      revokeGrant: (entry) => deps.revocations.revoke(entry),
      grantRevocation: (grantId) => ({
        kind: 'grant',
        value: grantId,
        expiresAt: grantEntryExpiry(Date.now()),
      }),
      sweepSessionKeys: () => deps.sessionKeys.sweep(),
      appName: async (clientId) => (await deps.clients.findClient(clientId))?.name,
    },
    deps.logger.child({ component: 'account-life' }),
  );
}
