/**
 * The benchmark runs of `npm run bench:all` (which command, which environment, full or `--quick`), and
 * the hot paths its regression guard (`--against <ref>`, bench/against.ts) alternates between two trees.
 * Paths are relative to the tree the run is spawned in, so the same run starts the working tree's
 * benchmark or a scratch worktree's.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import type { HotPathId, RunId } from './figures.js';

export interface Run {
  id: RunId;
  /** Arguments after `node`, from the tree's root unless `cwd` says otherwise. */
  args: string[];
  /** A directory relative to the tree's root. */
  cwd?: string;
  env?: Record<string, string>;
  /**
   * Runs on the PostgreSQL bench:all was given (`--pg <url>` or DATABASE_URL; one given that cannot be used
   * stops bench:all before any run): a target run is skipped without one; a hot path of the guard (webhooks)
   * then runs on its SQLite default.
   */
  postgres?: boolean;
}

/**
 * Why the PostgreSQL at `url` cannot be used, as bench:all and its regression guard both print it before they
 * stop (the driver's message: a refused connection, an unknown role, no user name in the URL), or undefined
 * when it answers a query within 3 s.
 */
export async function postgresProblem(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return `the PostgreSQL of --pg or DATABASE_URL cannot be used (${reason}); nothing was run`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Starts `run` in `tree` (a repository root) with its output on ours; resolves with its exit code. */
export function spawnRun(run: Run, tree: string, env: NodeJS.ProcessEnv): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, run.args, {
      cwd: run.cwd ? path.join(tree, run.cwd) : tree,
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('error', reject);
    child.once('exit', (code) => resolve(code));
  });
}

const tsx = ['--conditions', 'development', '--import', 'tsx'];

/** The runs in order, full or quick (`--quick`: seconds, not minutes, and figures that mean nothing). */
export function benchRuns(quick: boolean): Run[] {
  const http: Record<string, string> = quick
    ? { BENCH_SECONDS: '2', BENCH_REPEAT: '1', BENCH_CODES: '600', BENCH_WARMUP_CODES: '200' }
    : {};
  const backend: Record<string, string> = quick
    ? { BENCH_SECONDS: '3', BENCH_WARMUP_SECONDS: '1', BENCH_USERS: '5' }
    : {};
  const webhooks: Record<string, string> = quick ? { BENCH_EVENTS: '200', BENCH_SECONDS: '2' } : {};
  return [
    { id: 'http', args: [...tsx, 'bench/http.bench.ts'], env: http },
    { id: 'http-pg', args: [...tsx, 'bench/http.bench.ts'], env: http, postgres: true },
    {
      id: 'ops',
      args: [
        ...tsx,
        'bench/ops.bench.ts',
        ...(quick ? ['--concurrency', '10', '--ops', '30', '--rounds', '2', '--journal', 'on'] : []),
      ],
    },
    {
      // Issue 43's whole block: ERC-20 transfers at 2-second blocks, one bundle per block beside the default
      // BUNDLES_IN_FLIGHT (docs/performance.md, "Bundles in flight").
      id: 'ops-block-2',
      args: [
        ...tsx,
        'bench/ops.bench.ts',
        '--block-time',
        '2',
        '--journal',
        'on',
        ...(quick
          ? ['--concurrency', '20', '--ops', '40', '--rounds', '1']
          : ['--concurrency', '400', '--ops', '1200', '--rounds', '3']),
      ],
    },
    {
      id: 'content',
      args: [...tsx, 'bench/content.bench.ts'],
      // Quick: only the production configuration (journal on), not the side-by-side journal cost.
      env: quick
        ? { BENCH_SECONDS: '3', BENCH_WARMUP_SECONDS: '1', BENCH_CALLERS: '20', BENCH_JOURNAL: 'on' }
        : {},
    },
    {
      // Consumptions at 2-second blocks. An answer waits for its block (decisions: 200 after inclusion), so
      // closed-loop callers give at most callers ÷ p50 per second: 2,000 callers could not show 2,000/s at
      // any p50 above one second, and the wait for the next block alone averages one. 5,000 callers (a game
      // backend fleet's concurrent requests) reach 2,000/s at a p50 of 2.5 s (docs/performance-content.md,
      // round 3); the embedded run above measures balance_adex.
      id: 'content-block-2',
      args: [...tsx, 'bench/content.bench.ts', '--journal', 'on', '--block-time', '2'],
      env: {
        BENCH_ROUNDS: '1',
        BENCH_BALANCE_ROUNDS: '0',
        ...(quick
          ? { BENCH_SECONDS: '4', BENCH_CALLERS: '100' }
          : { BENCH_SECONDS: '12', BENCH_CALLERS: '5000' }),
      },
    },
    { id: 'backend', args: [...tsx, 'bench/backend.bench.ts'], env: backend },
    { id: 'backend-pg', args: [...tsx, 'bench/backend.bench.ts'], env: backend, postgres: true },
    {
      id: 'pin',
      args: [
        ...tsx,
        'bench/pin.bench.ts',
        ...(quick
          ? [
              '--seconds',
              '3',
              '--idle-seconds',
              '2',
              '--users',
              '16',
              '--concurrency',
              '8',
              '--probe-rps',
              '50',
            ]
          : []),
      ],
    },
    {
      id: 'passkeys',
      args: [
        ...tsx,
        'bench/passkeys.bench.ts',
        ...(quick ? ['--seconds', '2', '--users', '4', '--concurrency', '4'] : []),
      ],
    },
    {
      id: 'mfa',
      args: [
        ...tsx,
        'bench/mfa.bench.ts',
        // Every first step is a scrypt at the production cost: 2 accounts of each kind keep it short.
        ...(quick ? ['--users', '2', '--rounds', '1', '--concurrency', '2', '--totp-steps', '1'] : []),
      ],
    },
    { id: 'webhooks-pg', args: [...tsx, 'bench/webhooks.bench.ts'], env: webhooks, postgres: true },
    {
      id: 'players',
      args: [...tsx, 'bench/players.bench.ts', ...(quick ? ['--players', '20000', '--lookups', '200'] : [])],
      postgres: true,
    },
    // --check: bench:all reads the gas figures but leaves gas-report.md to `npm run bench:gas`.
    {
      id: 'gas',
      args: ['--import', 'tsx', 'scripts/benchGas.ts', '--check'],
      cwd: 'packages/contracts',
    },
  ];
}

