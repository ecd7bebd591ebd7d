import path from 'node:path';
import type { Logger } from 'pino';
import { privateKeyToAccount } from 'viem/accounts';
import { type Config, ownRelayerKey } from '../config.js';
import type { Db } from '../db/database.js';
import { checksumAddress, sameAddress } from '../chain/address.js';
import { createChainClient, readChainId, RPC_TIMEOUT_MS } from '../chain/chainClient.js';
import { isTransportError } from '../chain/chainErrors.js';
import { hostOf, redact, RpcFailover, type RpcEndpointStatus } from '../chain/rpcFailover.js';
import { ChainGateway } from '../chain/chainGateway.js';
import { createHeadReader } from '../chain/headReader.js';
import { ContractCalls } from '../chain/contractCalls.js';
import {
  type DeploymentRecordStore,
  FileDeploymentRecordStore,
  SettingsDeploymentRecordStore,
} from '../chain/deploymentRecord.js';
import { DEV_CHAIN_ID, EMBEDDED_CHAIN_KEYS, isWellKnownDevKey } from '../chain/devAccounts.js';
import type { ChainOwnerLock } from '../chain/chainOwnerLock.js';
import { EmbeddedChain, type EmbeddedChainOptions } from '../chain/embeddedChain.js';
import {
  assertContractsDeployed,
  EMBEDDED_FUNDING,
  ensureDeployment,
  operatorWalletOf,
} from '../chain/ensureDeployment.js';
import { Faucet } from '../chain/faucet.js';
import { FeePolicy } from '../chain/feePolicy.js';
import {
  Bundler,
  type BundlerObserver,
  type BundlerOptions,
  DEFAULT_BUNDLER_OPTIONS,
  RoutedSubmitter,
} from '../chain/operations/bundler.js';
import {
  connectExternalBundler,
  type ExternalBundler,
  type ExternalBundlerOptions,
} from '../chain/operations/externalBundler.js';
import { ownerFromAccount } from '../chain/operations/operationOwner.js';
import { replicaNonceKey } from '../chain/operations/nonceKeys.js';
import { OperationPipeline } from '../chain/operations/operationPipeline.js';
import type { ReplicaLease, ReplicaLeaseOptions } from '../services/replicas/replicaLease.js';
import { takeReplicaLease } from './replicaLease.js';
import { OperationSigner } from '../chain/operations/operationSigner.js';
import { OperatorWallet } from '../chain/operations/operatorWallet.js';
import { RelayerSubmitter, type RelayerSubmitterOptions } from '../chain/operations/relayerSubmitter.js';
import { PaymasterSponsor, type Sponsor, sponsorshipWindow } from '../chain/operations/sponsorship.js';
import type { Address, ChainInfo, ContractAddresses, Hex } from '../chain/types.js';
import { SlotSaleSigner } from '../chain/slotSales.js';
import { JournaledSender } from '../chain/journal/journaledSender.js';
import {
  DEFAULT_JOURNAL_MAINTENANCE,
  JournalMaintenance,
  type JournalMaintenanceOptions,
} from '../chain/journal/journalMaintenance.js';
import {
  type JournalObserver,
  JournalRecovery,
  type RecoveryReport,
} from '../chain/journal/journalRecovery.js';
import { NoJournal } from '../chain/journal/transactionJournal.js';
import { ChainJournalStore } from '../stores/chainJournalStore.js';
import { UserOperationJournalStore } from '../stores/userOperationJournalStore.js';
import type { StartupProgress } from './startupProgress.js';

