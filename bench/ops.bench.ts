/**
 * Sponsored operations per second, end to end on the embedded chain: `submitOperation` (estimate, sponsor,
 * sign, bundle, `handleOps`, receipt, per-operation result) with N concurrent callers, each with its own
 * wallet sending ERC-20 transfers. Bundled (the service's default) versus one operation per transaction.
 *
 *   npm run bench:ops                      # 50 concurrent callers, 3 rounds of 250 operations per mode
 *   npm run bench:ops -- --concurrency 50 --ops 500 --rounds 5
 *   npm run bench:ops -- --journal on      # only with the chain journal (default: on and off side by side)
 *   npm run bench:ops -- --replicas 2      # 2 replicas (own relayer keys) against 1, external anvil + PostgreSQL
 *   npm run bench:ops -- --session off     # without the session-key mode
 *
 * Session keys (docs/session-keys.md): a fifth mode, "session key (bundled)", sends the same transfers from
 * wallets handed to their DauthSessionAccount, each signed by a session key whose policy allows `transfer` on
 * the token with a per-day cap; beside "bundled" (owner operations of plain wallets) it shows what the policy
 * check in validation costs in throughput.
 *   npm run bench:ops -- --block-time 2    # an external anvil mining a block every 2 s (a public L2's pace)
 *   npm run bench:ops -- --bundle-max-ops 64  # the bundled modes with another count cap (BUNDLE_MAX_OPERATIONS)
 *
 * With `--journal both` (the default) the four modes (bundled and one op per tx, journal on and off) run in
 * alternating rounds; the journal's cost is 1 − median(on) / median(off) of the per-round rates. Switching
 * the journal off is a benchmark-only option of the chain layer (`journal: false`), not configuration.
 *
 * The database is SQLite in a file, as in production: the chain journal commits each transaction with
 * `synchronous = FULL` before it is sent, and its cost is the difference between the journal on and off.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { randomBytes } from 'node:crypto';
import { parseEther } from 'viem';
import { generatePrivateKey } from 'viem/accounts';
import { startExternalNode } from './externalNode.js';
import { SessionAccountGateway } from '../packages/server/src/chain/sessionAccountGateway.js';
import type { Address } from '../packages/server/src/chain/types.js';
import {
  type ChainServices,
  type ChainServicesOptions,
  createChainServices,
} from '../packages/server/src/composition/chain.js';
import {
  type OperationOwner,
  ownerFromPrivateKey,
} from '../packages/server/src/chain/operations/operationOwner.js';
import { loadConfig } from '../packages/server/src/config.js';
import { openDatabase } from '../packages/server/src/db/database.js';
import { migrateToLatest } from '../packages/server/src/db/migrate.js';
import { writeBenchSummary } from './summary.js';

const { values } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '50' },
    ops: { type: 'string', default: '250' },
    rounds: { type: 'string', default: '3' },
    journal: { type: 'string', default: 'both' },
    replicas: { type: 'string' },
    session: { type: 'string', default: 'on' },
    'block-time': { type: 'string' },
    'bundle-max-ops': { type: 'string' },
  },
});
/** Seconds between blocks of an external anvil; undefined: the embedded chain (a block per transaction). */
const blockTime = values['block-time'] === undefined ? undefined : Number(values['block-time']);
if (values.replicas !== undefined) {
  // A different comparison on a different setup (bench/ops.replicas.ts); nothing below runs.
  const { benchReplicas } = await import('./ops.replicas.js');
  await benchReplicas({
    replicas: Number(values.replicas),
    concurrency: Number(values.concurrency),
    ops: Number(values.ops),
    rounds: Number(values.rounds),
  });
  process.exit(0);
}
const journalModes = values.journal === 'both' ? [true, false] : [values.journal !== 'off'];
/** `--bundle-max-ops`: BUNDLE_MAX_OPERATIONS of the bundled modes (default: the configuration's default). */
const bundleMaxOps = values['bundle-max-ops'] === undefined ? undefined : Number(values['bundle-max-ops']);
const bundledOptions: Pick<ChainServicesOptions, 'bundler'> =
  bundleMaxOps === undefined ? {} : { bundler: { maxOpsPerBundle: bundleMaxOps } };
const concurrency = Number(values.concurrency);
const opsPerRound = Number(values.ops);
const rounds = Number(values.rounds);

interface Mode {
  name: string;
  options: ChainServicesOptions;
  chain: ChainServices;
  transfer: (
    owner: OperationOwner,
  ) => Promise<{ success: boolean; txHash: string; revert?: { message: string } }>;
  owners: OperationOwner[];
  close: () => Promise<void>;
  deploySeconds: number;
  latencies: number[];
  seconds: number;
  transactions: Set<string>;
  roundRates: number[];
  /** Operations of each mined bundle (the service's bundle observer), measured rounds only. */
  bundleSizes: number[];
}

