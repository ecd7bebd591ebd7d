/**
 * The regression guard of `npm run bench:all -- --against <ref>` (bench/regression.ts): its arguments,
 * the comparison of two trees' rounds and the table. No benchmark, git or process runs here.
 */
import { describe, expect, it } from 'vitest';
import { REGRESSION_METRICS, type RegressionMetric } from '../../../../bench/figures.js';
import {
  compareFigure,
  compareHotPaths,
  HOT_PATH_IDS,
  parseBenchAllArgs,
  parseTolerance,
  regressions,
  renderRegressionTable,
} from '../../../../bench/regression.js';
import { benchRuns, hotPaths } from '../../../../bench/runs.js';

const metric = (id: string): RegressionMetric => {
  const found = REGRESSION_METRICS.find((m) => m.id === id);
  if (!found) throw new Error(`no metric ${id}`);
  return found;
};

/** An http-bench summary of validate alone (what the guard's validate run writes). */
const validateSummary = (rps: number, cpu: (number | null)[]) => ({
  bench: 'http',
  runs: { b: { rps, rounds: [rps], cpu_us_per_request: cpu } },
});

/** A bench:mfa summary's second-step phases (net and gross CPU per call, failed calls), as it writes them. */
const mfaSummary = (totp: [number, number, number], recovery: [number, number, number]) => ({
  settings: { concurrency: 8, users: 64, rounds: 2, scrypt_log_n: '14' },
  background_cpu_ms_per_second: 27.9,
  results: [
    {
      name: 'password (no TOTP)',
      calls: 128,
      server_cpu_ms_per_call: 95.1,
      server_cpu_ms_per_call_net: 94.2,
      failed: 0,
    },
    ...(
      [
        ['login/mfa, TOTP code', 128, totp],
        ['login/mfa, recovery code', 512, recovery],
      ] as const
    ).map(([name, calls, [net, gross, failed]]) => ({
      name,
      calls,
      server_cpu_ms_per_call: gross,
      server_cpu_ms_per_call_net: net,
      failed,
    })),
  ],
});

/** A bench:webhooks summary as the guard's run writes it, with the 29 November evening run's figures. */
const webhooksSummary = (fields: Record<string, number> = {}) => ({
  database: 'sqlite',
  concurrency: 16,
  burst_events: 3000,
  burst_delivered_per_second: 1032.7,
  steady_rate_per_second: 100,
  steady_events: 999,
  steady_delivered: 999,
  steady_p50_ms: 7.9,
  steady_p99_ms: 53.9,
  rejected_by_receiver: 0,
  ...fields,
});

const context = {
  date: '2026-11-29',
  machine: { cores: 2, cpu: 'AMD EPYC 7B13', node: 'v24.21.0', memory_gib: 24 },
  command: 'npm run bench:all -- --against 62769b0',
  ref: { name: '62769b0', commit: '62769b0d6b88350fc82abf537ea3dd931339dc04' },
  tree: { commit: '5f463a9a3c1e0000000000000000000000000000', dirty: false },
  rounds: 3,
  tolerance: 0.1,
  quick: false,
};