export interface HotPath {
  id: HotPathId;
  /** The benchmark run, narrowed to the hot path and to one measured round per invocation. */
  run: Run;
}

/**
 * The hot paths of the regression guard, each a benchmark of `benchRuns` narrowed to it: one measured
 * round per invocation (the guard alternates the trees between invocations, so the benchmark's own
 * repeats would put one tree's rounds side by side) and nothing else measured. All run on SQLite but
 * webhooks, which runs on PostgreSQL when bench:all has one (`postgres`, as its webhooks-pg run).
 */
export function hotPaths(quick: boolean): HotPath[] {
  const run = (id: RunId) => {
    const found = benchRuns(quick).find((r) => r.id === id);
    if (!found) throw new Error(`no run ${id}`);
    return found;
  };
  const narrowed = (id: RunId, env: Record<string, string>): Run => {
    const base = run(id);
    return { ...base, env: { ...base.env, ...env } };
  };
  return [
    { id: 'validate', run: narrowed('http', { BENCH_ONLY: 'b', BENCH_REPEAT: '1' }) },
    { id: 'exchange', run: narrowed('http', { BENCH_ONLY: 'c', BENCH_REPEAT: '1' }) },
    { id: 'backend', run: run('backend') },
    {
      id: 'consumption',
      // Callers pinned for both trees: a ref from before 30 November defaults to 100, today's bench to 400
      // (one full batch). The quick run keeps its own 20.
      run: narrowed('content', {
        BENCH_JOURNAL: 'on',
        BENCH_ROUNDS: '1',
        BENCH_BALANCE_ROUNDS: '0',
        ...(quick ? {} : { BENCH_CALLERS: '400' }),
      }),
    },
    { id: 'pin', run: run('pin') },
    // Every first step is a password sign-in: scrypt at the production cost (log N 17) makes one run
    // take ~10 minutes, at 14 about a minute. The second step compared does not depend on scrypt's cost.
    // Two TOTP sub-rounds, not four: each waits for a fresh 30-s step once the quick first steps are done.
    { id: 'mfa', run: narrowed('mfa', { SCRYPT_LOG_N: '14', BENCH_TOTP_STEPS: '2' }) },
    // The bench's own 10,000-event burst (1.5–4 s since the dispatcher claims at once).
    { id: 'webhooks', run: run('webhooks-pg') },
  ];
}
