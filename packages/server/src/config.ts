import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { parseRateLimits, type RateLimits } from './rateLimitSettings.js';
import {
  applyPresets,
  ProviderConfigError,
  type ResolvedProviderConfig,
} from './services/federation/presets.js';

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

/** A whole number of wei (decimal digits; bigger than a JavaScript number can hold exactly). */
const weiAmount = z
  .string()
  .regex(/^\d{1,78}$/, 'must be a whole number of wei')
  .transform((v) => BigInt(v))
  .or(z.bigint().min(0n));

/** OTLP's transport over HTTP: protobuf (the default) or JSON; gRPC is not offered. */
const otlpProtocol = z.enum(['http/protobuf', 'http/json'], {
  message: 'must be http/protobuf or http/json (grpc is not supported)',
});

/** `key=value,key2=value2` with URL-encoded values (OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES). */
const otlpKeyValues = z
  .string()
  .refine(
    (v) => v.split(',').every((pair) => pair.trim() === '' || /^[^=\s]+=.*$/.test(pair.trim())),
    'must be comma-separated key=value pairs',
  )
  .transform((v) => {
    const entries: Record<string, string> = {};
    for (const pair of v.split(',')) {
      if (pair.trim() === '') continue;
      const at = pair.indexOf('=');
      entries[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
    }
    return entries;
  });

const envSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  PUBLIC_URL: url(['http:', 'https:']).optional(),
  /** More origins whose passkey responses are accepted (apps on other hosts), comma-separated. */
  WEBAUTHN_ORIGINS: z
    .string()
    .optional()
    .refine(
      (v) =>
        v === undefined ||
        v
          .split(',')
          .every((o) => o.trim() === '' || /^https?:\/\/[^/\s]+$/.test(o.trim().replace(/\/+$/, ''))),
      'must be comma-separated origins (scheme://host[:port])',
    ),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
  REDIS_URL: url(['redis:', 'rediss:']).optional(),
  SMTP_URL: url(['smtp:', 'smtps:']).optional(),
  MAIL_FROM: z.string().min(3).default('dauth <no-reply@dauth.local>'),
  MASTER_KEY: hex32.optional(),
  ADMIN_API_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  CHAIN_RPC_URL: url(['http:', 'https:', 'ws:', 'wss:']).optional(),
  /** Several endpoints of one chain, comma-separated, tried in order (failover; docs/chain.md). */
  CHAIN_RPC_URLS: z
    .string()
    .transform((v) => v.split(',').map((u) => u.trim()))
    .pipe(z.array(url(['http:', 'https:', 'ws:', 'wss:'])).min(1))
    .optional(),
  DEPLOYER_PRIVATE_KEY: privateKey.optional(),
  RELAYER_PRIVATE_KEY: privateKey.optional(),
  /** One relayer key per replica, comma-separated; `REPLICA_ID` picks this replica's (docs/operations.md). */
  RELAYER_PRIVATE_KEYS: z.string().optional(),
  /** 0-based index of this replica in RELAYER_PRIVATE_KEYS. */
  REPLICA_ID: z.coerce.number().int().min(0, 'must be 0 or more').optional(),
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
  /** Older spelling of `RATE_LIMITS=oauth_token=N/1m` (per client and address at /oauth/token, revoke, introspect). */
  OAUTH_RATE_LIMIT: z.coerce.number().int().min(1).default(1200),
  /** `/metrics` without the admin key (decisions §7: only off the public port, e.g. behind a private listener). */
  METRICS_PUBLIC: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  /** Seconds since the password was checked within which a login JWT may make account-critical changes. */
  STEP_UP_MAX_AGE: z.coerce.number().int().min(1).default(300),
  LOGIN_BINDING: z.enum(['spec', 'strict']).default('spec'),
  /** Requests that need an ALTCHA proof of work (docs/security.md "Bot challenge"): `off`, or a list of `guest`, `signup`, `login`. */
  BOT_CHALLENGE: z
    .string()
    .default('off')
    .transform((v) =>
      v
        .split(',')
        .map((p) => p.trim().toLowerCase())
        .filter((p) => p !== '' && p !== 'off'),
    )
    .pipe(z.array(z.enum(['guest', 'signup', 'login']))),
  /** The lowest zxcvbn score (0–4) a new password may have (docs/security.md "Weak passwords"). */
  PASSWORD_MIN_SCORE: z.coerce.number().int().min(0).max(4).default(2),
  /** Upstream identity providers (docs/federation.md): a JSON array, or `@/path/to/file.json`. */
  IDENTITY_PROVIDERS: z.string().optional(),
  /** Steam Web API key: the profile name of a Steam sign-in (docs/federation.md). */
  STEAM_WEB_API_KEY: z.string().min(1).optional(),
  /** Seconds a rotated-out client secret keeps working beside the new one (docs/accounts.md). */
  CLIENT_SECRET_GRACE_SECONDS: z.coerce.number().int().min(0).default(86_400),
  /** Seconds a device code and its user code live (RFC 8628 `expires_in`; docs/players.md). */
  DEVICE_CODE_TTL_SECONDS: z.coerce.number().int().min(1).max(3600).default(600),
  /** Seconds a device waits between polls of the device-code grant (RFC 8628 `interval`). */
  DEVICE_CODE_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(60).default(5),
  /** Webhooks (docs/webhooks.md): how long a rotated-out endpoint secret still signs deliveries. */
  WEBHOOK_SECRET_GRACE_SECONDS: z.coerce.number().int().min(0).default(86_400),
  /** One delivery attempt's limit up to the receiver's answer (decisions §8: 10 s). */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(10_000),
  /** The first retry's delay; each next one doubles (with jitter) up to WEBHOOK_RETRY_MAX_MS. */
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(1).default(5_000),
  WEBHOOK_RETRY_MAX_MS: z.coerce.number().int().min(1).default(3_600_000),
  /** How long a delivery is retried before it is given up and its endpoint marked failing (≥ 24 h in production). */
  WEBHOOK_RETRY_WINDOW_SECONDS: z.coerce.number().int().min(1).default(86_400),
  /** How often each replica's delivery worker polls the outbox. */
  WEBHOOK_WORKER_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(500),
  /** Delivery attempts in flight per replica. */
  WEBHOOK_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(512).default(16),
  /** `false`, `true` (loopback and private ranges), a hop count, or a comma list of IPs/CIDRs. */
  TRUST_PROXY: z.string().default('false'),
  /** Per-route rate limits over their defaults: `name=count/window,…` (src/rateLimitSettings.ts). */
  RATE_LIMITS: z.string().optional(),
  /** Loopback and private callback targets (default: allowed without DATABASE_URL, refused with it). */
  CALLBACK_ALLOW_PRIVATE: z.enum(['true', 'false']).optional(),
  /** PBKDF2 worker threads of PIN derivations and BIP-39 seeds (crypto/pbkdf2Pool.ts); default: the core count. */
  PIN_WORKERS: z.coerce.number().int().min(1).max(256).optional(),
  /** Nice value of the PBKDF2 worker threads on Linux (0: the process's own priority). */
  PIN_WORKER_NICE: z.coerce.number().int().min(0).max(19).default(19),
  /** PIN derivations (PBKDF2) allowed to wait for a worker; more answer 503 `overloaded`. */
  PBKDF2_QUEUE_MAX: z.coerce.number().int().min(0).max(100_000).default(256),
  /** scrypt cost as log2(N) for new password hashes; 17 (OWASP) by default. Older hashes are upgraded at sign-in. */
  SCRYPT_LOG_N: z.coerce.number().int().min(14).max(20).default(17),
  /** Password hashes (scrypt, logins and sign-ups) allowed to wait for a thread; more answer 503. */
  SCRYPT_QUEUE_MAX: z.coerce.number().int().min(0).max(100_000).default(64),
  /** Below these (wei) `/readyz` reports `degraded` and a warning is logged (docs/operations.md). */
  LOW_FUNDS_PAYMASTER_DEPOSIT: weiAmount.default(10n ** 18n),
  LOW_FUNDS_RELAYER_BALANCE: weiAmount.default(10n ** 17n),
  /** Blocks a write must be deep (its own included) before it is answered as done (docs/chain.md). */
  CHAIN_CONFIRMATIONS: z.coerce.number().int().min(1).max(64).default(1),
  BUNDLER_RPC_URL: url(['http:', 'https:']).optional(),
  /** The most any transaction of the service offers per gas (wei); unset: what the node suggests, bumped as needed. */
  MAX_FEE_PER_GAS: weiAmount.optional(),
  /** New blocks after which an unmined transaction is replaced with higher fees (same nonce). */
  CHAIN_REPLACE_AFTER_BLOCKS: z.coerce.number().int().min(1).max(100).default(2),
  /**
   * Most operations in one `handleOps` of the built-in bundler; by default high enough that the bundle's
   * gas ceiling (9/10 of the block gas limit) and calldata ceiling bind instead (docs/operations.md).
   */
  BUNDLE_MAX_OPERATIONS: z.coerce.number().int().min(1).max(10_000).default(1024),
  /**
   * Bundles of the built-in bundler sent and not yet mined at a time, on consecutive relayer nonces (1: one
   * bundle per block at most). docs/chain.md, "Bundles in flight".
   */
  BUNDLES_IN_FLIGHT: z.coerce.number().int().min(1).max(16).default(8),
  /**
   * Consumption batches sent and not yet settled at a time, each an operator operation under a nonce key of
   * its own (1: one batch at a time, the behaviour before issue 43). docs/content-tokens.md.
   */
  CONTENT_BATCHES_IN_FLIGHT: z.coerce.number().int().min(1).max(32).default(16),
  /** Gas a bundle's transaction asks beyond what its simulation needed, in percent (docs/chain.md). */
  BUNDLE_GAS_MARGIN_PERCENT: z.coerce.number().int().min(0).max(100).default(20),
  /**
   * Gas sponsorship policy (decisions §7, §8): daily budgets per user and per app, per-operation cap. The
   * cap is 1.5M (was 3M): the interface's heaviest user operation asks for about 0.49M (docs/operations.md).
   */
  SPONSOR_USER_DAILY_GAS: z.coerce.number().int().min(0).default(50_000_000),
  /** Decisions §8: until the sign-up mail's code or link is used (capped by SPONSOR_USER_DAILY_GAS). */
  SPONSOR_UNVERIFIED_USER_DAILY_GAS: z.coerce.number().int().min(0).default(10_000_000),
  /** Decisions §8: every user and app together, per UTC day; past it 429 and `/readyz` degraded. */
  SPONSOR_PLATFORM_DAILY_GAS: z.coerce.number().int().min(0).default(10_000_000_000),
  SPONSOR_APP_DAILY_GAS: z.coerce.number().int().min(0).default(5_000_000_000),
  SPONSOR_MAX_OPERATION_GAS: z.coerce.number().int().min(100_000).default(1_500_000),
  /**
   * OpenTelemetry (docs/operations.md, "Traces"): the standard variables of the OTLP exporter and the SDK.
   * Tracing is on when an endpoint is set (and OTEL_SDK_DISABLED is not `true`, OTEL_TRACES_EXPORTER not
   * `none`); without one no exporter module is even loaded.
   */
  OTEL_SDK_DISABLED: z.enum(['true', 'false']).default('false'),
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'none']).default('otlp'),
  OTEL_EXPORTER_OTLP_ENDPOINT: url(['http:', 'https:']).optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url(['http:', 'https:']).optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol.optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol.optional(),
  OTEL_EXPORTER_OTLP_HEADERS: otlpKeyValues.optional(),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: otlpKeyValues.optional(),
  OTEL_EXPORTER_OTLP_TIMEOUT: z.coerce.number().int().min(1).max(600_000).optional(),
  OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: z.coerce.number().int().min(1).max(600_000).optional(),
  OTEL_SERVICE_NAME: z.string().min(1).default('dauth'),
  OTEL_RESOURCE_ATTRIBUTES: otlpKeyValues.optional(),
  OTEL_TRACES_SAMPLER: z
    .enum([
      'always_on',
      'always_off',
      'traceidratio',
      'parentbased_always_on',
      'parentbased_always_off',
      'parentbased_traceidratio',
    ])
    .default('parentbased_always_on'),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).optional(),
  /** The batch span processor: delay between exports (ms), queue and batch sizes. */
  OTEL_BSP_SCHEDULE_DELAY: z.coerce.number().int().min(1).max(600_000).default(5_000),
  OTEL_BSP_MAX_QUEUE_SIZE: z.coerce.number().int().min(1).max(1_000_000).default(2_048),
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: z.coerce.number().int().min(1).max(1_000_000).default(512),
  /** Comma-separated addresses never sponsored as call targets (the paymaster and entry point always are not). */
  SPONSOR_BLOCKED_TARGETS: z
    .string()
    .default('')
    .refine(
      (v) => v.split(',').every((a) => a.trim() === '' || /^0x[0-9a-fA-F]{40}$/.test(a.trim())),
      'must be comma-separated 0x-prefixed 20-byte addresses',
    )
    .transform((v) =>
      v
        .split(',')
        .map((a) => a.trim())
        .filter((a) => a !== '')
        .map((a) => a as `0x${string}`),
    ),
});

