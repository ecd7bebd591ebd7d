import type { Logger } from 'pino';
import type { ChainServices } from './chain.js';
import { DexLedger } from '../chain/dexLedger.js';
import type { Db } from '../db/database.js';
import { BackendAuthorizeService } from '../services/backendIntegration/backendAuthorizeService.js';
import { BackendLogoutService } from '../services/backendIntegration/backendLogoutService.js';
import { CallbackSender } from '../services/backendIntegration/callbackSender.js';
import { GetTokenService } from '../services/backendIntegration/getTokenService.js';
import type { CustodyService } from '../services/custody/custodyService.js';
import { MarketService, type MarketWallets } from '../services/market/marketService.js';
import type { CallbackTargetPolicy } from '../services/oauth/callbackTargetPolicy.js';
import type { ClientService } from '../services/oauth/clientService.js';
import type { OAuthService } from '../services/oauth/oauthService.js';
import { AppResolver } from '../services/slots/appResolver.js';
import { SlotImportService } from '../services/slots/slotImportService.js';
import { type SlotLedger, slotRefusal } from '../services/slots/slotLedger.js';
import { SlotService } from '../services/slots/slotService.js';
import { SlotTransferService } from '../services/slots/slotTransferService.js';
import type { LoginStatusService } from '../services/status/loginStatusService.js';
import { BackendCodeStore } from '../stores/backendCodeStore.js';
import { MarketStore } from '../stores/marketStore.js';
import type { WebhookOutbox } from '../stores/webhookStore.js';
import { SlotStore } from '../stores/slotStore.js';
import { TransferTicketStore } from '../stores/transferTicketStore.js';
import type { UserStore } from '../stores/userStore.js';
import type { WalletStore } from '../stores/walletStore.js';
import { loginStatusOf, tokenGrantsOf } from './oauthPorts.js';

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
  chain: Pick<ChainServices, 'gateway' | 'calls' | 'operator' | 'sales'>;
  /** The SSRF policy every callback is checked against at send time. */
  callbackTargets?: CallbackTargetPolicy;
  /** PIN custody: the seller's presence at listing, the buyer's paid purchase. */
  custody: CustodyService;
  /** Webhook events written with the changes they report (slots, sales). */
  outbox?: WebhookOutbox | undefined;
}

/**
 * Wires slots, transfers, the backend-integration flow and the marketplace (docs/slots.md,
 * docs/backend-integration.md) from their stores, the dex ledger and the OAuth domain's services.
 */
export function createSlotDomain(deps: SlotDomainDeps): SlotDomain {
  const logger = deps.logger.child({ component: 'slots' });
  const slotStore = new SlotStore(deps.db, deps.outbox);
  const codes = new BackendCodeStore(deps.db);
  const ledger = slotLedgerOver(new DexLedger(deps.chain.gateway, deps.chain.calls, deps.chain.operator));
  const grants = tokenGrantsOf(deps.oauth);
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
  const callbacks = new CallbackSender(codes, {
    logger,
    ...(deps.callbackTargets ? { targets: deps.callbackTargets } : {}),
  });
  const backend: BackendIntegration = {
    authorize: new BackendAuthorizeService(deps.clients, slots, codes),
    callbacks,
    getToken: new GetTokenService(deps.clients, codes, slots, grants),
    logout: new BackendLogoutService(grants, status),
  };
  const market = new MarketService(
    new MarketStore(deps.db, deps.outbox),
    slots,
    slotTransfers,
    status,
    grants,
    deps.wallets,
    marketWalletsOver(deps.chain, deps.custody),
  );
  const slotImport = new SlotImportService(slotStore, deps.wallets, deps.users, deps.clients, ledger);

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

/** The slots' port over the dex ledger: the dex's refusals become the slot errors `slotRefusal` names. */
/** The marketplace's wallets port over PIN custody and the chain layer. */
function marketWalletsOver(chain: SlotDomainDeps['chain'], custody: CustodyService): MarketWallets {
  return {
    confirmPresence: (userUuid, pin) => custody.confirmPresence(userUuid, pin),
    nativeBalance: (address) => chain.gateway.nativeBalance(address),
    payAndTake: async (sale) => {
      const authorisation = await chain.sales.authorise({
        slot: sale.slotId,
        seller: sale.seller,
        buyer: sale.buyer,
        price: sale.price,
      });
      const call = chain.calls.platform(
        'dex',
        'purchase',
        [sale.slotId, sale.seller, authorisation.deadline, authorisation.signature],
        sale.price,
      );
      return custody.operate(sale.buyerUuid, sale.buyer, sale.pin, [call]);
    },
  };
}

export function slotLedgerOver(dex: DexLedger): SlotLedger {
  const refusing = async <T>(write: Promise<T>): Promise<T> => {
    try {
      return await write;
    } catch (err) {
      throw slotRefusal(err);
    }
  };
  return {
    contentWalletAddress: (slotId) => dex.contentWalletAddress(slotId),
    contentWalletOwner: dex.contentWalletOwner,
    ownerOf: (slotId) => dex.ownerOf(slotId),
    buySlot: (owner, slotId, contentAddress) => refusing(dex.buySlot(owner, slotId, contentAddress)),
    moveSlot: (from, slotId, to) => refusing(dex.moveSlot(from, slotId, to)),
  };
}
