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
      /unknown hot path\(s\) gas; hot paths: validate, exchange, backend, consumption, pin/,
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

  it('every hot path has a throughput and a cost, read from the figures its benchmark writes', () => {
    for (const id of HOT_PATH_IDS) {
      const mine = REGRESSION_METRICS.filter((m) => m.hotPath === id).map((m) => m.better);
      expect(mine.sort()).toEqual(['higher', 'lower']);
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
});

describe('the hot paths run', () => {
  it('narrow each benchmark to its path and to one measured round per invocation', () => {
    const paths = Object.fromEntries(hotPaths(false).map((p) => [p.id, p.run]));
    expect(Object.keys(paths)).toEqual(HOT_PATH_IDS);
    expect(paths.validate!.env).toEqual({ BENCH_ONLY: 'b', BENCH_REPEAT: '1' });
    expect(paths.exchange!.env).toEqual({ BENCH_ONLY: 'c', BENCH_REPEAT: '1' });
    expect(paths.consumption!.env).toEqual({
      BENCH_JOURNAL: 'on',
      BENCH_ROUNDS: '1',
      BENCH_BALANCE_ROUNDS: '0',
    });
    expect(paths.pin!.args.at(-1)).toBe('bench/pin.bench.ts');
    // Quick shapes keep the narrowing and add the short durations of bench:all --quick.
    const quick = Object.fromEntries(hotPaths(true).map((p) => [p.id, p.run]));
    expect(quick.validate!.env).toMatchObject({ BENCH_ONLY: 'b', BENCH_REPEAT: '1', BENCH_SECONDS: '2' });
    expect(quick.pin!.args).toContain('--seconds');
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