/** The proxies `true` trusts: loopback and the private ranges a load balancer sits in. */
export const PRIVATE_PROXY_RANGES = [
  '127.0.0.0/8',
  '::1/128',
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  'fc00::/7',
] as const;

/**
 * `TRUST_PROXY` as Fastify's `trustProxy`: `false`; a hop count (the client is that many
 * addresses from the right of X-Forwarded-For); or the proxy addresses whose X-Forwarded-For is
 * believed. Never Fastify's `true`, which believes any client-supplied header.
 */
export function parseTrustProxy(
  value: string,
): { trustProxy: false | number | string[] } | { problem: string } {
  const v = value.trim().toLowerCase();
  if (v === 'false' || v === '0') return { trustProxy: false };
  if (v === 'true') return { trustProxy: [...PRIVATE_PROXY_RANGES] };
  if (/^[0-9]+$/.test(v)) {
    const hops = Number(v);
    return hops <= 32 ? { trustProxy: hops } : { problem: 'TRUST_PROXY: a hop count must be at most 32' };
  }
  const entries = v
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [ip = '', prefix, extra] = entry.split('/');
    const family = isIP(ip);
    const maxPrefix = family === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix);
    if (family === 0 || !prefixOk || extra !== undefined) {
      return { problem: `TRUST_PROXY: "${entry}" is not true, false, a hop count or an IP/CIDR list` };
    }
  }
  return entries.length > 0 ? { trustProxy: entries } : { problem: 'TRUST_PROXY: empty list' };
}