/** The chain layer as the rest of the server sees it (`services.chain`). */
export interface ChainServices {
  info: ChainInfo;
  /** Typed reads, wallet addresses, balances. */
  gateway: ChainGateway;
  /** `submitOperation`: sponsored, bundled operations from any wallet whose owner signs. */
  operations: OperationPipeline;
  /** The platform operator wallet (dex and content-token writes). */
  operator: OperatorWallet;
  /** Builders of calls (`platform('dex', 'init_self', …)`, `erc20Transfer`, `changeOwnerCallData`). */
  calls: ContractCalls;
  /** Signs the dex's sale authorisations (`purchase`) with the platform signer. */
  sales: SlotSaleSigner;
  faucet: Faucet;
  /** The embedded anvil's lifecycle; undefined on an external chain. */
  embedded: EmbeddedChain | undefined;
  /** The durable journal of every signed transaction, its recovery and maintenance (docs/chain.md, "Durability"). */
  journal: {
    sender: JournaledSender;
    recovery: JournalRecovery;
    maintenance: JournalMaintenance;
    /** What the recovery at start did. */
    startupRecovery: RecoveryReport | undefined;
  };
  /** Readings and events for metrics and the low-funds check (composition/observability.ts). */
  telemetry: ChainTelemetry;
  /** MAX_FEE_PER_GAS and replacement pricing; `fees.detail` is `/readyz`'s `chain_fees` while capped. */
  fees: FeePolicy;
  /** Readiness: rejects with `chain_unavailable` when the node does not answer, or while a recovery runs. */
  probe(): Promise<void>;
  /** With CHAIN_RPC_URLS: asks each endpoint now; `/readyz` names the ones that are down. */
  probeEndpoints: (() => Promise<RpcEndpointStatus[]>) | undefined;
  /**
   * With BUNDLER_RPC_URL: the independent bundler's client (its user operation journal's recovery at start,
   * and on an external chain its reorg watch, `checkReorg`); undefined without.
   */
  externalBundler: ExternalBundler | undefined;
  /** With BUNDLER_RPC_URL: rejects when the external bundler does not answer (`/readyz` degraded). */
  probeBundler: (() => Promise<void>) | undefined;
  /** On an external chain: this process's claim on its REPLICA_ID (`/readyz` reports it when lost). */
  lease: ReplicaLease | undefined;
  /** Sends what is queued, gives the replica lease up, then stops the embedded chain (its state is saved). */
  close(): Promise<void>;
}

export interface ChainTelemetry {
  /** This replica's relayer: the account that pays the gas of every bundle it sends. */
  relayerAddress: Address;
  /** Every replica's relayer (RELAYER_PRIVATE_KEYS; this one's alone otherwise), for funding them all. */
  relayerAddresses: Address[];
  /** Signed operations waiting for a bundle. */
  queuedOperations(): number;
  /** Receives every bundle mined or failed and every operation revert. */
  observeBundles(observer: BundlerObserver): void;
  /** The relayer's pending nonce minus its mined one: transactions sent and not yet mined. */
  relayerNonceGap(): Promise<number>;
  /** Receives the chain journal's lost transactions and reorgs (its recovery and its reorg watch). */
  observeJournal(observer: JournalObserver): void;
}

export interface ChainServicesOptions {
  bundler?: Partial<BundlerOptions>;
  embedded?: Pick<EmbeddedChainOptions, 'stateIntervalSeconds' | 'watchdogIntervalMs'>;
  relayer?: Pick<RelayerSubmitterOptions, 'resendAfterMs' | 'outageTimeoutMs' | 'feeBumpAfterMs'>;
  /** Tuning of the external bundler's client (BUNDLER_RPC_URL). */
  externalBundler?: ExternalBundlerOptions;
  /** Replaces the platform's paymaster sponsor (tests of expired or forged sponsorship). */
  sponsor?: (defaults: { paymaster: ContractAddresses['paymaster']; chainId: number }) => Sponsor;
  /** Replaces the configured relayer keys with this one (a second pipeline on the same chain needs its own). */
  relayerKey?: Hex;
  /** `false` switches the chain journal off (benchmarks measure its cost; never in production). */
  journal?: boolean;
  /** Tuning of the replica lease on an external chain (tests shorten its TTL). */
  replicaLease?: Partial<ReplicaLeaseOptions>;
  journalMaintenance?: Partial<Omit<JournalMaintenanceOptions, 'statePath'>>;
}

/** `/readyz` shows the message of this error as the check's value (recovery progress). */
export class ChainNotReadyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChainNotReadyError';
  }
}

