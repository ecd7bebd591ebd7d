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
 *   npm run bench:ops -- --block-time 2 --bundles-in-flight 1,8   # one mode per BUNDLES_IN_FLIGHT value
 *   npm run bench:ops -- --block-time 2 --bundles-in-flight 8 --bundler builtin,alto   # beside Alto
 *
 * `--bundler builtin,alto` (with `--block-time` only; default `builtin`) adds a mode whose user operations go
 * through BUNDLER_RPC_URL to a real Alto (`@pimlico/alto`, started as in the Alto tests:
 * packages/server/test/chain/bundler/alto.ts) on its own anvil of the same kind, alternating rounds with the
 * built-in modes. Alto gets as many executor accounts as the largest `--bundles-in-flight` value (one bundle in
 * flight per executor), its bundles the built-in bundler's gas cap (90% of the block's), bundle mode auto
 * (docs/performance.md, "Bundles in flight"). BENCH_ALTO_LOG=<file> keeps Alto's log (at info) there.
 * With `--block-time` the bundled mode runs once per `--bundles-in-flight` value (default `1,8`: one bundle
 * per block against the default), in alternating rounds, each on its own anvil; the table adds the blocks the
 * measured operations landed in, bundles per block, and each mined bundle's gas asked (its transaction's
 * limit) against what it used. Without it, `--bundles-in-flight` sets the bundled modes' value (first one).
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
import { type Hex, parseEther } from 'viem';
import { generatePrivateKey } from 'viem/accounts';
import { startExternalNode } from './externalNode.js';
import { stakePaymaster, startAltoOn } from '../packages/server/test/chain/bundler/alto.js';
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
import { AppError } from '../packages/server/src/errors.js';
import { openDatabase } from '../packages/server/src/db/database.js';
import { migrateToLatest } from '../packages/server/src/db/migrate.js';
import { writeBenchSummary } from './summary.js';
import { DEFAULT_BUNDLER_OPTIONS } from '../packages/server/src/chain/operations/bundler.js';

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
    'bundles-in-flight': { type: 'string' },
    bundler: { type: 'string', default: 'builtin' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  console.log(`npm run bench:ops -- [options]
  --concurrency N          closed-loop callers, each with its own wallet (default 50)
  --ops N                  operations per round and mode (default 250)
  --rounds N               rounds per mode, alternating between the modes (default 3)
  --journal on|off|both    the chain journal on, off, or both side by side (default both)
  --session on|off         the session-key mode on the embedded chain (default on)
  --block-time S           an external anvil mining a block every S seconds (bundled modes only)
  --bundle-max-ops N       BUNDLE_MAX_OPERATIONS of the bundled modes
  --bundles-in-flight L    BUNDLES_IN_FLIGHT: with --block-time one mode per value of the comma-separated
                           list (default 1,${DEFAULT_BUNDLER_OPTIONS.bundlesInFlight}); else the bundled modes' value
  --bundler L              with --block-time: builtin, alto or builtin,alto (default builtin); alto sends the
                           operations through BUNDLER_RPC_URL to an Alto of its own (as many executors as the
                           largest --bundles-in-flight value); BENCH_ALTO_LOG=<file> keeps its log
  --replicas N             N replicas against one (external anvil and PostgreSQL; bench/ops.replicas.ts)`);
  process.exit(0);
}
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
/** `--bundler`: the built-in bundler's modes, a mode through Alto (BUNDLER_RPC_URL), or both. */
const bundlers = values.bundler.split(',');
if (bundlers.some((b) => b !== 'builtin' && b !== 'alto') || bundlers.length === 0) {
  console.error(`--bundler: builtin, alto or builtin,alto (got ${values.bundler})`);
  process.exit(2);
}
if (bundlers.includes('alto') && blockTime === undefined) {
  console.error('--bundler alto: needs --block-time (an external anvil that Alto serves too)');
  process.exit(2);
}
const journalModes = values.journal === 'both' ? [true, false] : [values.journal !== 'off'];
/** `--bundle-max-ops`: BUNDLE_MAX_OPERATIONS of the bundled modes (default: the configuration's default). */
const bundleMaxOps = values['bundle-max-ops'] === undefined ? undefined : Number(values['bundle-max-ops']);
/** `--bundles-in-flight`: BUNDLES_IN_FLIGHT values (with `--block-time`, one bundled mode each). */
const inFlightValues =
  values['bundles-in-flight']?.split(',').map(Number) ??
  (blockTime === undefined ? [] : [1, DEFAULT_BUNDLER_OPTIONS.bundlesInFlight]);