describe('bench:all arguments', () => {
  it('reads the guard: ref, hot paths, rounds, tolerance as a percentage', () => {
    expect(
      parseBenchAllArgs([
        '--against',
        'HEAD~1',
        '--only',
        'validate, pin',
        '--rounds',
        '5',
        '--tolerance',
        '7.5%',
        '--quick',
      ]),
    ).toEqual({
      against: 'HEAD~1',
      only: ['validate', 'pin'],
      rounds: 5,
      tolerance: 0.075,
      quick: true,
      write: false,
    });
  });

  it('defaults to 3 rounds and 10 %, and leaves the targets run as it was', () => {
    expect(parseBenchAllArgs(['--against', '62769b0'])).toMatchObject({ rounds: 3, tolerance: 0.1 });
    expect(parseBenchAllArgs(['--rows', 'pin,backend', '--write'])).toEqual({
      only: ['pin', 'backend'],
      quick: false,
      write: true,
      rounds: 3,
      tolerance: 0.1,
    });
  });

  it('refuses what it cannot honour, with the reason', () => {
    expect(() => parseBenchAllArgs(['--against', 'HEAD~1', '--only', 'validate,gas'])).toThrow(
      /unknown hot path\(s\) gas; hot paths: validate, exchange, backend, consumption, pin, mfa, webhooks$/,
    );
    expect(() => parseBenchAllArgs(['--against', 'HEAD~1', '--rounds', '0'])).toThrow(/--rounds/);
    expect(() => parseBenchAllArgs(['--against', 'HEAD~1', '--rounds', '2.5'])).toThrow(/--rounds/);
    expect(() => parseBenchAllArgs(['--against', 'HEAD~1', '--write'])).toThrow(/never writes/);
    expect(() => parseBenchAllArgs(['--against', '--quick'])).toThrow(/'--against' argument is ambiguous/);
    expect(() => parseBenchAllArgs(['--against='])).toThrow(/--against needs a git ref/);
    expect(() => parseBenchAllArgs(['--rounds', '3'])).toThrow(/go with --against/);
    expect(() => parseBenchAllArgs(['--deps', 'ours'])).toThrow(/go with --against/);
    expect(() => parseBenchAllArgs(['--against', '62769b0', '--deps', 'mine'])).toThrow(
      /--deps is ours or ref/,
    );
    expect(parseBenchAllArgs(['--against', '62769b0', '--deps', 'ours'])).toMatchObject({ deps: 'ours' });
    expect(() => parseBenchAllArgs(['--tolerance', '5'])).toThrow(/go with --against/);
    expect(() => parseBenchAllArgs(['--agianst', 'HEAD~1'])).toThrow(/agianst/);
  });

  it('tolerance: a percentage from 0 to under 100', () => {
    expect(parseTolerance('10')).toBe(0.1);
    expect(parseTolerance(' 2.5 % ')).toBe(0.025);
    expect(parseTolerance('0')).toBe(0);
    for (const bad of ['', 'ten', '-5', '100', '0.1.2'])
      expect(() => parseTolerance(bad)).toThrow(/--tolerance/);
  });
});

