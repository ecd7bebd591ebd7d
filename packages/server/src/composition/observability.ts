import type { ServiceMetrics } from '../observability/metrics.js';
import type { DatabaseHandle } from '../db/database.js';
import type { ChainServices } from './chain.js';
import type { ContentServices } from './content.js';
import type { RevocationRegistry } from '../services/oauth/revocationRegistry.js';
import type { SponsorshipReport } from '../services/sponsorship/sponsorshipReport.js';
import type { SponsorshipObserver } from '../chain/operations/sponsorshipPolicy.js';
import type { Logger } from 'pino';
import type { Services } from './index.js';

/** `promise`, or a rejection after `ms` (a hanging dependency reads as failing, not as a hung scrape). */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Wei as a float of ether: Prometheus samples are doubles, and alert thresholds read better in ether. */
export function weiToEther(wei: bigint): number {
  return Number(wei) / 1e18;
}

/**
 * Wires the domain's gauges and counters into `/metrics` (docs/operations.md lists them). Services expose
 * plain readings and observer hooks; only this file and observability/ know about Prometheus.
 */
export function registerDomainMetrics(
  metrics: ServiceMetrics,
  parts: {
    database: DatabaseHandle;
    chain: Pick<ChainServices, 'gateway' | 'telemetry' | 'fees'>;
    content: Pick<ContentServices, 'batcher' | 'queuedRecords'>;
    queues: { scrypt: { queued: number }; pbkdf2: { queued: number } };
    revocations: RevocationRegistry;
    sponsorship: Pick<SponsorshipReport, 'platformOn'>;
    config: { sponsorship: { platformDailyGas: number } };
    readinessProbes: Services['readinessProbes'];
  },
): void {
  const { chain, content, queues, revocations, database, sponsorship } = parts;
  // Counters and sizes exist from the start, so alert rules and the dashboard find them on every replica.
  metrics.declareCount('dauth_operations_total', 'Operations included on chain in a mined bundle');
  metrics.declareCount('dauth_bundles_failed_total', 'Bundle transactions dropped or reverted as a whole', [
    'kind',
  ]);
  metrics.declareCount(
    'dauth_operation_reverts_total',
    'Included operations whose call reverted, by revert name',
    ['reason'],
  );
  metrics.declareCount(
    'dauth_sponsorship_refused_total',
    'Operations refused by the gas sponsorship policy (this replica), by limit',
    ['limit'],
  );
  metrics.declareSize('dauth_bundle_operations', 'Operations per mined bundle');
  metrics.declareSize('dauth_consumption_batch_records', 'Consumption records per batch recorded on chain');
  const journalLost =
    'Journaled transactions the chain had lost (a reorg, a node restarted from older state), found to be given back';
  const journalUnrecoverable = 'Transactions the chain had confirmed, lost, and that could not be given back';
  const reorgs = 'Reorgs that replaced blocks holding journaled transactions';
  metrics.declareCount('dauth_chain_journal_lost_total', journalLost);
  metrics.declareCount('dauth_chain_journal_unrecoverable_total', journalUnrecoverable);
  metrics.declareCount('dauth_chain_reorgs_total', reorgs);
  chain.telemetry.observeJournal({
    lost: (count) => metrics.count('dauth_chain_journal_lost_total', journalLost, {}, count),
    unrecoverable: () => metrics.count('dauth_chain_journal_unrecoverable_total', journalUnrecoverable),
    reorg: () => metrics.count('dauth_chain_reorgs_total', reorgs),
  });
  // `/readyz`'s checks, run once per scrape for both gauges (docs/operations.md, "Alerts").
  let checks: Promise<Map<string, 'ok' | 'degraded' | 'failed'>> | undefined;
  const readChecks = () => {
    checks ??= (async () => {
      const probes = Object.entries(parts.readinessProbes);
      const results = await Promise.allSettled(probes.map(([, probe]) => withTimeout(probe(), 5_000)));
      return new Map(
        probes.map(([name], i) => {
          const r = results[i]!;
          if (r.status === 'rejected') return [name, 'failed' as const];
          const degraded = typeof r.value === 'object' && r.value !== null && 'degraded' in r.value;
          return [name, degraded ? ('degraded' as const) : ('ok' as const)];
        }),
      );
    })().finally(() => setTimeout(() => (checks = undefined), 100).unref());
    return checks;
  };
  metrics.gauge({
    name: 'dauth_readiness_check',
    help: 'Each /readyz check: 1 when it answers (or is only degraded), 0 when it fails',
    label: 'check',
    read: async () =>
      new Map([...(await readChecks())].map(([name, state]) => [name, state === 'failed' ? 0 : 1])),
  });
  metrics.gauge({
    name: 'dauth_readiness_degraded',
    help: 'Each /readyz check: 1 while it answers degraded (low funds, a capped fee, …), else 0',
    label: 'check',
    read: async () =>
      new Map([...(await readChecks())].map(([name, state]) => [name, state === 'degraded' ? 1 : 0])),
  });
  metrics.gauge({
    name: 'dauth_sponsorship_platform_gas_limit',
    help: 'SPONSOR_PLATFORM_DAILY_GAS: the platform-wide daily sponsorship cap (gas)',
    read: () => parts.config.sponsorship.platformDailyGas,
  });
  chain.telemetry.observeBundles({
    bundleMined: (size) => {
      metrics.observeSize('dauth_bundle_operations', 'Operations per mined bundle', size);
      metrics.count('dauth_operations_total', 'Operations included on chain in a mined bundle', {}, size);
    },
    bundleFailed: (kind) =>
      metrics.count('dauth_bundles_failed_total', 'Bundle transactions dropped or reverted as a whole', {
        kind,
      }),
    operationReverted: (reason) =>
      metrics.count(
        'dauth_operation_reverts_total',
        'Included operations whose call reverted, by revert name',
        {
          reason,
        },
      ),
  });
  content.batcher.onBatch = (records) =>
    metrics.observeSize(
      'dauth_consumption_batch_records',
      'Consumption records per batch recorded on chain',
      records,
    );

  metrics.gauge({
    name: 'dauth_bundler_queue_depth',
    help: 'Signed operations waiting for a bundle',
    read: () => chain.telemetry.queuedOperations(),
  });
  // Labelled with this replica's relayer address: with RELAYER_PRIVATE_KEYS each replica pays from its own.
  const relayer = chain.telemetry.relayerAddress;
  metrics.gauge({
    name: 'dauth_relayer_balance_ether',
    help: "Native balance of this replica's relayer account, which pays for the gas of its bundles",
    label: 'relayer',
    read: async () =>
      new Map([[relayer, weiToEther(await chain.gateway.nativeBalance(chain.telemetry.relayerAddress))]]),
  });
  metrics.gauge({
    name: 'dauth_relayer_nonce_gap',
    help: "This replica's relayer transactions sent and not yet mined (pending nonce minus latest nonce)",
    label: 'relayer',
    read: async () => new Map([[relayer, await chain.telemetry.relayerNonceGap()]]),
  });
  metrics.gauge({
    name: 'dauth_chain_fee_capped',
    help: '1 while the fee the chain asks for is above MAX_FEE_PER_GAS and transactions wait, else 0',
    read: () => (chain.fees.state.capped ? 1 : 0),
  });
  metrics.gauge({
    name: 'dauth_paymaster_deposit_ether',
    help: "The paymaster's EntryPoint deposit, which pays for sponsored operations",
    read: async () => weiToEther(await chain.gateway.paymasterDeposit()),
  });
  // Read from the database at each scrape: the platform budget is shared by every replica.
  metrics.gauge({
    name: 'dauth_sponsorship_platform_gas',
    help: 'Gas sponsored today (UTC) for every user and app together, charged against SPONSOR_PLATFORM_DAILY_GAS',
    read: async () => (await sponsorship.platformOn()).gas,
  });
  metrics.gauge({
    name: 'dauth_sponsorship_platform_cap_reached',
    help: '1 once the platform-wide daily sponsorship cap refused an operation today (UTC), else 0',
    read: async () => ((await sponsorship.platformOn()).reached ? 1 : 0),
  });
  metrics.gauge({
    name: 'dauth_consumption_queue_depth',
    help: 'Accepted consumption records waiting for a batch',
    read: () => content.queuedRecords(),
  });
  metrics.gauge({
    name: 'dauth_work_queue_length',
    help: 'Key-derivation jobs waiting for a thread, by queue (scrypt passwords, pbkdf2 PIN shares)',
    label: 'queue',
    read: () =>
      new Map([
        ['scrypt', queues.scrypt.queued],
        ['pbkdf2', queues.pbkdf2.queued],
      ]),
  });
  metrics.gauge({
    name: 'dauth_revocation_bus_connected',
    help: 'Whether the revocation bus to the other replicas is connected and in sync (absent without a bus)',
    read: () => (revocations.bus ? (revocations.inSync ? 1 : 0) : undefined),
  });
  metrics.gauge({
    name: 'dauth_db_pool_connections',
    help: 'Database pool connections by state (SQLite: one connection, always in use)',
    label: 'state',
    read: () => {
      const pool = database.pool();
      return new Map([
        ['total', pool.total],
        ['idle', pool.idle],
        ['waiting', pool.waiting],
      ]);
    },
  });
}

/**
 * Counts refused sponsorships by limit (`dauth_sponsorship_refused_total`) and logs the platform cap's
 * first refusal of a UTC day once over every replica (the store tells which refusal was the first).
 */
export function sponsorshipObserver(
  metrics: ServiceMetrics,
  logger: Logger,
  platformDailyGas: number,
): SponsorshipObserver {
  return {
    refused: (limit, { day, firstOfDay }) => {
      metrics.count(
        'dauth_sponsorship_refused_total',
        'Operations refused by the gas sponsorship policy (this replica), by limit',
        { limit },
      );
      if (limit === 'platform_daily_budget' && firstOfDay) {
        logger.warn(
          { day, platformDailyGas },
          'platform sponsorship cap reached: sponsored operations are refused for everyone until 00:00 UTC',
        );
      }
    },
  };
}
