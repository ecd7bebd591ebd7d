import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { generatePrivateKey } from 'viem/accounts';
import { type ChainServices, type ChainServicesOptions, createChainServices } from '../../src/chain/chainServices.js';
import { ownerFromPrivateKey, type OperationOwner } from '../../src/chain/operations/operationOwner.js';
import { loadConfig } from '../../src/config.js';
import { type DatabaseHandle, openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';

export interface TestChain {
  chain: ChainServices;
  dataDir: string;
  database: DatabaseHandle;
  close(): Promise<void>;
}

const silent = pino({ level: 'silent' });

/** The chain layer alone on an embedded anvil in a fresh DATA_DIR (or `env` for an external node). */
export async function startTestChain(
  options: ChainServicesOptions & { env?: Record<string, string>; dataDir?: string } = {},
): Promise<TestChain> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-chain-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...options.env });
  const database = openDatabase({ sqlitePath: ':memory:' });
  await migrateToLatest(database.db);
  const chain = await createChainServices(config, { logger: silent, db: database.db }, options);
  return {
    chain,
    dataDir,
    database,
    close: async () => {
      await chain.close();
      await database.close();
    },
  };
}

/** A fresh random owner EOA. */
export function randomOwner(): OperationOwner {
  return ownerFromPrivateKey(Buffer.from(generatePrivateKey().slice(2), 'hex'));
}
