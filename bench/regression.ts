/**
 * The pure half of `npm run bench:all`: its arguments, and the regression guard's comparison
 * (`--against <ref>`: medians over rounds, the working tree ÷ the ref, a verdict against the tolerance)
 * and the table it prints. No process, file or benchmark here: bench/against.ts runs the rounds, and
 * packages/server/test/bench/regression.test.ts tests this.
 */
import { parseArgs } from 'node:util';
import { type HotPathId, type RegressionMetric, REGRESSION_METRICS } from './figures.js';
import type { MachineInfo } from './summary.js';

export const HOT_PATH_IDS: HotPathId[] = [
  'validate',
  'exchange',
  'backend',
  'consumption',
  'pin',
  'mfa',
  'webhooks',
];

export interface BenchAllOptions {
  /** `--only` (or `--rows`): run ids, or hot path ids with `--against`. */
  only?: string[];
  quick: boolean;
  write: boolean;
  pg?: string;
  results?: string;
  /** `--against <ref>`: the regression guard instead of the targets. */
  against?: string;
  /** Rounds per tree and hot path (`--rounds`, default 3). */
  rounds: number;
  /** How much worse than the ref a figure may be before it counts as a regression (0.1 = 10 %). */
  tolerance: number;
  /**
   * `--deps`: the ref's own dependencies (`ref`, the default: hard links of ours when the lock files are
   * equal, else `npm ci` there) or this tree's (`ours`: hard links whatever the ref's lock says, so only the
   * code differs; for a ref whose dependencies no longer run on this Node).
   */
  deps?: 'ours' | 'ref';
}

/** Parses bench:all's arguments; throws with a message a person can act on. */
export function parseBenchAllArgs(argv: string[]): BenchAllOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      only: { type: 'string' },
      rows: { type: 'string' },
      quick: { type: 'boolean', default: false },
      write: { type: 'boolean', default: false },
      pg: { type: 'string' },
      results: { type: 'string' },
      against: { type: 'string' },
      rounds: { type: 'string' },
      tolerance: { type: 'string' },
      deps: { type: 'string' },
    },
  });
  const only = values.only ?? values.rows;
  const list = only
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (values.against === undefined) {
    if (values.rounds !== undefined || values.tolerance !== undefined || values.deps !== undefined) {
      throw new Error('--rounds, --tolerance and --deps go with --against <ref>');
    }
  } else {
    if (values.against.trim() === '' || values.against.startsWith('-')) {
      throw new Error(`--against needs a git ref (a commit, tag or branch), not "${values.against}"`);
    }
    if (values.write) throw new Error('--against compares two trees; it never writes docs/performance.md');
    const unknown = (list ?? []).filter((id) => !HOT_PATH_IDS.includes(id as HotPathId));
    if (unknown.length > 0) {
      throw new Error(`unknown hot path(s) ${unknown.join(', ')}; hot paths: ${HOT_PATH_IDS.join(', ')}`);
    }
  }
  if (values.deps !== undefined && values.deps !== 'ours' && values.deps !== 'ref') {
    throw new Error(`--deps is ours or ref, not "${values.deps}"`);
  }
  const rounds = values.rounds === undefined ? 3 : Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) {
    throw new Error(`--rounds is a whole number of at least 1, not "${values.rounds}"`);
  }
  return {
    ...(list ? { only: list } : {}),
    quick: values.quick,
    write: values.write,
    ...(values.pg !== undefined ? { pg: values.pg } : {}),
    ...(values.results !== undefined ? { results: values.results } : {}),
    ...(values.against !== undefined ? { against: values.against.trim() } : {}),
    rounds,
    tolerance: parseTolerance(values.tolerance ?? '10'),
    ...(values.deps !== undefined ? { deps: values.deps } : {}),
  };
}

/** `--tolerance`: a percentage ("10" or "10%"), as a fraction (0.1). */
export function parseTolerance(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(text);
  const percent = match ? Number(match[1]) : Number.NaN;
  if (!Number.isFinite(percent) || percent >= 100) {
    throw new Error(`--tolerance is a percentage from 0 to under 100 (e.g. 10 or 10%), not "${text}"`);
  }
  return percent / 100;
}