export type Env = z.input<typeof envSchema>;

/** What `BOT_CHALLENGE` may cover: guest creation, sign-up, password sign-in. */
export type BotChallengeKind = 'guest' | 'signup' | 'login';

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
  /** Passkeys (docs/players.md): relying party id = PUBLIC_URL's host; origins = its origin + WEBAUTHN_ORIGINS. */
  webauthn: { rpId: string; origins: string[] };
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  smtpUrl: string | undefined;
  mailFrom: string;
  /** Undefined only before `ensureSecrets` fills it from DATA_DIR in the embedded default. */
  masterKey: string | undefined;
  adminApiKey: string | undefined;
  logLevel: string;
  /** `auto`: human-readable lines (pino-pretty) when stdout is a terminal, JSON lines otherwise. */
  logFormat: 'auto' | 'json' | 'pretty';
  /** Fastify's `trustProxy` (see `parseTrustProxy`). */
  trustProxy: false | number | string[];
  /** Every per-route rate limit (`RATE_LIMITS` over the defaults). */
  rateLimits: RateLimits;
  /** Loopback and private addresses may be callback targets (SSRF policy, decisions §7). */
  callbackAllowPrivate: boolean;
  /** Redirect URIs must be https except for loopback hosts (DATABASE_URL set or PUBLIC_URL https). */
  requireHttpsRedirects: boolean;
  pbkdf2QueueMax: number;
  /** PBKDF2 worker threads (PIN_WORKERS, default the core count). */
  pinWorkers: number;
  /** PIN_WORKER_NICE: the workers' nice value on Linux (default 19; 0 leaves their priority alone). */
  pinWorkerNice: number;
  scryptQueueMax: number;
  /** scrypt N for new password hashes (2^SCRYPT_LOG_N). */
  scryptN: number;
  pinShareSalt: string;
  /** libuv thread-pool threads (UV_THREADPOOL_SIZE: `npm start` sets the core count, else libuv's 4). */
  threadPoolSize: number;
  metricsPublic: boolean;
  /** Low-funds thresholds in wei: the paymaster's EntryPoint deposit and the relayer's balance. */
  lowFunds: { paymasterDeposit: bigint; relayerBalance: bigint };
  /** CHAIN_CONFIRMATIONS: 1 answers a write once it is in a block. */
  chainConfirmations: number;
  /**
   * BUNDLER_RPC_URL: an independent ERC-4337 bundler that user wallets' operations go to through
   * `eth_sendUserOperation` instead of the built-in bundler (docs/operations.md, "Which bundler").
   */
  bundlerRpcUrl: string | undefined;
  /** MAX_FEE_PER_GAS (wei) and CHAIN_REPLACE_AFTER_BLOCKS: the fee policy of every signed transaction. */
  chainFees: { maxFeePerGas: bigint | undefined; replaceAfterBlocks: number };
  /** BUNDLE_MAX_OPERATIONS: the built-in bundler's count cap per `handleOps` (1: one operation per transaction). */
  bundleMaxOperations: number;
  /** BUNDLES_IN_FLIGHT: bundles sent and not yet mined at a time (consecutive relayer nonces). */
  bundlesInFlight: number;
  /** CONTENT_BATCHES_IN_FLIGHT: consumption batches out at a time (operator nonce keys 1…n). */
  contentBatchesInFlight: number;
  /** BUNDLE_GAS_MARGIN_PERCENT: a bundle asks the gas its simulation needed plus this many percent. */
  bundleGasMarginPercent: number;
  /** STEP_UP_MAX_AGE: the oldest `auth_time` (seconds ago) an account-critical change accepts. */
  stepUpMaxAgeSeconds: number;
  /**
   * LOGIN_BINDING: `spec` lets an unbound login JWT authorize plain OAuth and the backend flow (the
   * interface's flow); `strict` asks every bearer authorize for `azp` = the app or the user's consent.
   */
  loginBinding: 'spec' | 'strict';
  /** BOT_CHALLENGE: the requests that carry an ALTCHA solution (empty: none; `GET /v1/challenge` is always served). */
  botChallenge: BotChallengeKind[];
  /** PASSWORD_MIN_SCORE: the lowest zxcvbn score (0–4) a new password may have; 0 checks only the common-password list. */
  passwordMinScore: number;
  /** IDENTITY_PROVIDERS with presets applied (docs/federation.md); empty when unset. */
  identityProviders: ResolvedProviderConfig[];
  /** Gas sponsorship policy: daily budgets, per-operation cap, extra blocked targets. */
  sponsorship: {
    userDailyGas: number;
    unverifiedUserDailyGas: number;
    platformDailyGas: number;
    appDailyGas: number;
    maxOperationGas: number;
    blockedTargets: `0x${string}`[];
  };
  /** CLIENT_SECRET_GRACE_SECONDS: how long the old client secret works after a rotation. */
  clientSecretGraceSeconds: number;
  /** DEVICE_CODE_TTL_SECONDS and DEVICE_CODE_INTERVAL_SECONDS: the device authorization grant (RFC 8628). */
  deviceCode: { ttlSeconds: number; intervalSeconds: number };
  /** Webhook delivery (WEBHOOK_*, docs/webhooks.md). */
  webhooks: {
    secretGraceSeconds: number;
    timeoutMs: number;
    retryBaseMs: number;
    retryMaxMs: number;
    retryWindowMs: number;
    intervalMs: number;
    concurrency: number;
  };
  /** OpenTelemetry traces (OTEL_*, docs/operations.md "Traces"); `undefined`: tracing off, nothing loaded. */
  tracing: TracingSettings | undefined;
  /**
   * The relayer keys of all replicas and the index of this replica's own (RELAYER_PRIVATE_KEYS and
   * REPLICA_ID, or RELAYER_PRIVATE_KEY as a list of one). Undefined: the embedded chain's development key.
   */
  relayers: RelayerKeys | undefined;
  chain:
    | { kind: 'embedded' }
    | {
        kind: 'external';
        /** The first of `rpcUrls`. */
        rpcUrl: string;
        /** CHAIN_RPC_URLS (or CHAIN_RPC_URL as a list of one), in failover order. */
        rpcUrls: string[];
        deployerKey: `0x${string}` | undefined;
        relayerKey: `0x${string}`;
        paymasterSignerKey: `0x${string}`;
        operatorOwnerKey: `0x${string}`;
        contracts: ChainContracts | undefined;
      };
}

