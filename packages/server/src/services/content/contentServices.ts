import type { Logger } from 'pino';
import type { Address } from '../../chain/types.js';
import type { SecretBox } from '../../crypto/secretBox.js';
import type { ContentLedgerStore } from '../../stores/contentLedgerStore.js';
import type { ContentProviderStore } from '../../stores/contentProviderStore.js';
import { BalanceQueryService } from './balanceQueryService.js';
import { ChainWatch } from './chainWatch.js';
import { type ConsumptionOptions, ConsumptionService } from './consumptionService.js';
import type { ClientDirectory, ContentTokenChain, SlotDirectory, UserWalletExecutor } from './ports.js';
import { ProviderDirectory } from './providerDirectory.js';
import { ProviderKeyring } from './providerKeyring.js';
import { ProviderService } from './providerService.js';
import { PurchaseService } from './purchaseService.js';
import { SettlementService } from './settlementService.js';
import { SlotBalanceReader } from './slotBalanceReader.js';
import { UsageBatcher, type UsageBatcherOptions } from './usageBatcher.js';

export interface ContentDeps {
  providerStore: ContentProviderStore;
  ledger: ContentLedgerStore;
  secretBox: SecretBox;
  chain: ContentTokenChain;
  clients: ClientDirectory;
  slots: SlotDirectory;
  wallets: UserWalletExecutor;
  /** viem `getAddress` (checksums; throws on a malformed address). */
  checksum: (address: string) => Address;
  logger: Logger;
  options?: {
    consumption?: ConsumptionOptions;
    batcher?: UsageBatcherOptions;
    /** How often the chain head is polled, 100 ms by default. */
    headPollMs?: number;
    /** How often provider keys changed on other replicas are picked up, 5 s by default. */
    keyRefreshMs?: number;
  };
}

/** The content-token domain as the HTTP layer and the composition root see it (`services.content`). */
export interface ContentServices {
  providers: ProviderService;
  consumption: ConsumptionService;
  balances: BalanceQueryService;
  purchases: PurchaseService;
  settlement: SettlementService;
  /** Registered cuids; `findProviderByCuid` is the `cu_id` lookup the slots domain adds to its resolver. */
  directory: ProviderDirectory;
  batcher: UsageBatcher;
  watch: ChainWatch;
  keyring: ProviderKeyring;
  reader: SlotBalanceReader;
  /** Loads keys, starts the head watcher and the batcher (which first settles what a crash left open). */
  start(): Promise<void>;
  close(): Promise<void>;
}

export function createContentServices(deps: ContentDeps): ContentServices {
  const logger = deps.logger.child({ component: 'content' });
  const options = deps.options ?? {};
  const watch = new ChainWatch(deps.chain, logger, options.headPollMs ?? 100);
  const directory = new ProviderDirectory(deps.providerStore);
  const keyring = new ProviderKeyring(deps.providerStore, deps.secretBox);
  const reader = new SlotBalanceReader(deps.chain, watch);
  const providers = new ProviderService(
    deps.providerStore,
    directory,
    keyring,
    deps.clients,
    deps.chain,
    logger,
    deps.checksum,
  );
  const consumption = new ConsumptionService(
    keyring,
    directory,
    deps.slots,
    deps.ledger,
    deps.chain,
    watch,
    undefined,
    logger,
    options.consumption,
  );
  const batcher = new UsageBatcher(deps.ledger, deps.chain, watch, consumption, logger, options.batcher);
  consumption.attachBatcher(batcher);
  const purchases = new PurchaseService(
    directory,
    deps.slots,
    deps.wallets,
    deps.chain,
    deps.ledger,
    watch,
    logger,
  );
  const settlement = new SettlementService(directory, providers, deps.chain, watch, logger, deps.checksum);
  const balances = new BalanceQueryService(reader, directory, deps.providerStore, deps.slots, deps.checksum);
  let keyTimer: NodeJS.Timeout | undefined;

  return {
    providers,
    consumption,
    balances,
    purchases,
    settlement,
    directory,
    batcher,
    watch,
    keyring,
    reader,
    async start() {
      await keyring.reload();
      keyTimer = setInterval(
        () =>
          void keyring.reload().catch((err: unknown) => logger.warn({ err }, 'provider key refresh failed')),
        options.keyRefreshMs ?? 5_000,
      );
      keyTimer.unref();
      watch.start();
      await watch.poll().catch(() => undefined);
      batcher.start();
    },
    async close() {
      if (keyTimer) clearInterval(keyTimer);
      watch.stop();
      await batcher.stop();
    },
  };
}