// ---------------------------------------------------------------------------------------------
// Comparison
// ---------------------------------------------------------------------------------------------

export type Verdict = 'worse' | 'within tolerance' | 'better' | 'no figure';

export interface Comparison {
  metric: RegressionMetric;
  /** Each round's figure, in round order (undefined where the round produced none). */
  refRounds: (number | undefined)[];
  treeRounds: (number | undefined)[];
  refMedian?: number;
  treeMedian?: number;
  /** The working tree's median ÷ the ref's. */
  ratio?: number;
  /** How much worse the working tree is (0.12 = 12 % worse; negative when better). */
  worseBy?: number;
  verdict: Verdict;
}

/**
 * The median of a figure's rounds, as figures.ts's `medianOf` but keeping an infinite cost (a run with
 * failures): the worst figure, not a missing one.
 */
function medianOfRounds(rounds: (number | undefined)[]): number | undefined {
  const found = rounds
    .filter((v): v is number => typeof v === 'number' && !Number.isNaN(v))
    .sort((p, q) => p - q);
  if (found.length === 0) return undefined;
  const middle = Math.floor(found.length / 2);
  return found.length % 2 === 1 ? found[middle]! : (found[middle - 1]! + found[middle]!) / 2;
}

/**
 * One figure of both trees: medians over the rounds, the working tree ÷ the ref, and a verdict. A
 * side without a figure (an older tree's benchmark lacking the field, or a failed run) gives "no
 * figure", never a regression; so does a median that cannot make a ratio (see below).
 */
export function compareFigure(
  metric: RegressionMetric,
  refRounds: (number | undefined)[],
  treeRounds: (number | undefined)[],
  tolerance: number,
): Comparison {
  const refMedian = medianOfRounds(refRounds);
  const treeMedian = medianOfRounds(treeRounds);
  const base = { metric, refRounds, treeRounds, refMedian, treeMedian };
  // A ratio needs a positive, finite ref, and a cost above zero on both sides: a net figure (the PIN's
  // CPU besides PBKDF2, the MFA step's net of the idle server, subtracts two measurements) can reach zero
  // or below on a busy machine. A throughput of 0 or an infinite cost (a run with errors or failures) is
  // a figure on the working tree's side, the worst one; on the ref's it makes no ratio.
  const usable =
    refMedian !== undefined &&
    treeMedian !== undefined &&
    refMedian > 0 &&
    Number.isFinite(refMedian) &&
    (metric.better === 'higher' ? treeMedian >= 0 : treeMedian > 0);
  if (!usable) return { ...base, verdict: 'no figure' };
  const ratio = treeMedian / refMedian;
  const worseBy = metric.better === 'higher' ? 1 - ratio : ratio - 1;
  // A ratio exactly at the tolerance (44 ÷ 40 against 10 %) is within it, whatever the float rounding.
  const margin = tolerance + 1e-9;
  const verdict: Verdict = worseBy > margin ? 'worse' : worseBy < -margin ? 'better' : 'within tolerance';
  return { ...base, ratio, worseBy, verdict };
}

/**
 * Every metric of the hot paths run, from each tree's summaries round by round (`summaries[hotPath]`
 * is one entry per round, undefined where the round wrote no figures).
 */
export function compareHotPaths(
  hotPaths: HotPathId[],
  ref: Partial<Record<HotPathId, unknown[]>>,
  tree: Partial<Record<HotPathId, unknown[]>>,
  tolerance: number,
  metrics: RegressionMetric[] = REGRESSION_METRICS,
): Comparison[] {
  return metrics
    .filter((m) => hotPaths.includes(m.hotPath))
    .map((m) =>
      compareFigure(
        m,
        (ref[m.hotPath] ?? []).map((summary) => (summary === undefined ? undefined : m.read(summary))),
        (tree[m.hotPath] ?? []).map((summary) => (summary === undefined ? undefined : m.read(summary))),
        tolerance,
      ),
    );
}

export const regressions = (comparisons: Comparison[]) => comparisons.filter((c) => c.verdict === 'worse');