/** Where and how spans are exported (the standard OTEL_* variables, resolved). */
export interface TracingSettings {
  /** The OTLP/HTTP traces URL: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is, or OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`. */
  url: string;
  protocol: 'http/protobuf' | 'http/json';
  headers: Record<string, string>;
  timeoutMs: number;
  serviceName: string;
  resourceAttributes: Record<string, string>;
  sampler:
    | 'always_on'
    | 'always_off'
    | 'traceidratio'
    | 'parentbased_always_on'
    | 'parentbased_always_off'
    | 'parentbased_traceidratio';
  /** The ratio of the `traceidratio` samplers (default 1). */
  samplerRatio: number;
  batch: { scheduleDelayMs: number; maxQueueSize: number; maxExportBatchSize: number };
}

export interface RelayerKeys {
  /** Every replica's relayer key, in RELAYER_PRIVATE_KEYS order (funding and the embedded chain use them all). */
  all: `0x${string}`[];
  /** REPLICA_ID: the index of this replica's key in `all`. */
  index: number;
}

/** This replica's relayer key. */
export const ownRelayerKey = (relayers: RelayerKeys): `0x${string}` => relayers.all[relayers.index]!;

/**
 * RELAYER_PRIVATE_KEY (one key, every replica the same) or RELAYER_PRIVATE_KEYS (one per replica) with
 * REPLICA_ID. Both at once is refused: which one wins would be a guess, and a shared key makes the replicas'
 * relayer nonces collide.
 */
