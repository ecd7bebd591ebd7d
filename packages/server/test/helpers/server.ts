import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getFreePort } from '@dauth/contracts';
import pino from 'pino';
import type { ChainServicesOptions } from '../../src/composition/chain.js';
import type { ContentOptions } from '../../src/composition/content.js';
import { type Config, loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createPgSchema } from './databases.js';
import { TEST_DATABASE_URL } from './environment.js';

export interface TestServer extends RunningServer {
  config: Config;
  dataDir: string;
}

export interface TestServerOptions {
  env?: Record<string, string>;
  /** Run against PostgreSQL (a fresh schema) instead of SQLite. */
  postgres?: boolean;
  /** With `postgres`: this existing schema instead of a fresh one, left in place on close (restart tests). */
  pgSchemaName?: string;
  /** Reuse a data directory (restart tests). */
  dataDir?: string;
  /** Chain layer tuning (bundling, embedded chain state interval). */
  chain?: ChainServicesOptions;
  /** Content-token tuning (the head poll interval, batching). */
  content?: ContentOptions;
  /** The service's logger (a test that reads what is logged); a silent pino otherwise. */
  logger?: pino.Logger;
}

/**
 * A real dauth listening on a free loopback port with its own data directory: SQLite and the
 * embedded chain by default, PostgreSQL when asked.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-test-'));
  const pgSchema = !options.postgres
    ? undefined
    : options.pgSchemaName !== undefined
      ? { schema: options.pgSchemaName, drop: async () => undefined }
      : await createPgSchema();
  const port = await freePort();
  const env: Record<string, string> = {
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    // Production's 2^17 costs over a second per sign-in on a shared CI core; suites that test the
    // cost itself set SCRYPT_LOG_N back (test/accounts/passwordHashing.test.ts).
    SCRYPT_LOG_N: '14',
    // Suites sign dozens of users in from one loopback address; the per-address sign-in limit is
    // tested on its own (test/accounts/loginRateLimit.test.ts passes RATE_LIMITS itself).
    RATE_LIMITS: 'login_address=1000/1m',
    ...(pgSchema
      ? {
          DATABASE_URL: TEST_DATABASE_URL,
          MASTER_KEY: 'ab'.repeat(32),
          ADMIN_API_KEY: 'test-admin-key-0123456789',
          // The suites' app backends listen on loopback; production refuses such callback targets.
          CALLBACK_ALLOW_PRIVATE: 'true',
        }
      : {}),
    ...options.env,
  };
  const config = loadConfig(env);
  const server = await startServer(config, {
    logger: options.logger ?? pino({ level: env.LOG_LEVEL ?? 'silent' }),
    ...(pgSchema ? { pgSchema: pgSchema.schema } : {}),
    ...(options.chain ? { chain: options.chain } : {}),
    ...(options.content ? { content: options.content } : {}),
  });
  return {
    ...server,
    config,
    dataDir,
    close: async () => {
      await server.close();
      await pgSchema?.drop();
    },
  };
}

/** A port that was free a moment ago, so PUBLIC_URL (the token issuer) can name it before start. */
export const freePort = (): Promise<number> => getFreePort('127.0.0.1');