const bundlerOptions = (inFlight: number | undefined): Pick<ChainServicesOptions, 'bundler'> => ({
  bundler: {
    ...(bundleMaxOps === undefined ? {} : { maxOpsPerBundle: bundleMaxOps }),
    ...(inFlight === undefined ? {} : { bundlesInFlight: inFlight }),
  },
});
const bundledOptions = bundlerOptions(inFlightValues[0]);
/** BENCH_ALTO_LOG: the file Alto's log goes to (its executor and mempool at info). */
const altoLog = process.env.BENCH_ALTO_LOG;
/** Alto's `--max-gas-per-bundle`: what the built-in bundler allows a bundle, 90% of anvil's 30M block. */
const ALTO_MAX_GAS_PER_BUNDLE = 27_000_000;
/** Deploying operations sent to Alto at once (its set-up only; the measured rounds use all callers). */
const ALTO_DEPLOY_WAVE = 50;
const concurrency = Number(values.concurrency);
const opsPerRound = Number(values.ops);
const rounds = Number(values.rounds);

interface Mode {
  name: string;
  options: ChainServicesOptions;
  chain: ChainServices;
  transfer: (
    owner: OperationOwner,
  ) => Promise<{ success: boolean; txHash: string; blockNumber: bigint; revert?: { message: string } }>;
  owners: OperationOwner[];
  close: () => Promise<void>;
  deploySeconds: number;
  latencies: number[];
  seconds: number;
  transactions: Set<string>;
  /** Its user operations go through BUNDLER_RPC_URL to Alto (`--bundler alto`). */
  throughAlto: boolean;
  /** Operations answered 503 (the bundler did not answer in time; nothing sent), sent again by their caller. */
  unavailable: number;
  /** CPU seconds of this process (dauth and the load) during the measured rounds. */
  cpuSeconds: number;
  /** Alto's CPU seconds so far (0 without Alto); `altoSeconds`: during the measured rounds. */
  altoCpuSeconds: () => number;
  altoSeconds: number;
  /** Measured operations per transaction hash. */
  opsPerTransaction: Map<string, number>;
  roundRates: number[];
  /** Operations of each mined bundle (the service's bundle observer), measured rounds only. */
  bundleSizes: number[];
  /**
   * Gas each mined bundle's transaction asked (its limit), used, and the worst-case bound of its operations'
   * limits (what a bundle asked before issue 43), measured rounds only.
   */
  bundleGas: { asked: bigint; used: bigint; bound: bigint }[];
  /** Blocks the measured operations landed in. */
  blocks: Set<bigint>;
}

const randomOwner = () => ownerFromPrivateKey(Buffer.from(generatePrivateKey().slice(2), 'hex'));

/**
 * A fresh embedded chain with `concurrency` funded wallets, each deployed by its first operation. With
 * `session`, each wallet is then handed to its session account and given a session key, which signs the
 * measured operations.
 */
