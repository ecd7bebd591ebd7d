import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import {
  currentProcess,
  DEFAULT_REPLICA_LEASE_TTL_MS,
  ReplicaLease,
  type ReplicaLeaseOptions,
} from '../services/replicas/replicaLease.js';
import { LeaseStore } from '../stores/leaseStore.js';

/**
 * Takes this replica's lease on an external chain before anything is sent (docs/chain.md, "One process per
 * replica"); throws `ReplicaInUseError` when another live process holds it. The embedded chain needs none:
 * it belongs to one DATA_DIR, whose lock already refuses a second process.
 */
export async function takeReplicaLease(deps: {
  config: Config;
  db: Db;
  chainId: number;
  logger: Logger;
  options?: Partial<ReplicaLeaseOptions>;
}): Promise<ReplicaLease> {
  const { config, logger } = deps;
  const lease = new ReplicaLease(
    new LeaseStore(deps.db),
    deps.chainId,
    config.relayers?.index ?? 0,
    currentProcess(config.dataDir),
    logger,
    { ttlMs: DEFAULT_REPLICA_LEASE_TTL_MS, ...deps.options },
  );
  await lease.acquire();
  return lease;
}
