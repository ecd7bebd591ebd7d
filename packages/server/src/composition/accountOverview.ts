import type { ChainGateway } from '../chain/chainGateway.js';
import { AccountOverviewService } from '../services/accounts/accountOverview.js';
import type { AuditTrail } from '../services/audit/auditTrail.js';
import type { BalanceQueryService } from '../services/content/balanceQueryService.js';
import type { ClientService } from '../services/oauth/clientService.js';
import type { SlotService } from '../services/slots/slotService.js';
import type { ProviderDirectory } from '../services/content/providerDirectory.js';
import type { WalletStore } from '../stores/walletStore.js';

/** Wires the console's account overview (docs/accounts.md) onto the stores and services that hold the figures. */
export function createAccountOverview(deps: {
  wallets: WalletStore;
  /** The content domain's provider directory: an app's cuids. */
  providers: Pick<ProviderDirectory, 'listProvidersByClient'>;
  gateway: ChainGateway;
  slots: SlotService;
  clients: ClientService;
  balances: BalanceQueryService;
  audit: AuditTrail;
}): AccountOverviewService {
  const { providers } = deps;
  return new AccountOverviewService({
    mainWallet: async (userUuid) => (await deps.wallets.mainWallet(userUuid))?.address,
    nativeBalance: (address) => deps.gateway.nativeBalance(address),
    tokenBalance: (address) => deps.gateway.tokenBalance(address),
    slotsOf: (userUuid) => deps.slots.listForOwner(userUuid),
    appName: async (clientId) => (await deps.clients.findClient(clientId))?.name,
    cuidsOf: async (clientId) =>
      (await providers.listProvidersByClient(clientId))
        .filter((p) => p.state === 'registered')
        .map((p) => p.cuid),
    slotFigures: (slot, cuid) => deps.balances.query(slot, cuid),
    recentActions: async (userUuid, limit) =>
      (await deps.audit.list({ actorUser: String(userUuid), limit })).entries,
  });
}
