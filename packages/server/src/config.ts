import path from 'node:path';
import { z } from 'zod';

/**
 * The whole configuration, validated once at start. Nothing else in the server reads `process.env`:
 * the composition root passes the parts each module needs.
 */
const hex32 = z
  .string()
  .regex(/^(0x)?[0-9a-fA-F]{64}$/, 'must be 32 bytes as 64 hex characters')
  .transform((v) => v.replace(/^0x/, '').toLowerCase());

const privateKey = z
  .string()
  .regex(/^(0x)?[0-9a-fA-F]{64}$/, 'must be a private key (64 hex characters)')
  .transform((v) => (v.startsWith('0x') ? v : `0x${v}`) as `0x${string}`);

const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte address')
  .transform((v) => v as `0x${string}`);

const url = (protocols: string[]) =>
  z
    .string()
    .url('must be a URL')
    .refine((v) => protocols.includes(new URL(v).protocol), `must use ${protocols.join(' or ')}`);

const envSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  PUBLIC_URL: url(['http:', 'https:']).optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
  REDIS_URL: url(['redis:', 'rediss:']).optional(),
  SMTP_URL: url(['smtp:', 'smtps:']).optional(),
  MAIL_FROM: z.string().min(3).default('dauth <no-reply@dauth.local>'),
  MASTER_KEY: hex32.optional(),
  ADMIN_API_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  CHAIN_RPC_URL: url(['http:', 'https:', 'ws:', 'wss:']).optional(),
  DEPLOYER_PRIVATE_KEY: privateKey.optional(),
  RELAYER_PRIVATE_KEY: privateKey.optional(),
  PAYMASTER_SIGNER_PRIVATE_KEY: privateKey.optional(),
  OPERATOR_OWNER_PRIVATE_KEY: privateKey.optional(),
  CONTRACT_ENTRY_POINT: address.optional(),
  CONTRACT_ACCOUNT_FACTORY: address.optional(),
  CONTRACT_PAYMASTER: address.optional(),
  CONTRACT_DEX: address.optional(),
  CONTRACT_CONTENT_TOKEN: address.optional(),
  CONTRACT_TOKEN: address.optional(),
  PIN_SHARE_SALT: z.string().min(1).default('dauth/share_pin/v1'),
  /** libuv's thread-pool size (libuv reads it at start); PIN derivations size their concurrency to it. */
  UV_THREADPOOL_SIZE: z.coerce.number().int().min(1).max(1024).default(4),
  /** Requests per minute per client and address at /oauth/token, /oauth/revoke and /oauth/introspect. */
  OAUTH_RATE_LIMIT: z.coerce.number().int().min(1).default(1200),
  TRUST_PROXY: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
});

export type Env = z.input<typeof envSchema>;

export interface ChainContracts {
  entryPoint: `0x${string}`;
  accountFactory: `0x${string}`;
  paymaster: `0x${string}`;
  dex: `0x${string}`;
  contentToken: `0x${string}`;
  token: `0x${string}`;
}

export interface Config {
  host: string;
  port: number;
  publicUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  smtpUrl: string | undefined;
  mailFrom: string;
  /** Undefined only before `ensureSecrets` fills it from DATA_DIR in the embedded default. */
  masterKey: string | undefined;
  adminApiKey: string | undefined;
  logLevel: string;
  trustProxy: boolean;
  pinShareSalt: string;
  /** libuv thread-pool threads (UV_THREADPOOL_SIZE: `npm start` sets the core count, else libuv's 4). */
  threadPoolSize: number;
  oauthRateLimit: number;
  chain:
    | { kind: 'embedded' }
    | {
        kind: 'external';
        rpcUrl: string;
        deployerKey: `0x${string}` | undefined;
        relayerKey: `0x${string}`;
        paymasterSignerKey: `0x${string}`;
        operatorOwnerKey: `0x${string}`;
        contracts: ChainContracts | undefined;
      };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses the environment into a `Config`, or throws a `ConfigError` listing every bad value. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  // Empty strings mean "unset": shells and .env files produce them easily.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  const e = parsed.data;
  const problems: string[] = [];
  let chain: Config['chain'] = { kind: 'embedded' };
  if (e.CHAIN_RPC_URL) {
    const required = {
      RELAYER_PRIVATE_KEY: e.RELAYER_PRIVATE_KEY,
      PAYMASTER_SIGNER_PRIVATE_KEY: e.PAYMASTER_SIGNER_PRIVATE_KEY,
      OPERATOR_OWNER_PRIVATE_KEY: e.OPERATOR_OWNER_PRIVATE_KEY,
    };
    for (const [name, value] of Object.entries(required)) {
      if (!value) problems.push(`${name}: required when CHAIN_RPC_URL is set`);
    }
    const contractVars = {
      entryPoint: e.CONTRACT_ENTRY_POINT,
      accountFactory: e.CONTRACT_ACCOUNT_FACTORY,
      paymaster: e.CONTRACT_PAYMASTER,
      dex: e.CONTRACT_DEX,
      contentToken: e.CONTRACT_CONTENT_TOKEN,
      token: e.CONTRACT_TOKEN,
    };
    const given = Object.values(contractVars).filter(Boolean).length;
    if (given !== 0 && given !== 6) {
      problems.push(
        'CONTRACT_*: give all six contract addresses, or none to deploy with DEPLOYER_PRIVATE_KEY',
      );
    }
    if (given === 0 && !e.DEPLOYER_PRIVATE_KEY) {
      problems.push('DEPLOYER_PRIVATE_KEY: required when CHAIN_RPC_URL is set without CONTRACT_* addresses');
    }
    chain = {
      kind: 'external',
      rpcUrl: e.CHAIN_RPC_URL,
      deployerKey: e.DEPLOYER_PRIVATE_KEY,
      relayerKey: e.RELAYER_PRIVATE_KEY ?? '0x',
      paymasterSignerKey: e.PAYMASTER_SIGNER_PRIVATE_KEY ?? '0x',
      operatorOwnerKey: e.OPERATOR_OWNER_PRIVATE_KEY ?? '0x',
      contracts: given === 6 ? (contractVars as ChainContracts) : undefined,
    };
  }
  if (e.DATABASE_URL && !e.MASTER_KEY) {
    // Replicas sharing one database must share the key; generating one per machine would lose data.
    problems.push('MASTER_KEY: required when DATABASE_URL is set');
  }
  if (e.DATABASE_URL && !e.ADMIN_API_KEY) {
    problems.push('ADMIN_API_KEY: required when DATABASE_URL is set');
  }
  if (problems.length > 0) throw new ConfigError(problems);

  const port = e.PORT;
  return {
    host: e.HOST,
    port,
    publicUrl: (e.PUBLIC_URL ?? `http://127.0.0.1:${port}`).replace(/\/+$/, ''),
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    masterKey: e.MASTER_KEY,
    adminApiKey: e.ADMIN_API_KEY,
    logLevel: e.LOG_LEVEL,
    trustProxy: e.TRUST_PROXY,
    pinShareSalt: e.PIN_SHARE_SALT,
    threadPoolSize: e.UV_THREADPOOL_SIZE,
    oauthRateLimit: e.OAUTH_RATE_LIMIT,
    chain,
  };
}