describe('comparing two trees', () => {
  it('medians over rounds, working tree ÷ ref, worse beyond the tolerance for a throughput', () => {
    const rps = metric('validate-rps');
    // Medians 20,000 (ref) and 17,000 (tree): 0.85×, 15 % worse.
    const c = compareFigure(rps, [21_000, 19_000, 20_000], [16_000, 17_000, 30_000], 0.1);
    expect(c.refMedian).toBe(20_000);
    expect(c.treeMedian).toBe(17_000);
    expect(c.ratio).toBeCloseTo(0.85, 10);
    expect(c.worseBy).toBeCloseTo(0.15, 10);
    expect(c.verdict).toBe('worse');
    // The same fall inside a 20 % tolerance.
    expect(compareFigure(rps, [20_000], [17_000], 0.2).verdict).toBe('within tolerance');
  });

  it('a cost is worse when it rises: CPU per request up 12 % against 10 %', () => {
    const cpu = metric('validate-cpu');
    const worse = compareFigure(cpu, [40, 41, 39], [44.8, 44.8, 45], 0.1);
    expect(worse.ratio).toBeCloseTo(1.12, 10);
    expect(worse.verdict).toBe('worse');
    const better = compareFigure(cpu, [40], [30], 0.1);
    expect(better.worseBy).toBeCloseTo(-0.25, 10);
    expect(better.verdict).toBe('better');
    // Exactly at the tolerance is still within it.
    expect(compareFigure(cpu, [40], [44], 0.1).verdict).toBe('within tolerance');
  });

  it('a side without figures is "no figure", never a regression; an even count takes the middle pair', () => {
    const cpu = metric('pin-loop-cpu');
    expect(compareFigure(cpu, [undefined, undefined], [1, 1], 0.1).verdict).toBe('no figure');
    expect(compareFigure(cpu, [0], [1], 0.1).verdict).toBe('no figure');
    // A net cost at or below zero on either side (a busy machine) makes no ratio.
    expect(compareFigure(cpu, [-0.95, 1.17, -1], [3.64, 0.54, 1], 0.1).verdict).toBe('no figure');
    expect(compareFigure(cpu, [1], [-0.2], 0.1).verdict).toBe('no figure');
    // A throughput of 0 on the working tree's side (errors) is the worst figure, not a missing one.
    expect(compareFigure(metric('pin-rate'), [5], [0], 0.1).verdict).toBe('worse');
    expect(compareFigure(metric('pin-rate'), [0], [5], 0.1).verdict).toBe('no figure');
    const partial = compareFigure(cpu, [1, undefined, 3, 2], [2, 4], 0.1);
    expect(partial.refMedian).toBe(2);
    expect(partial.treeMedian).toBe(3);
    expect(partial.verdict).toBe('worse');
  });

  it('reads each hot path round by round; an older summary lacking a field shows no figure', () => {
    const comparisons = compareHotPaths(
      ['validate', 'backend'],
      {
        // The older tree's benchmark wrote no CPU per request in its first round, nothing in the third.
        validate: [{ runs: { b: { rps: 20_000 } } }, validateSummary(21_000, [40]), undefined],
        backend: [{ round_trips_per_second: 900, errors: 0, server_cpu_ms_per_round_trip: 1.0 }],
      },
      {
        validate: [
          validateSummary(20_500, [41, 42, null]),
          validateSummary(20_800, [41]),
          validateSummary(1, []),
        ],
        // Errors make a throughput 0, whatever its rate.
        backend: [{ round_trips_per_second: 5_000, errors: 3, server_cpu_ms_per_round_trip: 0.8 }],
      },
      0.1,
    );
    expect(comparisons.map((c) => c.metric.id)).toEqual([
      'validate-rps',
      'validate-cpu',
      'backend-rate',
      'backend-cpu',
    ]);
    const [rps, cpu, rate, backendCpu] = comparisons;
    expect(rps!.refRounds).toEqual([20_000, 21_000, undefined]);
    expect(rps!.treeRounds).toEqual([20_500, 20_800, 1]);
    expect(rps!.refMedian).toBe(20_500);
    expect(rps!.treeMedian).toBe(20_500); // the middle of 1, 20,500 and 20,800
    expect(rps!.verdict).toBe('within tolerance');
    // Round 1 of the tree: median of 41 and 42 (the null skipped); round 3 wrote none.
    expect(cpu!.treeRounds).toEqual([41.5, 41, undefined]);
    expect(cpu!.refRounds).toEqual([undefined, 40, undefined]);
    expect(cpu!.treeMedian).toBe(41.25);
    expect(cpu!.verdict).toBe('within tolerance');
    expect(rate!.treeMedian).toBe(0);
    expect(rate!.verdict).toBe('worse');
    expect(backendCpu!.verdict).toBe('better');
    expect(regressions(comparisons).map((c) => c.metric.id)).toEqual(['backend-rate']);
  });

  it('every hot path has a throughput and a cost (mfa two costs), read from the figures its benchmark writes', () => {
    for (const id of HOT_PATH_IDS) {
      const mine = REGRESSION_METRICS.filter((m) => m.hotPath === id).map((m) => m.better);
      expect(mine.sort()).toEqual(id === 'mfa' ? ['lower', 'lower'] : ['higher', 'lower']);
    }
    const pin = { verifications_per_s: 70.2, verify_failures: 0, event_loop_cpu_ms_per_verification: 0.94 };
    expect(metric('pin-rate').read(pin)).toBe(70.2);
    expect(metric('pin-loop-cpu').read(pin)).toBe(0.94);
    expect(metric('pin-rate').read({ ...pin, verify_failures: 1 })).toBe(0);
    const content = { consumption: { consumptions_per_second: 1646, errors: 0, server_cpu_ms_per_op: 0.45 } };
    expect(metric('consumption-rate').read(content)).toBe(1646);
    expect(metric('consumption-cpu').read(content)).toBe(0.45);
    const http = { runs: { c: { rps: 2209, cpu_us_per_request: [452, 460, 440] } } };
    expect(metric('exchange-rps').read(http)).toBe(2209);
    expect(metric('exchange-cpu').read(http)).toBe(452);
    expect(metric('validate-rps').read(http)).toBeUndefined();
  });

  it('mfa: each second-step phase’s server CPU per call net of the idle server; failed calls, the worst cost', () => {
    // The 29 November evening run (docs/bench-results/2026-11-29-eve/mfa.json).
    const eve = mfaSummary([1.01, 1.05, 0], [0.87, 0.9, 0]);
    expect(metric('mfa-totp-cpu').read(eve)).toBe(1.01);
    expect(metric('mfa-recovery-cpu').read(eve)).toBe(0.87);
    // The night run: 184 of 512 recovery calls refused (expired mfa_tokens), cheaper than accepted ones.
    const night = mfaSummary([1.34, 1.38, 0], [1.56, 1.6, 184]);
    expect(metric('mfa-totp-cpu').read(night)).toBe(1.34);
    expect(metric('mfa-recovery-cpu').read(night)).toBe(Number.POSITIVE_INFINITY);
    // A bench from before the net figure (the morning run) gives none, never the gross one instead.
    const morning = {
      results: [
        { name: 'login/mfa, TOTP code', calls: 24, server_cpu_ms_per_call: 1.25, failed: 0 },
        { name: 'login/mfa, recovery code', calls: 240, server_cpu_ms_per_call: 0.92, failed: 0 },
      ],
    };
    expect(metric('mfa-totp-cpu').read(morning)).toBeUndefined();
    expect(metric('mfa-recovery-cpu').read(morning)).toBeUndefined();

    // Per call, lower is better: the recovery step up from 0.87 to 1.01 ms (16 %) is a regression…
    const recovery = metric('mfa-recovery-cpu');
    const worse = compareFigure(recovery, [0.87, 0.91, 0.86], [1.01, 0.98, 1.04], 0.1);
    expect(worse.refMedian).toBe(0.87);
    expect(worse.treeMedian).toBe(1.01);
    expect(worse.worseBy).toBeCloseTo(0.161, 3);
    expect(worse.verdict).toBe('worse');
    // …to 0.93 ms (7 %) within the tolerance, and down to 0.75 ms an improvement.
    expect(compareFigure(recovery, [0.87, 0.91, 0.86], [0.93, 0.9, 0.95], 0.1).verdict).toBe(
      'within tolerance',
    );
    expect(compareFigure(recovery, [0.87], [0.75], 0.1).verdict).toBe('better');
    // The TOTP step likewise: 1.01 against 1.34 ms, 33 % worse.
    expect(compareFigure(metric('mfa-totp-cpu'), [1.01], [1.34], 0.1).verdict).toBe('worse');

    // Failed calls on the working tree's side: the worst figure when they are the median…
    const failing = compareFigure(recovery, [0.87, 0.91, 0.86], [Infinity, 0.9, Infinity], 0.1);
    expect(failing.treeMedian).toBe(Number.POSITIVE_INFINITY);
    expect(failing.verdict).toBe('worse');
    // …outvoted by two good rounds, and on the ref's side no ratio (as a ref's throughput of 0).
    expect(compareFigure(recovery, [0.87], [0.9, Infinity, 0.88], 0.1).verdict).toBe('within tolerance');
    expect(compareFigure(recovery, [Infinity, Infinity], [0.9, 0.88], 0.1).verdict).toBe('no figure');
    // A net figure at or below zero (a busy machine's background over a short phase) makes none either.
    expect(compareFigure(recovery, [0.87], [-0.02], 0.1).verdict).toBe('no figure');
  });

  it('webhooks: a burst’s deliveries/s, higher is better; the steady p99, lower is better', () => {
    const burst = metric('webhooks-burst-rate');
    const p99 = metric('webhooks-steady-p99');
    expect(burst.read(webhooksSummary())).toBe(1032.7);
    expect(p99.read(webhooksSummary())).toBe(53.9);
    // Deliveries the receiver rejected make the burst's rate 0 and the p99 a failure.
    expect(burst.read(webhooksSummary({ rejected_by_receiver: 2 }))).toBe(0);
    expect(p99.read(webhooksSummary({ rejected_by_receiver: 2 }))).toBe(Number.POSITIVE_INFINITY);
    // A change never delivered has no latency to count: the p99 of the others is no figure to trust.
    expect(p99.read(webhooksSummary({ steady_delivered: 998 }))).toBe(Number.POSITIVE_INFINITY);
    expect(burst.read(webhooksSummary({ steady_delivered: 998 }))).toBe(1032.7);
    expect(burst.read({ database: 'sqlite' })).toBeUndefined();
    expect(p99.read({ steady_events: 999, steady_delivered: 999 })).toBeUndefined();

    // The burst (the 29 November runs on PostgreSQL: 1,032.7, 916.3 and 810.7/s): a fall from a median
    // of 916.3 to 810.7/s is 11.5 % worse, beyond 10 %; to 870/s, 5 %, within it.
    expect(compareFigure(burst, [1032.7, 916.3, 810.7], [810.7, 790.2, 1032.7], 0.1)).toMatchObject({
      refMedian: 916.3,
      treeMedian: 810.7,
      verdict: 'worse',
    });
    expect(compareFigure(burst, [1032.7, 916.3, 810.7], [870, 860, 1000], 0.1).verdict).toBe(
      'within tolerance',
    );
    expect(compareFigure(burst, [916.3], [1032.7], 0.1).verdict).toBe('better');
    // The p99 the other way: 53.9 → 176.1 ms is worse, 53.9 → 56.1 ms within 10 %, → 32.2 ms better.
    const slower = compareFigure(p99, [53.9], [176.1], 0.1);
    expect(slower.ratio).toBeCloseTo(3.267, 3);
    expect(slower.verdict).toBe('worse');
    expect(compareFigure(p99, [53.9], [56.1], 0.1).verdict).toBe('within tolerance');
    expect(compareFigure(p99, [53.9], [32.2], 0.1).verdict).toBe('better');
    expect(compareFigure(p99, [53.9, 50.1], [Infinity, Infinity], 0.1).verdict).toBe('worse');
  });

  it('reads mfa and webhooks round by round from their summaries', () => {
    const comparisons = compareHotPaths(
      ['mfa', 'webhooks'],
      {
        mfa: [mfaSummary([1.01, 1.05, 0], [0.87, 0.9, 0]), mfaSummary([1.05, 1.09, 0], [0.9, 0.93, 0])],
        webhooks: [webhooksSummary(), webhooksSummary({ burst_delivered_per_second: 916.3 })],
      },
      {
        mfa: [mfaSummary([1.04, 1.08, 0], [1.06, 1.1, 0]), mfaSummary([1.03, 1.07, 0], [1.56, 1.6, 184])],
        webhooks: [
          webhooksSummary({ steady_p99_ms: 56.1 }),
          webhooksSummary({ burst_delivered_per_second: 1010.4, rejected_by_receiver: 1 }),
        ],
      },
      0.1,
    );
    expect(comparisons.map((c) => c.metric.id)).toEqual([
      'mfa-totp-cpu',
      'mfa-recovery-cpu',
      'webhooks-burst-rate',
      'webhooks-steady-p99',
    ]);
    const [totp, recovery, burst, p99] = comparisons;
    expect(totp!.refMedian).toBeCloseTo(1.03, 10);
    expect(totp!.treeMedian).toBeCloseTo(1.035, 10);
    expect(totp!.verdict).toBe('within tolerance');
    expect(recovery!.treeRounds).toEqual([1.06, Number.POSITIVE_INFINITY]);
    expect(recovery!.verdict).toBe('worse');
    // The rejected delivery makes round 2's burst 0: the median of 1,032.7 and 0 against 974.5.
    expect(burst!.treeRounds).toEqual([1032.7, 0]);
    expect(burst!.treeMedian).toBeCloseTo(516.35, 10);
    expect(burst!.verdict).toBe('worse');
    expect(p99!.treeRounds).toEqual([56.1, Number.POSITIVE_INFINITY]);
    expect(p99!.verdict).toBe('worse');
    expect(regressions(comparisons).map((c) => c.metric.id)).toEqual([
      'mfa-recovery-cpu',
      'webhooks-burst-rate',
      'webhooks-steady-p99',
    ]);
  });
});