interface ChainKeys {
  deployer: Hex | undefined;
  relayer: Hex;
  /** Every replica's relayer key, `relayer` among them. */
  relayers: Hex[];
  paymasterSigner: Hex;
  operatorOwner: Hex;
}

/** On the embedded chain every configured relayer below this is given `EMBEDDED_RELAYER_FUNDING` at start. */
const EMBEDDED_RELAYER_MINIMUM = 10n ** 19n;
const EMBEDDED_RELAYER_FUNDING = 10n ** 20n;

/**
 * Builds the chain layer from configuration: the embedded anvil (started, contracts deployed on first start
 * and reused after) or an external node (configured keys and contracts, or a deployment with
 * DEPLOYER_PRIVATE_KEY recorded in `platform_settings`).
 */
export async function createChainServices(
  config: Config,
  deps: { logger: Logger; db: Db; startup?: StartupProgress; chainLock?: ChainOwnerLock },
  options: ChainServicesOptions = {},
): Promise<ChainServices> {
  const logger = deps.logger.child({ component: 'chain' });
  let embedded: EmbeddedChain | undefined;
  let lease: ReplicaLease | undefined;
  try {
    let rpcUrl: string;
    let failover: RpcFailover | undefined;
    let keys: ChainKeys;
    let record: DeploymentRecordStore;
    let configured: ContractAddresses | undefined;
    if (config.chain.kind === 'embedded') {
      const launched = await EmbeddedChain.launch({
        dataDir: config.dataDir,
        logger,
        // With the journal, a state file anvil cannot use and no kept dump: the chain starts anew and replays it.
        journaled: options.journal !== false,
        ...options.embedded,
        ...(deps.chainLock ? { lock: deps.chainLock } : {}),
      });
      embedded = launched.chain;
      rpcUrl = embedded.rpcUrl;
      keys = { ...EMBEDDED_CHAIN_KEYS, relayers: [EMBEDDED_CHAIN_KEYS.relayer] };
      // RELAYER_PRIVATE_KEY(S) apply to the embedded chain too; each listed key is funded below.
      if (config.relayers) {
        keys.relayer = ownRelayerKey(config.relayers);
        keys.relayers = config.relayers.all;
      }
      record = new FileDeploymentRecordStore(path.join(config.dataDir, 'chain', 'deployment.json'));
    } else {
      rpcUrl = config.chain.rpcUrl;
      if (config.chain.rpcUrls.length > 1) {
        failover = new RpcFailover(config.chain.rpcUrls, RPC_TIMEOUT_MS, (status) => {
          if (status.up) logger.info({ endpoint: status.name }, 'chain RPC endpoint answers again');
          else
            logger.warn(
              { endpoint: status.name, reason: status.reason },
              'chain RPC endpoint down; failing over',
            );
        });
      }
      keys = {
        deployer: config.chain.deployerKey,
        relayer: config.chain.relayerKey,
        relayers: config.relayers?.all ?? [config.chain.relayerKey],
        paymasterSigner: config.chain.paymasterSignerKey,
        operatorOwner: config.chain.operatorOwnerKey,
      };
      record = new SettingsDeploymentRecordStore(deps.db);
      configured = config.chain.contracts
        ? {
            entry_point: config.chain.contracts.entryPoint,
            account_factory: config.chain.contracts.accountFactory,
            paymaster: config.chain.contracts.paymaster,
            dex: config.chain.contracts.dex,
            content_token: config.chain.contracts.contentToken,
            token: config.chain.contracts.token,
          }
        : undefined;
    }
    if (options.relayerKey) {
      keys.relayer = options.relayerKey;
      keys.relayers = [options.relayerKey];
    }

    const chainId = await readChainId(failover ?? rpcUrl).catch((err: unknown) => {
      if (isTransportError(err)) throw new Error(`The chain node at ${redact(rpcUrl)} does not answer`);
      throw err;
    });
    if (failover) await refuseOtherChains(failover.urls, chainId);
    refuseDevKeysOffDevChain(chainId, keys);
    const client = createChainClient(failover ?? rpcUrl, chainId);
    // One live process per REPLICA_ID on a shared chain, taken before anything is sent (its journal's
    // recovery included): a second one would hand out this replica's nonces again.
    if (!embedded) {
      lease = await takeReplicaLease({
        config,
        db: deps.db,
        chainId,
        logger,
        ...(options.replicaLease ? { options: options.replicaLease } : {}),
      });
    }
    // Before anything is sent: give the chain back every journaled transaction it lost (a crash between two
    // state dumps of the embedded chain, an external node restored from an older state).
    const journal = options.journal === false ? new NoJournal() : new ChainJournalStore(deps.db);
    const sender = new JournaledSender(client, journal, chainId, logger);
    const deployer = keys.deployer ? privateKeyToAccount(keys.deployer) : undefined;
    const relayer = privateKeyToAccount(keys.relayer);
    // A journal in PostgreSQL may be shared with live replicas: give back only this process's own unanswered
    // transactions (the others' are in flight). The mined ones the chain lost are everyone's.
    const ownSenders = config.databaseUrl
      ? [relayer.address, ...(deployer ? [deployer.address] : [])]
      : undefined;
    const recovery = new JournalRecovery(client, sender, logger, ownSenders);
    deps.startup?.watch('chain', () => recovery.detail ?? 'starting');
    const startupRecovery = await recovery.run();
    const paymasterSigner = privateKeyToAccount(keys.paymasterSigner);
    const operatorOwner = privateKeyToAccount(keys.operatorOwner);

    const deploymentParameters = {
      client,
      rpcUrl,
      logger,
      record,
      sender,
      deployer,
      paymasterSigner: paymasterSigner.address,
      operatorOwner: operatorOwner.address,
      ...(embedded ? EMBEDDED_FUNDING : { paymasterDeposit: 0n, operatorFunding: 0n }),
      // The embedded chain mines only when sent to and never reorgs: its deployment is final at once.
      confirmations: embedded ? 1 : config.chainConfirmations,
    };
    let contracts: ContractAddresses;
    if (configured) {
      await assertContractsDeployed(client, configured);
      contracts = configured;
    } else {
      contracts = (await ensureDeployment(deploymentParameters)).contracts;
    }
    await sender.settleOutstanding();
    // Checksummed, whatever casing the configuration or the deployment used.
    contracts = Object.fromEntries(
      Object.entries(contracts).map(([name, address]) => [name, checksumAddress(address)]),
    ) as unknown as ContractAddresses;
    const { implementation, operatorWallet } = await operatorWalletOf(
      client,
      contracts.account_factory,
      operatorOwner.address,
    );

    const gateway = new ChainGateway(
      client,
      chainId,
      contracts,
      implementation,
      createHeadReader(failover ?? rpcUrl, client),
    );
    const sponsor =
      options.sponsor?.({ paymaster: contracts.paymaster, chainId }) ??
      new PaymasterSponsor(contracts.paymaster, chainId, paymasterSigner, async () =>
        sponsorshipWindow(Math.floor(Date.now() / 1000), await gateway.latestTimestamp()),
      );
    const fees = new FeePolicy(config.chainFees);
    const signer = new OperationSigner(gateway, sponsor, fees);
    const submitter = new RelayerSubmitter({
      feePolicy: fees,
      client,
      gateway,
      relayer,
      logger,
      sender,
      pollIntervalMs: embedded ? { min: 2, max: 10 } : { min: 250, max: 2_000 },
      ...(embedded ? { resendAfterMs: 2_000, feeBumpAfterMs: 3_600_000 } : {}),
      confirmations: config.chainConfirmations,
      ...options.relayer,
    });
    const block = await client.getBlock({ blockTag: 'latest' });
    const bundler = new Bundler(
      gateway,
      signer,
      submitter,
      {
        ...DEFAULT_BUNDLER_OPTIONS,
        maxOpsPerBundle: config.bundleMaxOperations,
        bundlesInFlight: config.bundlesInFlight,
        gasMarginPercent: config.bundleGasMarginPercent,
        maxBundleGas: (block.gasLimit * 9n) / 10n,
        ...options.bundler,
      },
      logger,
    );
    // BUNDLER_RPC_URL: user wallets' operations go to that bundler; the operator wallet's stay with ours
    // (docs/operations.md, "Which bundler").
    const external = config.bundlerRpcUrl
      ? await connectExternalBundler({
          url: config.bundlerRpcUrl,
          gateway,
          sponsor,
          journal: new UserOperationJournalStore(deps.db),
          logger,
          // MAX_FEE_PER_GAS holds here too: no operation is signed above it (docs/chain.md, "Fees").
          // SPONSOR_MAX_OPERATION_GAS bounds the bundler's estimate: nothing is signed above it.
          options: {
            confirmations: config.chainConfirmations,
            feePolicy: fees,
            maxOperationGas: BigInt(config.sponsorship.maxOperationGas),
            ...options.externalBundler,
          },
        })
      : undefined;
    const operations = new OperationPipeline(
      gateway,
      external
        ? new RoutedSubmitter(bundler, external, (sender) => sameAddress(sender, operatorWallet))
        : bundler,
      signer,
      // Each replica's own nonce lane for every wallet (docs/chain.md, "Nonce lanes per replica").
      replicaNonceKey(config.relayers?.index ?? 0),
      lease,
    );
    const operator = new OperatorWallet(operations, ownerFromAccount(operatorOwner));
    if (operator.address.toLowerCase() !== operatorWallet.toLowerCase()) {
      throw new Error('operator wallet address mismatch');
    }

    if (embedded) {
      const chain = embedded;
      chain.onRestart = async () => {
        // Nothing may be sent until the lost blocks are back (a send would take a journaled nonce).
        sender.pause();
        try {
          await recovery.run();
        } finally {
          sender.resume();
        }
        gateway.resetCaches();
        submitter.reset();
        bundler.resetLanes();
        // A chain that lost its state (killed before its first dump) gets the same contracts again: the
        // deployer's nonces restart at zero, so the addresses are the same.
        await ensureDeployment(deploymentParameters);
        await sender.settleOutstanding();
      };
    }
    // The deployer's grants and top-ups are followed like bundles: resent, repriced, CHAIN_CONFIRMATIONS deep.
    const deployerSubmitter = deployer
      ? new RelayerSubmitter({
          client,
          gateway,
          relayer: deployer,
          logger: logger.child({ signer: 'deployer' }),
          sender,
          feePolicy: fees,
          pollIntervalMs: embedded ? { min: 2, max: 10 } : { min: 250, max: 2_000 },
          ...(embedded ? { resendAfterMs: 2_000, feeBumpAfterMs: 3_600_000 } : {}),
          confirmations: config.chainConfirmations,
          ...options.relayer,
        })
      : undefined;
    const faucet = new Faucet(gateway, client, deployer, deployerSubmitter);
    const relayerAddresses = keys.relayers.map((key) => privateKeyToAccount(key).address);
    if (embedded) await fundEmbeddedRelayers(gateway, faucet, relayerAddresses);
    const maintenanceOptions = {
      ...DEFAULT_JOURNAL_MAINTENANCE,
      ...options.journalMaintenance,
      statePath: embedded?.statePath,
    };
    const maintenance = new JournalMaintenance(client, sender, recovery, logger, maintenanceOptions);
    await maintenance.compact();
    maintenance.start();
    // The external bundler's operations answered as done are watched for reorgs at the same cadence (the
    // embedded chain never reorgs).
    if (external && !embedded) external.watchReorgs(maintenanceOptions.reorgCheckMs);

    // The ERC-20's key is `token`, which the logger redacts everywhere (it is usually a secret): log it as `erc20`.
    const { token: erc20, ...otherContracts } = contracts;
    logger.info(
      {
        chainId,
        kind: config.chain.kind,
        contracts: { ...otherContracts, erc20 },
        operatorWallet,
        relayer: relayer.address,
      },
      'chain ready',
    );
    return {
      info: { chainId, contracts, rpcUrl: embedded ? rpcUrl : undefined, kind: config.chain.kind },
      gateway,
      operations,
      operator,
      calls: new ContractCalls(contracts),
      sales: new SlotSaleSigner(gateway, paymasterSigner),
      faucet,
      embedded,
      journal: { sender, recovery, maintenance, startupRecovery },
      fees,
      telemetry: {
        relayerAddress: relayer.address,
        relayerAddresses,
        queuedOperations: () => bundler.queued + (external?.queued ?? 0),
        observeBundles: (observer) => {
          bundler.observer = observer;
          if (external) external.observer = observer;
        },
        observeJournal: (observer) => {
          recovery.observer = observer;
          maintenance.observer = observer;
        },
        relayerNonceGap: async () => {
          const [pending, latest] = await Promise.all([
            client.getTransactionCount({ address: relayer.address, blockTag: 'pending' }),
            client.getTransactionCount({ address: relayer.address, blockTag: 'latest' }),
          ]);
          return pending - latest;
        },
      },
      probe: async () => {
        const recovering = recovery.detail;
        if (recovering) throw new ChainNotReadyError(recovering);
        await gateway.probe();
      },
      probeEndpoints: failover ? () => failover.probeAll() : undefined,
      externalBundler: external,
      probeBundler: external ? () => external.probe() : undefined,
      lease,
      close: async () => {
        await maintenance.stop();
        await Promise.all([bundler.close(), external?.close()]);
        await lease?.release();
        await embedded?.close();
      },
    };
  } catch (err) {
    await lease?.release();
    await embedded?.close();
    throw err;
  }
}

