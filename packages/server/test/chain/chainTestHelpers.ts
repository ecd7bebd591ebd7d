import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { handleOpsAbi, type UserOperation } from '@dauth/contracts';
import pino from 'pino';
import { createWalletClient, decodeFunctionData, encodeErrorResult, type Hex, http, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import {
  type ChainServices,
  type ChainServicesOptions,
  createChainServices,
} from '../../src/composition/chain.js';
import { ANVIL_DEV_KEYS } from '../../src/chain/devAccounts.js';
import { ownerFromPrivateKey, type OperationOwner } from '../../src/chain/operations/operationOwner.js';
import type { ContractAddresses } from '../../src/chain/types.js';
import { loadConfig } from '../../src/config.js';
import { type DatabaseHandle, openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';

/** Fresh keys for an external-chain service (never the well-known development keys). */
export function freshKeys() {
  return {
    DEPLOYER_PRIVATE_KEY: generatePrivateKey(),
    RELAYER_PRIVATE_KEY: generatePrivateKey(),
    PAYMASTER_SIGNER_PRIVATE_KEY: generatePrivateKey(),
    OPERATOR_OWNER_PRIVATE_KEY: generatePrivateKey(),
  };
}

/** Fresh keys, the deployer and relayer given 100 ETH each by the anvil at `rpcUrl` (its development account). */
export async function fundedKeys(rpcUrl: string) {
  const keys = freshKeys();
  const bank = createWalletClient({
    account: privateKeyToAccount(ANVIL_DEV_KEYS[0]),
    transport: http(rpcUrl),
  });
  for (const key of [keys.DEPLOYER_PRIVATE_KEY, keys.RELAYER_PRIVATE_KEY]) {
    await bank.sendTransaction({
      chain: null,
      to: privateKeyToAccount(key).address,
      value: parseEther('100'),
    });
  }
  return keys;
}

export interface TestChain {
  chain: ChainServices;
  dataDir: string;
  database: DatabaseHandle;
  close(): Promise<void>;
}

const silent = pino({ level: 'silent' });

/** The chain layer alone on an embedded anvil in a fresh DATA_DIR (or `env` for an external node). */
export async function startTestChain(
  options: ChainServicesOptions & {
    env?: Record<string, string>;
    dataDir?: string;
    database?: DatabaseHandle;
  } = {},
): Promise<TestChain> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-chain-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...options.env });
  const database = options.database ?? openDatabase({ sqlitePath: ':memory:' });
  if (!options.database) await migrateToLatest(database.db);
  try {
    const chain = await createChainServices(config, { logger: silent, db: database.db }, options);
    return {
      chain,
      dataDir,
      database,
      close: async () => {
        await chain.close();
        if (!options.database) await database.close();
      },
    };
  } catch (err) {
    if (!options.database) await database.close();
    throw err;
  }
}

/** How many transactions the chain journal holds. */
export async function journalEntryCount(database: DatabaseHandle): Promise<number> {
  const row = await database.db
    .selectFrom('chain_journal')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  return Number(row?.n);
}

/**
 * A DATA_DIR with its own SQLite database, for suites that restart the chain layer on it (the journal lives in
 * the database): anvil dumps every second and the journal is compacted only when the suite asks
 * (`compactJournal`).
 */
export async function restartableChainOptions(prefix: string) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const database = openDatabase({ sqlitePath: path.join(dataDir, 'dauth.sqlite') });
  await migrateToLatest(database.db);
  return {
    dataDir,
    database,
    embedded: { stateIntervalSeconds: 1 },
    journalMaintenance: { intervalMs: 3_600_000 },
  };
}

/** Compacts the journal until it is empty: once a dump (the last good copy) holds every block it had. */
export async function compactJournal(chain: ChainServices, database: DatabaseHandle): Promise<number> {
  for (let i = 0; i < 100 && (await journalEntryCount(database)) > 0; i++) {
    await chain.journal.maintenance.compact();
    await new Promise((r) => setTimeout(r, 100));
  }
  return journalEntryCount(database);
}

/** The `CONTRACT_*` settings that point a service at an existing deployment (external chain). */
export function contractSettings(contracts: ContractAddresses): Record<string, string> {
  return {
    CONTRACT_ENTRY_POINT: contracts.entry_point,
    CONTRACT_ACCOUNT_FACTORY: contracts.account_factory,
    CONTRACT_PAYMASTER: contracts.paymaster,
    CONTRACT_DEX: contracts.dex,
    CONTRACT_CONTENT_TOKEN: contracts.content_token,
    CONTRACT_TOKEN: contracts.token,
  };
}

/** A fresh random owner EOA. */
export function randomOwner(): OperationOwner {
  return ownerFromPrivateKey(Buffer.from(generatePrivateKey().slice(2), 'hex'));
}

/** The user operations a mined `handleOps` transaction carried. */
export async function bundledOperations(
  chain: ChainServices,
  txHash: `0x${string}`,
): Promise<readonly UserOperation[]> {
  const tx = await chain.gateway.client.getTransaction({ hash: txHash });
  const decoded = decodeFunctionData({ abi: handleOpsAbi, data: tx.input });
  return decoded.args[0];
}

/** An owner that claims `claimed`'s address but signs with `actual`'s key. */
export function impostor(claimed: OperationOwner, actual: OperationOwner): OperationOwner {
  return { address: claimed.address, signUserOpHash: (hash) => actual.signUserOpHash(hash) };
}

/** The revert data of the EntryPoint's `FailedOp(opIndex, reason)`, as a node returns it. */
export const failedOpData = (reason: string, opIndex = 0n): Hex =>
  encodeErrorResult({
    abi: [
      {
        type: 'error',
        name: 'FailedOp',
        inputs: [
          { name: 'opIndex', type: 'uint256' },
          { name: 'reason', type: 'string' },
        ],
      },
    ],
    errorName: 'FailedOp',
    args: [opIndex, reason],
  });