describe('the hot paths run', () => {
  it('narrow each benchmark to its path and to one measured round per invocation', () => {
    const paths = Object.fromEntries(hotPaths(false).map((p) => [p.id, p.run]));
    expect(Object.keys(paths)).toEqual(HOT_PATH_IDS);
    expect(paths.validate!.env).toEqual({ BENCH_ONLY: 'b', BENCH_REPEAT: '1' });
    expect(paths.exchange!.env).toEqual({ BENCH_ONLY: 'c', BENCH_REPEAT: '1' });
    // Callers pinned, so a ref whose bench defaulted to another count is measured at the same load.
    expect(paths.consumption!.env).toEqual({
      BENCH_JOURNAL: 'on',
      BENCH_ROUNDS: '1',
      BENCH_BALANCE_ROUNDS: '0',
      BENCH_CALLERS: '400',
    });
    expect(paths.pin!.args.at(-1)).toBe('bench/pin.bench.ts');
    // mfa: scrypt at 2^14 for the first steps (production's 2^17 makes a run ~10 minutes); the second
    // step compared does not depend on it.
    expect(paths.mfa!.args.at(-1)).toBe('bench/mfa.bench.ts');
    // Two TOTP sub-rounds: each waits for a fresh 30-s step.
    expect(paths.mfa!.env).toEqual({ SCRYPT_LOG_N: '14', BENCH_TOTP_STEPS: '2' });
    // webhooks: the bench's own burst; PostgreSQL when bench:all has one (as its webhooks-pg run), else SQLite.
    expect(paths.webhooks!.args.at(-1)).toBe('bench/webhooks.bench.ts');
    expect(paths.webhooks!.env).toEqual({});
    expect(paths.webhooks!.postgres).toBe(true);
    expect(Object.values(paths).filter((run) => run.postgres)).toEqual([paths.webhooks]);
    // Quick shapes keep the narrowing and add the short durations of bench:all --quick.
    const quick = Object.fromEntries(hotPaths(true).map((p) => [p.id, p.run]));
    expect(quick.validate!.env).toMatchObject({ BENCH_ONLY: 'b', BENCH_REPEAT: '1', BENCH_SECONDS: '2' });
    expect(quick.consumption!.env).toMatchObject({ BENCH_CALLERS: '20', BENCH_ROUNDS: '1' });
    expect(quick.pin!.args).toContain('--seconds');
    expect(quick.mfa!.env).toEqual({ SCRYPT_LOG_N: '14', BENCH_TOTP_STEPS: '2' });
    expect(quick.mfa!.args).toContain('--users');
    // The quick run's argument wins over the guard's environment default: one TOTP sub-round.
    expect(quick.mfa!.args.slice(quick.mfa!.args.indexOf('--totp-steps'))[1]).toBe('1');
    expect(quick.webhooks!.env).toEqual({ BENCH_EVENTS: '200', BENCH_SECONDS: '2' });
    // Every path is relative to the tree it runs in (the ref's scratch worktree or this one).
    for (const run of [...benchRuns(false), ...hotPaths(false).map((p) => p.run)]) {
      expect(run.args.every((a) => !a.startsWith('/'))).toBe(true);
      if (run.cwd) expect(run.cwd.startsWith('/')).toBe(false);
    }
  });
});

