/**
 * The crashing side of bundlesInFlight.test.ts: the chain layer on an external anvil (CHAIN_RPC_URL) with
 * a SQLite file in DATA_DIR, which holds the chain's blocks, submits IN_FLIGHT_OPERATIONS first operations of
 * as many fresh wallets (bundles of 5, up to 8 bundles in flight), and prints `in_flight` once every one of
 * them is in a bundle transaction in the node's pool. The parent SIGKILLs it there: several bundles are in
 * flight on consecutive relayer nonces, none mined.
 */
import path from 'node:path';
import { entryPointAbi, handleOpsAbi } from '@dauth/contracts';
import pino from 'pino';
import { createPublicClient, createWalletClient, decodeFunctionData, http, parseEther, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_DEV_KEYS } from '../../../src/chain/devAccounts.js';
import { createChainServices } from '../../../src/composition/chain.js';
import { loadConfig } from '../../../src/config.js';
import { openDatabase } from '../../../src/db/database.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { randomOwner } from '../chainTestHelpers.js';

const emit = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);
const env = process.env as Record<string, string>;
const count = Number(env.IN_FLIGHT_OPERATIONS ?? 20);
const rpcUrl = env.CHAIN_RPC_URL!;

const config = loadConfig(env);
const database = openDatabase({ sqlitePath: path.join(config.dataDir, 'dauth.sqlite') });
await migrateToLatest(database.db);
const chain = await createChainServices(
  config,
  { logger: pino({ level: 'silent' }), db: database.db },
  { bundler: { maxOpsPerBundle: 5, bundlesInFlight: 8 } },
);

// The paymaster's deposit, from anvil's first account while the node still mines at once.
const reader = createPublicClient({ transport: http(rpcUrl) });
const bank = createWalletClient({ account: privateKeyToAccount(ANVIL_DEV_KEYS[0]), transport: http(rpcUrl) });
const deposit = await bank.writeContract({
  chain: null,
  address: chain.info.contracts.entry_point,
  abi: entryPointAbi,
  functionName: 'depositTo',
  args: [chain.info.contracts.paymaster],
  value: parseEther('10'),
});
await reader.waitForTransactionReceipt({ hash: deposit, pollingInterval: 50 });

let id = 0;
const rpc = async (method: string, params: unknown[] = []): Promise<unknown> => {
  const response = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
  });
  const answer = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
  return answer.result;
};
// From here nothing is mined: every bundle stays in flight.
await rpc('evm_setAutomine', [false]);
await rpc('evm_setIntervalMining', [0]);
emit({ step: 'ready', contracts: chain.info.contracts, relayer: chain.telemetry.relayerAddress });

const owners = Array.from({ length: count }, () => randomOwner());
for (const owner of owners) emit({ step: 'op', wallet: chain.gateway.walletAddress(owner.address, 0n) });
for (const owner of owners) {
  void chain.operations
    .submitOperation({ owner, salt: 0n, calls: [chain.calls.nativeTransfer(owner.address, 0n)] })
    .catch(() => undefined);
}

// Until the relayer's transactions in the pool carry every operation.
const relayer = chain.telemetry.relayerAddress.toLowerCase();
for (;;) {
  type Pool = Record<string, Record<string, { input: Hex; nonce: string }>>;
  const content = (await rpc('txpool_content')) as { pending: Pool; queued?: Pool };
  const own = [content.pending, content.queued ?? {}].flatMap((pool) =>
    Object.entries(pool)
      .filter(([address]) => address.toLowerCase() === relayer)
      .flatMap(([, byNonce]) => Object.values(byNonce)),
  );
  const carried = own.reduce(
    (sum, tx) => sum + decodeFunctionData({ abi: handleOpsAbi, data: tx.input }).args[0].length,
    0,
  );
  if (carried === count) {
    emit({ step: 'in_flight', transactions: own.length, nonces: own.map((tx) => Number(tx.nonce)) });
    break;
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
}
// Wait for the kill.
await new Promise(() => undefined);
