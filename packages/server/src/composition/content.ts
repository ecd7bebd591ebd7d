import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { chainHeadChannel, RedisChainHeadBus } from '../stores/chainHeadBus.js';
import type { ChainServices } from './chain.js';
import { ContentTokenGateway } from '../chain/contentTokenGateway.js';
import type { SecretBox } from '../crypto/secretBox.js';
import type { Db } from '../db/database.js';
import { BalanceQueryService } from '../services/content/balanceQueryService.js';
import { ChainWatch, type HeadBroadcast } from '../services/content/chainWatch.js';
import { type ConsumptionOptions, ConsumptionService } from '../services/content/consumptionService.js';
import type { ContentTokenChain, SlotDirectory, SlotView } from '../services/content/ports.js';
import { MainWalletPayments } from '../services/content/mainWalletPayments.js';
import { ProviderDirectory } from '../services/content/providerDirectory.js';
import { ProviderKeyring } from '../services/content/providerKeyring.js';
import { ProviderService } from '../services/content/providerService.js';
import { PurchaseService } from '../services/content/purchaseService.js';
import { SettlementService, type SettlementOptions } from '../services/content/settlementService.js';
import { SlotBalanceReader } from '../services/content/slotBalanceReader.js';
import { UsageBatcher, type UsageBatcherOptions } from '../services/content/usageBatcher.js';
import type { CustodyService } from '../services/custody/custodyService.js';
import type { ClientDirectory } from '../services/oauth/clientDirectory.js';
import type { AppAccess } from '../services/orgs/appAccess.js';
import type { SlotService } from '../services/slots/slotService.js';
import {
  ChainEventIntents,
  type ChainEventFinder,
  type ChainEventIntentsOptions,
} from '../services/webhooks/chainEventIntents.js';
import { type WebhookOutbox, WebhookIntentStore } from '../stores/webhookStore.js';
import { ContentLedgerStore } from '../stores/contentLedgerStore.js';
import { LeaseStore } from '../stores/leaseStore.js';
import { ContentProviderStore } from '../stores/contentProviderStore.js';
import type { WalletStore } from '../stores/walletStore.js';