function relayerKeys(
  e: { RELAYER_PRIVATE_KEY?: `0x${string}`; RELAYER_PRIVATE_KEYS?: string; REPLICA_ID?: number },
  problems: string[],
): RelayerKeys | undefined {
  if (e.RELAYER_PRIVATE_KEY && e.RELAYER_PRIVATE_KEYS !== undefined) {
    problems.push(
      'RELAYER_PRIVATE_KEYS: set either RELAYER_PRIVATE_KEY (one key) or RELAYER_PRIVATE_KEYS (one per replica), not both',
    );
    return undefined;
  }
  if (e.RELAYER_PRIVATE_KEY) {
    // A second replica (REPLICA_ID > 0) on the one shared key would collide with the first's nonces.
    if ((e.REPLICA_ID ?? 0) > 0) {
      problems.push(
        `REPLICA_ID: ${e.REPLICA_ID} with a single RELAYER_PRIVATE_KEY would share its nonces with replica 0; list one key per replica in RELAYER_PRIVATE_KEYS`,
      );
      return undefined;
    }
    return { all: [e.RELAYER_PRIVATE_KEY], index: 0 };
  }
  if (e.RELAYER_PRIVATE_KEYS === undefined) return undefined;
  const all: `0x${string}`[] = [];
  const items = e.RELAYER_PRIVATE_KEYS.split(',').map((k) => k.trim());
  for (const [i, item] of items.entries()) {
    const key = privateKey.safeParse(item);
    // The key itself is never repeated in a message: only its position.
    if (!key.success) {
      problems.push(`RELAYER_PRIVATE_KEYS: entry ${i} must be a private key (64 hex characters)`);
      continue;
    }
    const lower = key.data.toLowerCase() as `0x${string}`;
    if (all.includes(lower)) problems.push(`RELAYER_PRIVATE_KEYS: entry ${i} repeats an earlier key`);
    all.push(lower);
  }
  if (all.length !== items.length) return undefined;
  const index = e.REPLICA_ID ?? 0;
  if (e.REPLICA_ID === undefined && all.length > 1) {
    problems.push(`REPLICA_ID: required with ${all.length} RELAYER_PRIVATE_KEYS (0 to ${all.length - 1})`);
    return undefined;
  }
  if (index >= all.length) {
    problems.push(
      `REPLICA_ID: ${index} is out of range: RELAYER_PRIVATE_KEYS has ${all.length} key${all.length === 1 ? '' : 's'} (0 to ${all.length - 1})`,
    );
    return undefined;
  }
  return { all, index };
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
  const relayers = relayerKeys(e, problems);
  if (e.CHAIN_RPC_URL && e.CHAIN_RPC_URLS) {
    problems.push('CHAIN_RPC_URLS: give CHAIN_RPC_URL (one endpoint) or CHAIN_RPC_URLS (several), not both');
  }
  const rpcUrls = e.CHAIN_RPC_URLS ?? (e.CHAIN_RPC_URL ? [e.CHAIN_RPC_URL] : undefined);
  if (rpcUrls) {
    const required = {
      'RELAYER_PRIVATE_KEY (or RELAYER_PRIVATE_KEYS)': e.RELAYER_PRIVATE_KEY ?? e.RELAYER_PRIVATE_KEYS,
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
      rpcUrl: rpcUrls[0]!,
      rpcUrls,
      deployerKey: e.DEPLOYER_PRIVATE_KEY,
      relayerKey: relayers ? ownRelayerKey(relayers) : '0x',
      paymasterSignerKey: e.PAYMASTER_SIGNER_PRIVATE_KEY ?? '0x',
      operatorOwnerKey: e.OPERATOR_OWNER_PRIVATE_KEY ?? '0x',
      contracts: given === 6 ? (contractVars as ChainContracts) : undefined,
    };
  }
  if (e.BUNDLER_RPC_URL && !rpcUrls) {
    // The embedded anvil listens on a port picked at each start: no bundler can be pointed at it beforehand.
    problems.push('BUNDLER_RPC_URL: needs an external chain (CHAIN_RPC_URL) that the bundler serves too');
  }
  if (e.DATABASE_URL && !e.MASTER_KEY) {
    // Replicas sharing one database must share the key; generating one per machine would lose data.
    problems.push('MASTER_KEY: required when DATABASE_URL is set');
  }
  if (e.DATABASE_URL && !e.ADMIN_API_KEY) {
    problems.push('ADMIN_API_KEY: required when DATABASE_URL is set');
  }
  const trust = parseTrustProxy(e.TRUST_PROXY);
  if ('problem' in trust) problems.push(trust.problem);
  const rateLimits = parseRateLimits(
    e.RATE_LIMITS,
    'OAUTH_RATE_LIMIT' in cleaned ? e.OAUTH_RATE_LIMIT : undefined,
  );
  problems.push(...rateLimits.problems);
  const identityProviders = parseIdentityProviders(e.IDENTITY_PROVIDERS, e.STEAM_WEB_API_KEY, problems);
  if (problems.length > 0) throw new ConfigError(problems);

  const port = e.PORT;
  // `localhost`, not 127.0.0.1: browsers take a host name, never an IP address, as passkeys' relying party.
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  return {
    host: e.HOST,
    port,
    publicUrl,
    webauthn: {
      rpId: new URL(publicUrl).hostname,
      origins: [
        new URL(publicUrl).origin,
        ...(e.WEBAUTHN_ORIGINS ?? '')
          .split(',')
          .map((o) => o.trim().replace(/\/+$/, ''))
          .filter((o) => o !== ''),
      ],
    },
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    masterKey: e.MASTER_KEY,
    adminApiKey: e.ADMIN_API_KEY,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    trustProxy: 'trustProxy' in trust ? trust.trustProxy : false,
    rateLimits: rateLimits.limits,
    callbackAllowPrivate: e.CALLBACK_ALLOW_PRIVATE
      ? e.CALLBACK_ALLOW_PRIVATE === 'true'
      : e.DATABASE_URL === undefined,
    requireHttpsRedirects: e.DATABASE_URL !== undefined || publicUrl.startsWith('https:'),
    pbkdf2QueueMax: e.PBKDF2_QUEUE_MAX,
    pinWorkers: e.PIN_WORKERS ?? availableParallelism(),
    pinWorkerNice: e.PIN_WORKER_NICE,
    scryptQueueMax: e.SCRYPT_QUEUE_MAX,
    scryptN: 2 ** e.SCRYPT_LOG_N,
    pinShareSalt: e.PIN_SHARE_SALT,
    threadPoolSize: e.UV_THREADPOOL_SIZE,
    metricsPublic: e.METRICS_PUBLIC,
    chainConfirmations: e.CHAIN_CONFIRMATIONS,
    bundlerRpcUrl: e.BUNDLER_RPC_URL,
    chainFees: { maxFeePerGas: e.MAX_FEE_PER_GAS, replaceAfterBlocks: e.CHAIN_REPLACE_AFTER_BLOCKS },
    bundleMaxOperations: e.BUNDLE_MAX_OPERATIONS,
    bundlesInFlight: e.BUNDLES_IN_FLIGHT,
    contentBatchesInFlight: e.CONTENT_BATCHES_IN_FLIGHT,
    bundleGasMarginPercent: e.BUNDLE_GAS_MARGIN_PERCENT,
    lowFunds: {
      paymasterDeposit: e.LOW_FUNDS_PAYMASTER_DEPOSIT,
      relayerBalance: e.LOW_FUNDS_RELAYER_BALANCE,
    },
    stepUpMaxAgeSeconds: e.STEP_UP_MAX_AGE,
    loginBinding: e.LOGIN_BINDING,
    botChallenge: [...new Set(e.BOT_CHALLENGE)],
    passwordMinScore: e.PASSWORD_MIN_SCORE,
    identityProviders,
    sponsorship: {
      userDailyGas: e.SPONSOR_USER_DAILY_GAS,
      unverifiedUserDailyGas: e.SPONSOR_UNVERIFIED_USER_DAILY_GAS,
      platformDailyGas: e.SPONSOR_PLATFORM_DAILY_GAS,
      appDailyGas: e.SPONSOR_APP_DAILY_GAS,
      maxOperationGas: e.SPONSOR_MAX_OPERATION_GAS,
      blockedTargets: e.SPONSOR_BLOCKED_TARGETS,
    },
    clientSecretGraceSeconds: e.CLIENT_SECRET_GRACE_SECONDS,
    deviceCode: { ttlSeconds: e.DEVICE_CODE_TTL_SECONDS, intervalSeconds: e.DEVICE_CODE_INTERVAL_SECONDS },
    webhooks: {
      secretGraceSeconds: e.WEBHOOK_SECRET_GRACE_SECONDS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      retryMaxMs: e.WEBHOOK_RETRY_MAX_MS,
      retryWindowMs: e.WEBHOOK_RETRY_WINDOW_SECONDS * 1000,
      intervalMs: e.WEBHOOK_WORKER_INTERVAL_MS,
      concurrency: e.WEBHOOK_WORKER_CONCURRENCY,
    },
    relayers,
    chain,
    tracing: tracingSettings(e),
  };
}