async function setUp(
  name: string,
  options: ChainServicesOptions,
  session = false,
  altoExecutors?: number,
): Promise<Mode> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-bench-ops-'));
  const database = openDatabase({ sqlitePath: path.join(dataDir, 'dauth.sqlite') });
  await migrateToLatest(database.db);
  const external = blockTime === undefined ? undefined : await startExternalNode(blockTime, '1000');
  // With `altoExecutors`: Alto on the same anvil (the canonical EntryPoint placed first), dauth's user
  // operations sent to it through BUNDLER_RPC_URL.
  const alto =
    external && altoExecutors !== undefined
      ? await startAltoOn({
          rpcUrl: external.anvil.rpcUrl,
          executors: altoExecutors,
          ...(altoLog ? { logPath: options.journal === false ? `${altoLog}.journal-off` : altoLog } : {}),
          extraArgs: [
            // BENCH_ALTO_LOG: its bundles (executor) and mempool at info, as JSON lines.
            ...(altoLog ? ['--json', '--executor-log-level', 'info', '--mempool-log-level', 'info'] : []),
            // Polls the chain at its block time, as in the Alto tests.
            '--block-time',
            String(blockTime! * 1000),
            // The built-in bundler's cap: 90% of the block's gas limit (30M on anvil).
            '--max-gas-per-bundle',
            String(ALTO_MAX_GAS_PER_BUNDLE),
          ],
        })
      : undefined;
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ...external?.env,
    ...(alto ? { BUNDLER_RPC_URL: alto.url } : {}),
  });
  const chain = await createChainServices(
    config,
    // BENCH_LOG_LEVEL=warn shows the service's warnings (a bundle dropped or replaced) on stderr.
    {
      logger: pino({ level: process.env.BENCH_LOG_LEVEL ?? 'silent' }, pino.destination(2)),
      db: database.db,
    },
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
    // Staked, as the Alto tests have it (ERC-7562 lets a staked paymaster read its own storage).
    if (alto) {
      await stakePaymaster({
        rpcUrl: external.anvil.rpcUrl,
        deployerKey: external.env.DEPLOYER_PRIVATE_KEY as Hex,
        paymaster: chain.info.contracts.paymaster,
      });
    }
    // From here on a block every `blockTime` seconds, whatever is pending.
    await external.intervalMining();
  }
  const bundleSizes: number[] = [];
  const bundleGas: Mode['bundleGas'] = [];
  let measuring = false;
  chain.telemetry.observeBundles({
    bundleMined: (size, gas) => {
      if (!measuring) return;
      bundleSizes.push(size);
      if (gas) bundleGas.push(gas);
    },
    bundleFailed: () => undefined,
    operationReverted: () => undefined,
  });
  const deployStart = performance.now();
  if (alto) {
    // Through Alto the deploying operations go in waves: 400 at once had its gas estimates answer after
    // dauth's 10-s bundler timeout on this machine (503 chain_unavailable). Not the measured rounds.
    for (let i = 0; i < owners.length; i += ALTO_DEPLOY_WAVE) {
      await Promise.all(owners.slice(i, i + ALTO_DEPLOY_WAVE).map(ownerTransfer));
    }
  } else {
    await Promise.all(owners.map(ownerTransfer));
  }
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
    opsPerTransaction: new Map(),
    throughAlto: alto !== undefined,
    unavailable: 0,
    cpuSeconds: 0,
    altoCpuSeconds: () => (alto ? processCpuSeconds(alto.pid) : 0),
    altoSeconds: 0,
    roundRates: [],
    bundleSizes,
    bundleGas,
    blocks: new Set(),
    close: async () => {
      await chain.close();
      await alto?.stop();
      await external?.anvil.stop();
      await database.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** User plus system CPU seconds of a child process so far (Linux `/proc/<pid>/stat`, 100 ticks a second). */
function processCpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Closed loop: each caller sends its next operation as soon as its previous one returned. */
async function runRound(mode: Mode): Promise<void> {
  let remaining = opsPerRound;
  const start = performance.now();
  const cpu = process.cpuUsage();
  const altoCpu = mode.altoCpuSeconds();
  await Promise.all(
    mode.owners.map(async (owner) => {
      while (remaining > 0) {
        remaining -= 1;
        const t0 = performance.now();
        let result: Awaited<ReturnType<Mode['transfer']>>;
        try {
          result = await mode.transfer(owner);
        } catch (err) {
          // Through Alto: a 503 (the bundler did not answer within dauth's timeout; nothing was sent, nothing
          // changed) is counted, and the caller sends again, as a client would. Anything else stops the run.
          if (!(mode.throughAlto && err instanceof AppError && err.status === 503)) throw err;
          mode.unavailable += 1;
          remaining += 1;
          continue;
        }
        mode.latencies.push(performance.now() - t0);
        if (!result.success) throw new Error(`operation reverted: ${result.revert?.message}`);
        mode.transactions.add(result.txHash);
        mode.opsPerTransaction.set(result.txHash, (mode.opsPerTransaction.get(result.txHash) ?? 0) + 1);
        mode.blocks.add(result.blockNumber);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  mode.seconds += seconds;
  mode.roundRates.push(opsPerRound / seconds);
  const used = process.cpuUsage(cpu);
  mode.cpuSeconds += (used.user + used.system) / 1e6;
  mode.altoSeconds += mode.altoCpuSeconds() - altoCpu;
}

const modes: Mode[] = [];
for (const journal of journalModes) {
  const suffix = journal ? '' : ', journal off';
  if (blockTime !== undefined) {
    // At a block every few seconds one operation per transaction is one per block: the comparison is the
    // embedded chain's; `--block-time` measures the bundled mode, once per BUNDLES_IN_FLIGHT value.
    if (bundlers.includes('builtin')) {
      for (const inFlight of inFlightValues) {
        modes.push(
          await setUp(`bundled, ${inFlight} in flight${suffix}`, { journal, ...bundlerOptions(inFlight) }),
        );
      }
    }
    if (bundlers.includes('alto')) {
      // Alto sends one bundle at a time per executor account: as many as the built-in modes' most in flight.
      const executors = Math.max(1, ...inFlightValues);
      modes.push(
        await setUp(`Alto (BUNDLER_RPC_URL), ${executors} executors${suffix}`, { journal }, false, executors),
      );
    }
    continue;
  }
  modes.push(await setUp(`bundled${suffix}`, { journal, ...bundledOptions }));
  // One after another, as before bundles in flight: the baseline of no bundling at all.
  modes.push(
    await setUp(`one op per tx${suffix}`, {
      journal,
      bundler: { maxOpsPerBundle: 1, windowMs: 0, bundlesInFlight: 1 },
    }),
  );
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
const ratio3 = (x: number | undefined) => (x === undefined ? undefined : Number(x.toFixed(3)));
const ratios3 = (xs: number[]) => (xs.length ? Number(median(xs).toFixed(3)) : undefined);
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
  // Per mined bundle: gas asked (the transaction's limit) ÷ gas used; and the same over all bundles.
  const gasRatios = (m: Mode) => m.bundleGas.map((g) => Number(g.asked) / Number(g.used));
  const totalRatio = (m: Mode, of: 'asked' | 'bound' = 'asked') => {
    const asked = m.bundleGas.reduce((sum, g) => sum + g[of], 0n);
    const used = m.bundleGas.reduce((sum, g) => sum + g.used, 0n);
    return used === 0n ? undefined : Number(asked) / Number(used);
  };
  const fixed = (x: number | undefined, digits: number) => (x === undefined ? '—' : x.toFixed(digits));
  /**
   * Largest bundle: the service's bundle observer; through Alto (whose bundles it does not see: it reports each
   * operation as a bundle of one) the most measured operations that landed in one transaction.
   */
  const largest = (m: Mode) =>
    m.throughAlto ? Math.max(0, ...m.opsPerTransaction.values()) : Math.max(0, ...m.bundleSizes);
  const perTx = (m: Mode) => m.latencies.length / m.transactions.size;
  const ms = (seconds: number, m: Mode) => ((seconds * 1000) / m.latencies.length).toFixed(1);
  console.log('\n| mode | CPU ms per operation: this process (dauth) | Alto | answered 503, sent again |');
  console.log('|---|---:|---:|---:|');
  for (const m of modes) {
    console.log(
      `| ${m.name} | ${ms(m.cpuSeconds, m)} | ${m.throughAlto ? ms(m.altoSeconds, m) : '—'} | ${m.throughAlto ? m.unavailable : '—'} |`,
    );
  }
  console.log(
    '\n| mode | bundles per block (avg) | operations per bundle (avg, largest) | gas asked ÷ used per bundle (median, range) | all bundles asked ÷ used | worst-case bound ÷ used (the old ask) |',
  );
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const m of modes) {
    const ratios = gasRatios(m);
    console.log(
      `| ${m.name} | ${(m.transactions.size / m.blocks.size).toFixed(2)} | ${perTx(m).toFixed(1)}, ${largest(m)} | ` +
        `${ratios.length ? `${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})` : '—'} | ${fixed(totalRatio(m), 2)} | ${fixed(totalRatio(m, 'bound'), 2)} |`,
    );
  }
  writeBenchSummary({
    bench: `ops-block-time-${blockTime}`,
    block_time_seconds: blockTime,
    concurrency,
    rounds,
    ops_per_round: opsPerRound,
    modes: modes.map((m) => ({
      name: m.name,
      ops_per_second: Number(rate(m).toFixed(1)),
      round_rates: m.roundRates.map((r) => Number(r.toFixed(1))),
      transactions: m.transactions.size,
      blocks: m.blocks.size,
      ops_per_transaction: Number(perTx(m).toFixed(1)),
      largest_bundle: largest(m),
      gas_asked_per_used_median: ratios3(gasRatios(m)),
      gas_asked_per_used_all: ratio3(totalRatio(m)),
      gas_bound_per_used_all: ratio3(totalRatio(m, 'bound')),
      process_cpu_ms_per_op: Number(ms(m.cpuSeconds, m)),
      ...(m.throughAlto
        ? { alto_cpu_ms_per_op: Number(ms(m.altoSeconds, m)), answered_503_sent_again: m.unavailable }
        : {}),
    })),
  });
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
