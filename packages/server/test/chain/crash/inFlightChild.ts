/**
 * The crashing side of bundlesInFlight.test.ts: the chain layer on an external anvil (CHAIN_RPC_URL) with
 * a SQLite file in DATA_DIR, which holds the chain's blocks, submits IN_FLIGHT_OPERATIONS first operations of
 * as many fresh wallets (bundles of 5, up to 8 bundles in flight), and prints `in_flight` once every one of
 * them is in a bundle transaction in the node's pool. The parent SIGKILLs it there: several bundles are in
 * flight on consecutive relayer nonces, none mined.
 */
import path from 'node:path';
import { handleOpsAbi } from '@dauth/contracts';
import pino from 'pino';
import { decodeFunctionData } from 'viem';
import { createChainServices } from '../../../src/composition/chain.js';
import { loadConfig } from '../../../src/config.js';
import { openDatabase } from '../../../src/db/database.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { randomOwner } from '../chainTestHelpers.js';
import { nodeClientOf } from '../faults/faultNode.js';

const emit = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);
const env = process.env as Record<string, string>;
const count = Number(env.IN_FLIGHT_OPERATIONS ?? 20);

const config = loadConfig(env);
const database = openDatabase({ sqlitePath: path.join(config.dataDir, 'dauth.sqlite') });
await migrateToLatest(database.db);
const chain = await createChainServices(
  config,
  { logger: pino({ level: 'silent' }), db: database.db },
  { bundler: { maxOpsPerBundle: 5, bundlesInFlight: 8 } },
);

// The paymaster's deposit, from anvil's first account while the node still mines at once.
const node = nodeClientOf(env.CHAIN_RPC_URL!);
await node.depositForPaymaster(chain);
// From here nothing is mined: every bundle stays in flight.
await node.intervalMining(0);
emit({ step: 'ready', contracts: chain.info.contracts, relayer: chain.telemetry.relayerAddress });

const owners = Array.from({ length: count }, () => randomOwner());
for (const owner of owners) emit({ step: 'op', wallet: chain.gateway.walletAddress(owner.address, 0n) });
for (const owner of owners) {
  void chain.operations
    .submitOperation({ owner, salt: 0n, calls: [chain.calls.nativeTransfer(owner.address, 0n)] })
    .catch(() => undefined);
}

// Until the relayer's transactions in the pool carry every operation.
for (;;) {
  const own = await node.pending(chain.telemetry.relayerAddress);
  const carried = own.reduce(
    (sum, tx) => sum + decodeFunctionData({ abi: handleOpsAbi, data: tx.input }).args[0].length,
    0,
  );
  if (carried === count) {
    emit({ step: 'in_flight', transactions: own.length, nonces: own.map((tx) => tx.nonce) });
    break;
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
}
// Wait for the kill.
await new Promise(() => undefined);
