import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type AnvilInstance, startAnvil } from '@dauth/contracts';
import pino from 'pino';
import { generatePrivateKey } from 'viem/accounts';
import type { ChainServicesOptions } from '../../src/composition/chain.js';
import type { ContentOptions } from '../../src/composition/content.js';
import { EMBEDDED_CHAIN_KEYS } from '../../src/chain/devAccounts.js';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createPgSchema } from '../helpers/databases.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../helpers/environment.js';
import { freePort } from '../helpers/server.js';

export const REPLICA_ADMIN_KEY = 'replica-admin-key-0123456789';

export interface Replicas {
  node: AnvilInstance;
  servers: RunningServer[];
  /** The fresh relayer keys, one per replica (RELAYER_PRIVATE_KEYS, REPLICA_ID = index). */
  relayerKeys: `0x${string}`[];
  /** Each replica's environment (a test may start another process as one of them). */
  envs: Record<string, string>[];
  /** The PostgreSQL schema they share. */
  pgSchema: string;
  /** `POST /v1/admin/funding` through replica `via`. */
  fund(via: number, body: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

/**
 * `count` dauth replicas as an operator runs them: one PostgreSQL schema, one external anvil (chain 31337,
 * reached through CHAIN_RPC_URL), optionally one Redis, each replica with its own fresh relayer key from one
 * RELAYER_PRIVATE_KEYS list. The first replica deploys (DEPLOYER_PRIVATE_KEY), the others reuse the record.
 * Nothing is funded: the relayers and the paymaster deposit are empty until `fund`.
 */
export async function startReplicas(options: {
  count: number;
  redis?: boolean;
  chain?: ChainServicesOptions;
  content?: ContentOptions;
  env?: Record<string, string>;
}): Promise<Replicas> {
  const node = await startAnvil();
  const schema = await createPgSchema();
  const relayerKeys = Array.from({ length: options.count }, () => generatePrivateKey());
  const publicPort = await freePort();
  const servers: RunningServer[] = [];
  const envs: Record<string, string>[] = [];
  const dirs: string[] = [];
  const close = async () => {
    for (const s of servers) await s.close().catch(() => undefined);
    await node.stop();
    await schema.drop();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < options.count; i++) {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-replica-'));
      dirs.push(dataDir);
      const env: Record<string, string> = {
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
        PUBLIC_URL: `http://127.0.0.1:${publicPort}`,
        DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        SCRYPT_LOG_N: '14',
        RATE_LIMITS: 'login_address=1000/1m',
        DATABASE_URL: TEST_DATABASE_URL,
        MASTER_KEY: 'cd'.repeat(32),
        ADMIN_API_KEY: REPLICA_ADMIN_KEY,
        CALLBACK_ALLOW_PRIVATE: 'true',
        CHAIN_RPC_URL: node.rpcUrl,
        DEPLOYER_PRIVATE_KEY: EMBEDDED_CHAIN_KEYS.deployer,
        PAYMASTER_SIGNER_PRIVATE_KEY: EMBEDDED_CHAIN_KEYS.paymasterSigner,
        OPERATOR_OWNER_PRIVATE_KEY: EMBEDDED_CHAIN_KEYS.operatorOwner,
        RELAYER_PRIVATE_KEYS: relayerKeys.join(','),
        REPLICA_ID: String(i),
        ...(options.redis ? { REDIS_URL: TEST_REDIS_URL } : {}),
        ...options.env,
      };
      envs.push(env);
      servers.push(
        await startServer(loadConfig(env), {
          logger: pino({ level: 'silent' }),
          pgSchema: schema.schema,
          ...(options.chain ? { chain: options.chain } : {}),
          ...(options.content ? { content: options.content } : {}),
        }),
      );
    }
  } catch (err) {
    await close();
    throw err;
  }
  return {
    node,
    servers,
    relayerKeys,
    envs,
    pgSchema: schema.schema,
    fund: (via, body) =>
      fetch(`${servers[via]!.url}/v1/admin/funding`, {
        method: 'POST',
        headers: { authorization: `Bearer ${REPLICA_ADMIN_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    close,
  };
}
