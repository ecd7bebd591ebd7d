import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { ChainOwnerLock } from '../chain/chainOwnerLock.js';
import type { Db } from '../db/database.js';
import { ChainConsistencyCheck } from '../services/chainConsistency/chainConsistencyCheck.js';
import { FundsWatch } from '../services/funds/fundsWatch.js';
import { PlatformFunding } from '../services/funds/platformFunding.js';
import { ChainBeliefStore } from '../stores/chainBeliefStore.js';
import {
  ChainNotReadyError,
  type ChainServices,
  type ChainServicesOptions,
  createChainServices,
} from './chain.js';
import { chainFactsOf } from './chainFacts.js';
import type { Services } from './index.js';
import type { StartupProgress } from './startupProgress.js';

export interface ChainDomain {
  chain: ChainServices;
  /** The paymaster deposit and relayer balance against LOW_FUNDS_*. */
  funds: FundsWatch;
  /** The admin's faucet (chain 31337) and the refill of the paymaster deposit, operator and relayers. */
  funding: PlatformFunding;
  /** Stops the embedded chain (before the database closes). */
  close(): Promise<void>;
}

/**
 * Starts the chain layer (the embedded chain deploys on its first start) and adds what `/readyz` reports
 * of it: the node, fees above MAX_FEE_PER_GAS, RPC endpoints down, the bundler, low funds.
 */
export async function createChainDomain(deps: {
  config: Config;
  logger: Logger;
  db: Db;
  startup: StartupProgress;
  chainLock: ChainOwnerLock | undefined;
  options: ChainServicesOptions | undefined;
  /** Where the chain's checks are added. */
  readinessProbes: Services['readinessProbes'];
}): Promise<ChainDomain> {
  const { config, logger, startup, chainLock, readinessProbes } = deps;
  startup.begin('chain');
  const chain = await createChainServices(
    config,
    { logger, db: deps.db, startup, ...(chainLock ? { chainLock } : {}) },
    deps.options,
  );
  startup.done('chain');
  readinessProbes.chain = () => chain.probe();
  // Fees above MAX_FEE_PER_GAS: transactions wait for the base fee to fall (docs/chain.md, "Fees").
  readinessProbes.chain_fees = async () => {
    const capped = chain.fees.detail;
    return capped ? { degraded: capped } : 'ok';
  };
  const lease = chain.lease;
  if (lease) {
    // Another process holds this REPLICA_ID: this one sends nothing, so the balancer should send it nothing.
    readinessProbes.replica_lease = async () => {
      const fenced = lease.detail;
      if (fenced) throw new ChainNotReadyError(fenced);
      return 'ok';
    };
  }
  const probeEndpoints = chain.probeEndpoints;
  if (probeEndpoints) {
    // Failover keeps the service answering; an endpoint down is for the operator to see (degraded).
    readinessProbes.chain_rpc = async () => {
      const down = (await probeEndpoints()).filter((e) => !e.up);
      if (down.length === 0) return 'ok';
      return { degraded: down.map((e) => `${e.name} down (${e.reason ?? 'unknown'})`).join('; ') };
    };
  }

  const probeBundler = chain.probeBundler;
  if (probeBundler) {
    // BUNDLER_RPC_URL down: user wallets' operations answer 503 until it is back; the rest works (degraded).
    readinessProbes.bundler = async () =>
      probeBundler().then(
        () => 'ok',
        () => ({ degraded: 'the bundler at BUNDLER_RPC_URL does not answer' }),
      );
  }

  // Low funds: `/readyz` degraded, a warning, and on the embedded chain an automatic refill from the deployer.
  const funds = new FundsWatch(
    {
      paymasterDeposit: () => chain.gateway.paymasterDeposit(),
      relayerBalance: () => chain.gateway.nativeBalance(chain.telemetry.relayerAddress),
    },
    config.lowFunds,
    logger,
    chain.embedded
      ? {
          paymasterDeposit: (wei) => chain.faucet.depositForPaymaster(wei),
          relayer: (wei) => chain.faucet.sendNative(chain.telemetry.relayerAddress, wei),
        }
      : undefined,
  );
  readinessProbes.funds = async () => {
    const report = await funds.check();
    return report.low.length > 0 ? { degraded: report.detail } : report.detail;
  };
  const funding = new PlatformFunding(chain.faucet, chain.gateway, {
    operator: chain.operator.address,
    relayers: chain.telemetry.relayerAddresses,
    ownRelayer: chain.telemetry.relayerAddress,
  });
  return { chain, funds, funding, close: () => chain.close() };
}

/**
 * After the journal recovery (the content domain's start): what the database believes is checked against
 * the chain in the background, its progress on `/readyz`.
 */
export function startChainConsistency(deps: {
  db: Db;
  chain: ChainServices;
  logger: Logger;
  readinessProbes: Services['readinessProbes'];
}): ChainConsistencyCheck {
  const { logger } = deps;
  const chainConsistency = new ChainConsistencyCheck(
    new ChainBeliefStore(deps.db),
    chainFactsOf(deps.chain.gateway),
    logger,
  );
  void chainConsistency.run().catch((err: unknown) => logger.warn({ err }, 'chain consistency check failed'));
  deps.readinessProbes.chain_consistency = async () => chainConsistency.detail;
  return chainConsistency;
}