// ---------------------------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------------------------

export interface RegressionContext {
  date: string;
  machine: MachineInfo;
  command: string;
  /** The ref as given and the commit it names. */
  ref: { name: string; commit: string };
  /** The working tree's HEAD, and whether it has uncommitted changes. */
  tree: { commit: string; dirty: boolean };
  rounds: number;
  tolerance: number;
  quick: boolean;
  loadAverage?: number[];
}

const percent = (fraction: number) =>
  `${(fraction * 100).toFixed(fraction !== 0 && Math.abs(fraction) < 0.1 ? 1 : 0)} %`;

const formatted = (value: number, digits: number) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** How an infinite cost (a run with failures) reads. */
const FAILED = 'failed';

function figureText(value: number | undefined, metric: RegressionMetric): string {
  if (value === undefined) return '—';
  if (value === Number.POSITIVE_INFINITY) return FAILED;
  return `${formatted(value, metric.digits)}${metric.unit.startsWith('/') ? '' : ' '}${metric.unit}`;
}

function roundsText(values: (number | undefined)[], metric: RegressionMetric): string {
  return values
    .map((v) =>
      v === undefined ? '—' : v === Number.POSITIVE_INFINITY ? FAILED : formatted(v, metric.digits),
    )
    .join(' / ');
}

function ratioText(ratio: number | undefined): string {
  if (ratio === undefined) return '—';
  return ratio === Number.POSITIVE_INFINITY ? '∞' : `${ratio.toFixed(3)}×`;
}

function verdictText(c: Comparison): string {
  if (c.verdict === 'no figure' || c.worseBy === undefined) return '—';
  if (c.worseBy === Number.POSITIVE_INFINITY) return '**worse: the run had failures**';
  if (c.verdict === 'worse') return `**worse by ${percent(c.worseBy)}**`;
  if (c.verdict === 'better') return `better by ${percent(-c.worseBy)}`;
  return 'within tolerance';
}

/** The guard's report: how it was measured, one row per figure, and the regressions counted. */
export function renderRegressionTable(comparisons: Comparison[], context: RegressionContext): string {
  const m = context.machine;
  const load = context.loadAverage
    ? `, load average ${context.loadAverage.map((l) => l.toFixed(1)).join(' ')} at the start`
    : '';
  const tree = `${context.tree.commit.slice(0, 7)}${context.tree.dirty ? ' with uncommitted changes' : ''}`;
  const lines = [
    `Generated by \`${context.command}\` on ${context.date}: ${m.cores} cores (${m.cpu}), ${m.memory_gib} GiB, Node ${m.node}${load}.`,
    '',
    `Ref \`${context.ref.name}\` (${context.ref.commit.slice(0, 7)}) against the working tree (${tree}): ${context.rounds} round${context.rounds === 1 ? '' : 's'} each, alternating, medians; tolerance ${percent(context.tolerance)}.`,
  ];
  if (context.quick) {
    lines.push(
      '',
      '**Smoke run (`--quick`): durations far too short for these figures to mean anything; they prove the pipeline only.**',
    );
  }
  const worse = regressions(comparisons).length;
  const missing = comparisons.filter((c) => c.verdict === 'no figure').length;
  lines.push(
    '',
    `${worse} of ${comparisons.length} figures worse beyond the tolerance, ${missing} without a figure on one side.`,
    '',
    '| Hot path | Figure | Ref (median) | Working tree (median) | Working tree ÷ ref | Verdict | Rounds: ref | Rounds: working tree |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  );
  for (const c of comparisons) {
    const better = c.metric.better === 'higher' ? 'higher is better' : 'lower is better';
    lines.push(
      `| ${c.metric.hotPath} | ${c.metric.label} (${better}) | ${figureText(c.refMedian, c.metric)} | ${figureText(c.treeMedian, c.metric)} | ${ratioText(c.ratio)} | ${verdictText(c)} | ${roundsText(c.refRounds, c.metric)} | ${roundsText(c.treeRounds, c.metric)} |`,
    );
  }
  return lines.join('\n');
}
