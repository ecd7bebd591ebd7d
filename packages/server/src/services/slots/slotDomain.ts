import type { Logger } from 'pino';
import type { ChainServices } from '../../chain/chainServices.js';
import type { Db } from '../../db/database.js';
import { BackendCodeStore } from '../../stores/backendCodeStore.js';
import { MarketStore } from '../../stores/marketStore.js';
import { SlotStore } from '../../stores/slotStore.js';
import { TransferTicketStore } from '../../stores/transferTicketStore.js';
import type { UserStore } from '../../stores/userStore.js';
import type { WalletStore } from '../../stores/walletStore.js';
import { BackendAuthorizeService } from '../backendIntegration/backendAuthorizeService.js';
import { BackendLogoutService } from '../backendIntegration/backendLogoutService.js';
import { CallbackSender } from '../backendIntegration/callbackSender.js';
import { GetTokenService } from '../backendIntegration/getTokenService.js';
import { clientDirectoryOf, loginStatusOf, tokenGrantsOf } from '../backendIntegration/oauthAdapters.js';
import { MarketService } from '../market/marketService.js';
import type { ClientService } from '../oauth/clientService.js';
import type { OAuthService } from '../oauth/oauthService.js';
import type { LoginStatusService } from '../status/loginStatusService.js';
import { AppResolver } from './appResolver.js';
import { DexSlotLedger } from './dexSlotLedger.js';
import { SlotImportService } from './slotImportService.js';
import { SlotService } from './slotService.js';
import { SlotTransferService } from './slotTransferService.js';

/** The backend-integration flow's use cases, as routes reach them (`services.backend`). */
export interface BackendIntegration {
  authorize: BackendAuthorizeService;
  callbacks: CallbackSender;
  getToken: GetTokenService;
  logout: BackendLogoutService;
}

export interface SlotDomain {
  slots: SlotService;
  slotTransfers: SlotTransferService;
  slotImport: SlotImportService;
  backend: BackendIntegration;
  market: MarketService;
  /** Stops callback deliveries (waiting for those in flight) and the housekeeping timer. */
  close(): Promise<void>;
}

export interface SlotDomainDeps {
  db: Db;
  logger: Logger;
  users: UserStore;
  wallets: WalletStore;
  clients: ClientService;
  oauth: OAuthService;
  loginStatus: LoginStatusService;
  chain: Pick<ChainServices, 'gateway' | 'calls' | 'operator'>;
}

/**
 * Wires slots, transfers, the backend-integration flow and the marketplace from their stores, the
 * chain layer and the OAuth domain's services. Called once by the composition root.
 */
export function createSlotDomain(deps: SlotDomainDeps): SlotDomain {
  const logger = deps.logger.child({ component: 'slots' });
  const slotStore = new SlotStore(deps.db);
  const codes = new BackendCodeStore(deps.db);
  const ledger = new DexSlotLedger(deps.chain.gateway, deps.chain.calls, deps.chain.operator);
  const clients = clientDirectoryOf(deps.clients);
  const grants = tokenGrantsOf(deps.oauth, deps.clients);
  const status = loginStatusOf(deps.loginStatus);

  const slots = new SlotService(slotStore, deps.wallets, deps.users, ledger, { logger });
  // cu_id: a client_id today; the content-token domain adds its cuid lookup with `apps.add(...)`.
  const apps = new AppResolver(async (cuId) => (await deps.clients.findClient(cuId))?.clientId);
  const slotTransfers = new SlotTransferService(
    slotStore,
    new TransferTicketStore(deps.db),
    deps.wallets,
    deps.users,
    ledger,
    apps,
    { logger },
  );
  const callbacks = new CallbackSender(codes, { logger });
  const backend: BackendIntegration = {
    authorize: new BackendAuthorizeService(clients, slots, codes),
    callbacks,
    getToken: new GetTokenService(clients, codes, slots, grants),
    logout: new BackendLogoutService(grants, status),
  };
  const market = new MarketService(
    new MarketStore(deps.db),
    slots,
    slotTransfers,
    status,
    grants,
    deps.wallets,
  );
  const slotImport = new SlotImportService(slotStore, deps.wallets, deps.users, clients, ledger);

  // Codes are kept a day past expiry (a late replay is still recognised as used: 510, not 570).
  const housekeeping = setInterval(() => {
    codes
      .deleteExpired(Date.now() - 24 * 3600_000)
      .catch((err: unknown) => logger.warn({ err }, 'code cleanup failed'));
  }, 10 * 60_000);
  housekeeping.unref();

  return {
    slots,
    slotTransfers,
    slotImport,
    backend,
    market,
    close: async () => {
      clearInterval(housekeeping);
      await callbacks.close();
    },
  };
}