/** The OTEL_* variables resolved as the OTLP exporter specification reads them; undefined when tracing is off. */
function tracingSettings(e: z.output<typeof envSchema>): TracingSettings | undefined {
  const base = e.OTEL_EXPORTER_OTLP_ENDPOINT;
  const url =
    e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined);
  if (url === undefined || e.OTEL_SDK_DISABLED === 'true' || e.OTEL_TRACES_EXPORTER === 'none')
    return undefined;
  return {
    url,
    protocol: e.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? e.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf',
    headers: { ...e.OTEL_EXPORTER_OTLP_HEADERS, ...e.OTEL_EXPORTER_OTLP_TRACES_HEADERS },
    timeoutMs: e.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? e.OTEL_EXPORTER_OTLP_TIMEOUT ?? 10_000,
    serviceName: e.OTEL_SERVICE_NAME,
    resourceAttributes: e.OTEL_RESOURCE_ATTRIBUTES ?? {},
    sampler: e.OTEL_TRACES_SAMPLER,
    samplerRatio: e.OTEL_TRACES_SAMPLER_ARG ?? 1,
    batch: {
      scheduleDelayMs: e.OTEL_BSP_SCHEDULE_DELAY,
      maxQueueSize: e.OTEL_BSP_MAX_QUEUE_SIZE,
      maxExportBatchSize: Math.min(e.OTEL_BSP_MAX_EXPORT_BATCH_SIZE, e.OTEL_BSP_MAX_QUEUE_SIZE),
    },
  };
}