const randomOwner = () => ownerFromPrivateKey(Buffer.from(generatePrivateKey().slice(2), 'hex'));

/**
 * A fresh embedded chain with `concurrency` funded wallets, each deployed by its first operation. With
 * `session`, each wallet is then handed to its session account and given a session key, which signs the
 * measured operations.
 */
async function setUp(name: string, options: ChainServicesOptions, session = false): Promise<Mode> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-bench-ops-'));
  const database = openDatabase({ sqlitePath: path.join(dataDir, 'dauth.sqlite') });
  await migrateToLatest(database.db);
  const external = blockTime === undefined ? undefined : await startExternalNode(blockTime, '1000');
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...external?.env });
  const chain = await createChainServices(
    config,
    { logger: pino({ level: 'silent' }), db: database.db },
    options,
  );
  const token = chain.info.contracts.token;
  const receiver = randomOwner().address;
  const owners = Array.from({ length: concurrency }, randomOwner);
  for (const owner of owners) {
    await chain.faucet.fund({ address: chain.gateway.walletAddress(owner.address, 0n), token: 10n ** 24n });
  }
  const ownerTransfer = (owner: OperationOwner) =>
    chain.operations.submitOperation({
      owner,
      salt: 0n,
      calls: [chain.calls.erc20Transfer(token, receiver, 1n)],
    });
  if (external) {
    await chain.faucet.depositForPaymaster(parseEther('100'));
    // From here on a block every `blockTime` seconds, whatever is pending.
    await external.intervalMining();
  }
  const bundleSizes: number[] = [];
  let measuring = false;
  chain.telemetry.observeBundles({
    bundleMined: (size) => {
      if (measuring) bundleSizes.push(size);
    },
    bundleFailed: () => undefined,
    operationReverted: () => undefined,
  });
  const deployStart = performance.now();
  await Promise.all(owners.map(ownerTransfer));
  const deploySeconds = (performance.now() - deployStart) / 1000;
  let transfer = ownerTransfer;
  if (session) {
    const accounts = new SessionAccountGateway(chain.gateway, chain.operations, chain.operator);
    const keys = new Map<OperationOwner, { account: Address; signer: OperationOwner }>();
    const day = await accounts.chainDay();
    const validUntil = (await accounts.chainNow()) + 86_400;
    await Promise.all(
      owners.map(async (owner) => {
        const wallet = chain.gateway.walletAddress(owner.address, 0n);
        const account = accounts.accountAddress(wallet, owner.address);
        await accounts.deployAccount(wallet, owner.address);
        await accounts.submit(wallet, { callData: accounts.changeOwnerCallData(account) }, owner);
        const secret = randomBytes(32);
        const key = accounts.keyAddress(secret);
        const policy = {
          calls: [{ to: token, selector: '0xa9059cbb' as const }],
          maxValuePerCall: 0n,
          maxValuePerDay: 0n,
          tokenLimits: [{ token, perDay: 10n ** 30n }],
          validUntil,
        };
        await accounts.submit(account, { calls: [accounts.addSessionKeyCall(account, key, policy)] }, owner);
        keys.set(owner, { account, signer: accounts.sessionSigner(secret, day) });
      }),
    );
    transfer = (owner) => {
      const { account, signer } = keys.get(owner)!;
      return accounts.submit(account, { calls: [chain.calls.erc20Transfer(token, receiver, 1n)] }, signer, {
        session: true,
      });
    };
  }
  // Bundles from here on are the measured rounds'.
  measuring = true;
  return {
    name,
    options,
    chain,
    transfer,
    owners,
    deploySeconds,
    latencies: [],
    seconds: 0,
    transactions: new Set(),
    roundRates: [],
    bundleSizes,
    close: async () => {
      await chain.close();
      await external?.anvil.stop();
      await database.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Closed loop: each caller sends its next operation as soon as its previous one returned. */
async function runRound(mode: Mode): Promise<void> {
  let remaining = opsPerRound;
  const start = performance.now();
  await Promise.all(
    mode.owners.map(async (owner) => {
      while (remaining > 0) {
        remaining -= 1;
        const t0 = performance.now();
        const result = await mode.transfer(owner);
        mode.latencies.push(performance.now() - t0);
        if (!result.success) throw new Error(`operation reverted: ${result.revert?.message}`);
        mode.transactions.add(result.txHash);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  mode.seconds += seconds;
  mode.roundRates.push(opsPerRound / seconds);
}

const modes: Mode[] = [];
for (const journal of journalModes) {
  const suffix = journal ? '' : ', journal off';
  modes.push(await setUp(`bundled${suffix}`, { journal, ...bundledOptions }));
  // At a block every few seconds one operation per transaction is one per block: the comparison is the
  // embedded chain's; `--block-time` measures the bundled mode alone.
  if (blockTime === undefined) {
    modes.push(
      await setUp(`one op per tx${suffix}`, { journal, bundler: { maxOpsPerBundle: 1, windowMs: 0 } }),
    );
  }
}
// The session-key comparison is the embedded chain's too.
const sessionMode =
  values.session === 'off' || blockTime !== undefined
    ? undefined
    : await setUp('session key (bundled)', { ...bundledOptions }, true);
if (sessionMode) modes.push(sessionMode);
try {
  // Rounds alternate between the modes, so load from elsewhere on the machine hits both alike.
  for (let round = 0; round < rounds; round++) {
    for (const mode of modes) await runRound(mode);
  }
} finally {
  for (const mode of modes) await mode.close();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  `\nSponsored ERC-20 transfers, ${concurrency} concurrent callers, ${rounds} rounds of ${opsPerRound} per mode` +
    (blockTime === undefined ? ' (embedded chain)' : ` (external anvil, ${blockTime}-second blocks)`),
);
console.log(
  `node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}\n`,
);
console.log(
  '| mode | ops/s (all rounds) | ops/s per round | transactions | p50 ms | p95 ms | first ops (deploy) ops/s |',
);
console.log('|---|---:|---|---:|---:|---:|---:|');
for (const m of modes) {
  const sorted = [...m.latencies].sort((a, b) => a - b);
  const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);
  console.log(
    `| ${m.name} | ${(m.latencies.length / m.seconds).toFixed(0)} | ${m.roundRates.map((r) => r.toFixed(0)).join(', ')} | ${m.transactions.size} | ${at(0.5)} | ${at(0.95)} | ${(concurrency / m.deploySeconds).toFixed(0)} |`,
  );
}
const rate = (m: Mode) => m.latencies.length / m.seconds;
if (blockTime !== undefined) {
  const [bundled] = modes as [Mode];
  writeBenchSummary({
    bench: `ops-block-time-${blockTime}`,
    block_time_seconds: blockTime,
    concurrency,
    rounds,
    ops_per_round: opsPerRound,
    ops_per_second: Number(rate(bundled).toFixed(1)),
    round_rates: bundled.roundRates.map((r) => Number(r.toFixed(1))),
    transactions: bundled.transactions.size,
    ops_per_transaction: Number((bundled.latencies.length / bundled.transactions.size).toFixed(1)),
    largest_bundle: Math.max(0, ...bundled.bundleSizes),
  });
  console.log(
    `\n${(bundled.latencies.length / bundled.transactions.size).toFixed(1)} operations per bundle on average, ` +
      `largest ${Math.max(0, ...bundled.bundleSizes)}`,
  );
  process.exit(0);
}
const [bundled, single] = modes as [Mode, Mode];
const overall = rate(bundled) / rate(single);
writeBenchSummary({
  bench: 'ops',
  concurrency,
  rounds,
  ops_per_round: opsPerRound,
  modes: modes.map((m) => ({
    name: m.name,
    ops_per_second: Number(rate(m).toFixed(1)),
    round_rates: m.roundRates.map((r) => Number(r.toFixed(1))),
    transactions: m.transactions.size,
  })),
  bundled_vs_single: Number(overall.toFixed(2)),
  bundled_vs_single_by_median_round: Number(
    (median(bundled.roundRates) / median(single.roundRates)).toFixed(2),
  ),
  ...(sessionMode ? { session_vs_owner: Number((rate(sessionMode) / rate(bundled)).toFixed(2)) } : {}),
  // Round by round (bundled round r ÷ one-op round r): the spread of the ratio.
  round_ratios: bundled.roundRates.map((r, i) => Number((r / single.roundRates[i]!).toFixed(2))),
});
console.log(
  `\nbundled / one op per tx: ${overall.toFixed(1)}x overall, ${(median(bundled.roundRates) / median(single.roundRates)).toFixed(1)}x by median round`,
);
if (sessionMode) {
  console.log(
    `session-key operations / owner operations (bundled): ${(rate(sessionMode) / rate(bundled)).toFixed(2)}x overall, ${(median(sessionMode.roundRates) / median(bundled.roundRates)).toFixed(2)}x by median round`,
  );
}
if (modes.length >= 4) {
  const [, , bundledOff, singleOff] = modes as [Mode, Mode, Mode, Mode];
  const cost = (on: Mode, off: Mode) =>
    `${((1 - median(on.roundRates) / median(off.roundRates)) * 100).toFixed(1)}% by median round ` +
    `(${((1 - rate(on) / rate(off)) * 100).toFixed(1)}% overall)`;
  console.log(
    `chain journal cost (1 − on/off ops/s): bundled ${cost(bundled, bundledOff)}, one op per tx ${cost(single, singleOff)}`,
  );
}