/** Every endpoint of CHAIN_RPC_URLS that answers must be on the same chain: failing over must not switch chains. */
async function refuseOtherChains(urls: string[], chainId: number): Promise<void> {
  const ids = await Promise.all(urls.map((url) => readChainId(url, 3_000).catch(() => undefined)));
  const other = ids.findIndex((id) => id !== undefined && id !== chainId);
  if (other >= 0) {
    throw new Error(
      `Refusing to start: CHAIN_RPC_URLS endpoint ${other + 1} (${hostOf(urls[other]!)}) is on chain ` +
        `${ids[other]}, the others on chain ${chainId}`,
    );
  }
}

/** Every configured relayer (all replicas' keys) gets development funds on the embedded chain. */
async function fundEmbeddedRelayers(
  gateway: ChainGateway,
  faucet: Faucet,
  relayers: Address[],
): Promise<void> {
  for (const address of relayers) {
    if ((await gateway.nativeBalance(address)) < EMBEDDED_RELAYER_MINIMUM) {
      await faucet.sendNative(address, EMBEDDED_RELAYER_FUNDING);
    }
  }
}

/** Spec decisions §1: well-known development keys are refused on any chain but 31337. */
function refuseDevKeysOffDevChain(chainId: number, keys: ChainKeys): void {
  if (chainId === DEV_CHAIN_ID) return;
  const names: Record<Exclude<keyof ChainKeys, 'relayers'>, string> = {
    deployer: 'DEPLOYER_PRIVATE_KEY',
    relayer: 'RELAYER_PRIVATE_KEY',
    paymasterSigner: 'PAYMASTER_SIGNER_PRIVATE_KEY',
    operatorOwner: 'OPERATOR_OWNER_PRIVATE_KEY',
  };
  const offending = (Object.keys(names) as (keyof typeof names)[])
    .filter((k) => {
      const key = keys[k];
      return key !== undefined && isWellKnownDevKey(key);
    })
    .map((k) => names[k]);
  // Another replica's relayer key is checked too: one replica must not start on a list another would refuse.
  if (!offending.includes(names.relayer) && keys.relayers.some((key) => isWellKnownDevKey(key))) {
    offending.push('RELAYER_PRIVATE_KEYS');
  }
  if (offending.length > 0) {
    throw new Error(
      `Refusing to start: ${offending.join(', ')} ${offending.length > 1 ? 'are' : 'is a'} ` +
        `well-known development key${offending.length > 1 ? 's' : ''}, and chain ${chainId} is not the development chain (31337)`,
    );
  }
}