/**
 * IDENTITY_PROVIDERS: a JSON array of provider entries, or `@file` naming a file that holds it (secrets
 * such as Apple's key then stay out of the environment). Each entry gets its preset and is validated by
 * `applyPresets` (services/federation/presets.ts); STEAM_WEB_API_KEY fills the steam entries' Web API key.
 */
function parseIdentityProviders(
  value: string | undefined,
  steamWebApiKey: string | undefined,
  problems: string[],
): ResolvedProviderConfig[] {
  if (value === undefined) return [];
  let text = value;
  if (value.startsWith('@')) {
    try {
      text = readFileSync(value.slice(1), 'utf8');
    } catch (err) {
      problems.push(`IDENTITY_PROVIDERS: cannot read ${value.slice(1)} (${(err as Error).message})`);
      return [];
    }
  }
  let entries: unknown;
  try {
    entries = JSON.parse(text);
  } catch {
    problems.push('IDENTITY_PROVIDERS: not valid JSON (a JSON array of providers, or @file)');
    return [];
  }
  try {
    return applyPresets(entries, steamWebApiKey === undefined ? {} : { steamWebApiKey });
  } catch (err) {
    if (!(err instanceof ProviderConfigError)) throw err;
    problems.push(
      ...err.problems.map((p) => (p.startsWith('IDENTITY_PROVIDERS') ? p : `IDENTITY_PROVIDERS: ${p}`)),
    );
    return [];
  }
}