describe('the report', () => {
  it('names the trees, rounds and tolerance, one row per figure, regressions in bold', () => {
    const comparisons = [
      compareFigure(metric('validate-rps'), [20_000, 21_000, 19_000], [17_000, 17_500, 16_000], 0.1),
      compareFigure(metric('validate-cpu'), [40, 40.5, 39.5], [40.4, 40, 41], 0.1),
      compareFigure(metric('pin-loop-cpu'), [undefined, undefined, undefined], [0.9, 1, 0.95], 0.1),
      compareFigure(metric('backend-rate'), [900], [880], 0.1),
    ];
    const markdown = renderRegressionTable(comparisons, { ...context, loadAverage: [0.5, 0.4, 0.3] });
    const lines = markdown.split('\n');
    expect(lines[0]).toBe(
      'Generated by `npm run bench:all -- --against 62769b0` on 2026-11-29: 2 cores (AMD EPYC 7B13), 24 GiB, Node v24.21.0, load average 0.5 0.4 0.3 at the start.',
    );
    expect(markdown).toContain(
      'Ref `62769b0` (62769b0) against the working tree (5f463a9): 3 rounds each, alternating, medians; tolerance 10 %.',
    );
    expect(markdown).toContain('1 of 4 figures worse beyond the tolerance, 1 without a figure on one side.');
    // A rate's unit follows the number ("900/s"), other units after a space.
    expect(markdown).toContain(
      '| backend | Backend round trips (higher is better) | 900/s | 880/s | 0.978× | within tolerance | 900 | 880 |',
    );
    expect(markdown).toContain(
      '| validate | Token validation (higher is better) | 20,000 req/s | 17,000 req/s | 0.850× | **worse by 15 %** | 20,000 / 21,000 / 19,000 | 17,000 / 17,500 / 16,000 |',
    );
    expect(markdown).toContain(
      '| validate | Token validation: server CPU (lower is better) | 40.0 µs/request | 40.4 µs/request | 1.010× | within tolerance | 40.0 / 40.5 / 39.5 | 40.4 / 40.0 / 41.0 |',
    );
    expect(markdown).toContain(
      '| pin | PIN verification: event-loop CPU besides PBKDF2 (lower is better) | — | 0.95 ms | — | — | — / — / — | 0.90 / 1.00 / 0.95 |',
    );
    expect(lines.filter((l) => l.startsWith('| ')).length).toBe(comparisons.length + 2);
    expect(markdown).not.toContain('Smoke run');
  });

  it('shows a run with failures as "failed", worse whatever the ref’s figure', () => {
    const comparisons = [
      compareFigure(metric('mfa-recovery-cpu'), [0.87, 0.9], [1.56, Infinity, Infinity], 0.1),
      compareFigure(metric('mfa-totp-cpu'), [1.01], [1.12], 0.1),
      compareFigure(metric('webhooks-burst-rate'), [916.3], [1032.7], 0.1),
      compareFigure(metric('webhooks-steady-p99'), [Infinity], [53.9], 0.1),
    ];
    const markdown = renderRegressionTable(comparisons, context);
    expect(markdown).toContain('2 of 4 figures worse beyond the tolerance, 1 without a figure on one side.');
    expect(markdown).toContain(
      '| mfa | MFA second step, recovery code: server CPU net of the idle server (lower is better) | 0.89 ms | failed | ∞ | **worse: the run had failures** | 0.87 / 0.90 | 1.56 / failed / failed |',
    );
    expect(markdown).toContain(
      '| mfa | MFA second step, TOTP code: server CPU net of the idle server (lower is better) | 1.01 ms | 1.12 ms | 1.109× | **worse by 11 %** | 1.01 | 1.12 |',
    );
    expect(markdown).toContain(
      '| webhooks | Webhook deliveries from a burst (higher is better) | 916/s | 1,033/s | 1.127× | better by 13 % | 916 | 1,033 |',
    );
    expect(markdown).toContain(
      '| webhooks | Webhook p99 from the change to its delivery, steady load (lower is better) | failed | 53.9 ms | — | — | failed | 53.9 |',
    );
  });

  it('says when the working tree has uncommitted changes and when the run was a smoke run', () => {
    const markdown = renderRegressionTable([], {
      ...context,
      tree: { ...context.tree, dirty: true },
      rounds: 1,
      tolerance: 0.025,
      quick: true,
    });
    expect(markdown).toContain(
      '(5f463a9 with uncommitted changes): 1 round each, alternating, medians; tolerance 2.5 %.',
    );
    expect(markdown).toContain('Smoke run (`--quick`)');
  });
});