/** Tuning of the content-token domain (batching, answer timeout); tests and benchmarks use it. */
export interface ContentOptions {
  consumption?: ConsumptionOptions;
  batcher?: UsageBatcherOptions;
  settlement?: SettlementOptions;
  /** How often the chain head is polled, 100 ms by default. */
  headPollMs?: number;
  /** How often provider keys changed on other replicas are picked up, 5 s by default. */
  keyRefreshMs?: number;
  /** The recovery of `content.purchased`/`content.released` events whose answer a crash cut off. */
  eventIntents?: Partial<Pick<ChainEventIntentsOptions, 'orphanAfterMs' | 'giveUpAfterMs' | 'sweepMs'>>;
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
  /** Accepted consumption records still waiting for a batch (metrics). */
  queuedRecords(): Promise<number>;
  watch: ChainWatch;
  keyring: ProviderKeyring;
  reader: SlotBalanceReader;
  /** Loads keys, starts the head watcher and the batcher (which first settles what a crash left open). */
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface ContentDeps {
  db: Db;
  logger: Logger;
  secretBox: SecretBox;
  chain: Pick<ChainServices, 'gateway' | 'operator' | 'calls' | 'lease'>;
  clients: ClientDirectory;
  /** Who manages an app's provider settings: members of its organization by role (docs/orgs.md). */
  appAccess: AppAccess;
  slots: SlotService;
  custody: CustodyService;
  wallets: WalletStore;
  options?: ContentOptions | undefined;
  /** The other replicas' written blocks (Redis); undefined in a single process. */
  headBroadcast?: HeadBroadcast | undefined;
  /** No other process uses this database (SQLite with the embedded chain): the batcher lease is taken over at start. */
  soleProcess: boolean;
  /** Webhook events written with the changes they report (docs/webhooks.md). */
  outbox?: WebhookOutbox | undefined;
  /** CHAIN_CONFIRMATIONS (1 by default): how deep a change found again after a crash must be. */
  chainConfirmations?: number | undefined;
  /** CONTENT_BATCHES_IN_FLIGHT: consumption batches out at a time (the batcher's default when unset). */
  batchesInFlight?: number | undefined;
}

/** How this process's content domain shares the database and the chain with other replicas. */
export function contentReplicaOf(deps: {
  config: Pick<Config, 'publicUrl' | 'databaseUrl' | 'chainConfirmations'> &
    Partial<Pick<Config, 'contentBatchesInFlight'>>;
  redis: Redis | undefined;
  /** Keeps the head channel of a test's PostgreSQL schema apart from the others. */
  pgSchema: string | undefined;
  chain: Pick<ChainServices, 'embedded'>;
}): Pick<ContentDeps, 'headBroadcast' | 'soleProcess' | 'chainConfirmations' | 'batchesInFlight'> {
  const { config, redis } = deps;
  return {
    // Read-your-writes across replicas: each replica tells the others the blocks its writes landed in.
    headBroadcast: redis
      ? new RedisChainHeadBus(redis, chainHeadChannel(`${config.publicUrl}|${deps.pgSchema ?? ''}`))
      : undefined,
    // The embedded chain's DATA_DIR lock admits one process, and SQLite lives in that DATA_DIR; PostgreSQL
    // may be shared by replicas, whose batcher leases must expire as before.
    soleProcess: deps.chain.embedded !== undefined && !config.databaseUrl,
    chainConfirmations: config.chainConfirmations,
    batchesInFlight: config.contentBatchesInFlight,
  };
}

/** Wires content tokens (docs/content-tokens.md) from their stores, the DauthContentToken gateway and the other domains. */
export function createContentServices(deps: ContentDeps): ContentServices {
  const logger = deps.logger.child({ component: 'content' });
  const options = deps.options ?? {};
  const providerStore = new ContentProviderStore(deps.db);
  const ledger = new ContentLedgerStore(deps.db, deps.outbox);
  // The gateway speaks the chain layer's types; this line is where it is checked against the port.
  const chain: ContentTokenChain = new ContentTokenGateway(
    deps.chain.gateway,
    deps.chain.operator,
    deps.chain.calls,
  );
  // The same reads serve the recovery of chain-only events (their port is a part of the content one).
  const finder: ChainEventFinder = chain;
  // Events of changes made on chain only (a purchase, a release): an intent before the write (docs/webhooks.md).
  const events =
    deps.outbox &&
    new ChainEventIntents(new WebhookIntentStore(deps.db, deps.outbox), finder, logger, {
      soleProcess: deps.soleProcess,
      confirmations: deps.chainConfirmations ?? 1,
      ...options.eventIntents,
    });
  const slots = slotDirectoryOf(deps.slots);
  const watch = new ChainWatch(chain, logger, options.headPollMs ?? 100);
  const directory = new ProviderDirectory(providerStore);
  const keyring = new ProviderKeyring(providerStore, deps.secretBox);
  const reader = new SlotBalanceReader(chain, watch);
  const providers = new ProviderService(
    providerStore,
    directory,
    keyring,
    deps.clients,
    chain,
    logger,
    deps.appAccess,
  );
  const consumption = new ConsumptionService(
    keyring,
    directory,
    slots,
    ledger,
    chain,
    watch,
    undefined,
    logger,
    options.consumption,
  );
  const lease = deps.chain.lease;
  const batcher = new UsageBatcher(ledger, new LeaseStore(deps.db), chain, watch, consumption, logger, {
    soleProcess: deps.soleProcess,
    ...(lease ? { maySend: () => lease.held } : {}),
    ...(deps.batchesInFlight !== undefined ? { batchesInFlight: deps.batchesInFlight } : {}),
    ...options.batcher,
  });
  consumption.attachBatcher(batcher);
  const purchases = new PurchaseService(
    directory,
    slots,
    new MainWalletPayments(deps.custody, deps.wallets),
    chain,
    ledger,
    watch,
    logger,
    events,
  );
  const settlement = new SettlementService(
    directory,
    providers,
    chain,
    watch,
    logger,
    providerStore,
    (cuid) => ledger.slotsOf(cuid),
    options.settlement,
    events,
  );
  const balances = new BalanceQueryService(reader, directory, providerStore, slots);
  let keyTimer: NodeJS.Timeout | undefined;

  return {
    providers,
    consumption,
    balances,
    purchases,
    settlement,
    directory,
    batcher,
    queuedRecords: () => ledger.countByState('queued'),
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
      if (deps.headBroadcast) watch.listen(deps.headBroadcast);
      watch.start();
      await watch.poll().catch(() => undefined);
      batcher.start();
      events?.start();
    },
    async close() {
      if (keyTimer) clearInterval(keyTimer);
      watch.stop();
      await events?.close();
      await batcher.stop();
    },
  };
}

interface SlotLike {
  id: string;
  clientId: string;
  ownerUuid: number;
  contentAddress: SlotView['contentAddress'];
}

const view = (s: SlotLike | undefined): SlotView | undefined =>
  s && { id: s.id, clientId: s.clientId, ownerUuid: s.ownerUuid, contentAddress: s.contentAddress };

/** The content port over the slot service: confirmed slots only (`findSlot` leaves out slots still being created). */
export function slotDirectoryOf(
  slots: Pick<SlotService, 'findSlot' | 'findByContentAddress'>,
): SlotDirectory {
  return {
    findById: async (id) => view(await slots.findSlot(id)),
    findByContentAddress: async (address) => view(await slots.findByContentAddress(address)),
  };
}
