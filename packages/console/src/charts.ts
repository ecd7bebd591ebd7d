import uPlot from './vendor/uplot.js';
import { type Child, h } from './dom.js';
import { formatDay } from './format.js';
import { formatCompact, formatInteger, t } from './i18n/translator.js';

/**
 * Charts drawn by uPlot (a small canvas charting library, served from the console's own assets:
 * `scripts/vendor.mjs`). Each chart is a `<figure>` with its caption, the canvas, and the exact figures
 * as a table under "Figures" — for screen readers, for copying, and because a canvas cannot be read.
 * A chart with nothing to draw (every value of its data 0, or no point at all) is the same `<figure>`
 * with its caption and one sentence instead: empty axes say less than "No sale yet".
 */

export interface ChartSeries {
  label: string;
  values: number[];
  /** Bars, or a line with points. */
  kind: 'bars' | 'line';
  colour: string;
  /** Bars side by side: -1 left of the tick, 1 right of it. */
  align?: -1 | 1;
  dashed?: boolean;
  /** The right-hand axis (a second unit). */
  right?: boolean;
  /** How a value is written in the legend and the table. */
  format?: (value: number) => string;
  /**
   * A mark (a budget), not data: the axis follows the data, and takes the mark in only when it is at most
   * `MARK_REACH` times the data's top. A budget far above what is spent would flatten the bars to nothing.
   */
  mark?: boolean;
}

/** How far above the data's top a mark may be and still stretch the axis to show it. */
export const MARK_REACH = 2;

/**
 * The top of an axis: the data's highest value (marks left out), stretched to a mark within reach, plus
 * a tenth of headroom; 1 when there is nothing to show.
 */
export function axisTop(series: Pick<ChartSeries, 'values' | 'mark'>[]): number {
  const data = Math.max(0, ...series.filter((s) => !s.mark).flatMap((s) => s.values));
  const marks = series.filter((s) => s.mark).flatMap((s) => s.values.filter((v) => v > 0));
  const reachable = marks.filter((m) => data > 0 && m <= data * MARK_REACH);
  const top = Math.max(data, ...reachable);
  return top > 0 ? top * 1.1 : 1;
}

export interface ChartInput {
  id: string;
  title: string;
  /** What the chart shows, for screen readers and under the chart. */
  summary: string;
  /** The sentence shown instead of the chart when its data (marks left out) is all zero. */
  empty: string;
  /** Days (`YYYY-MM-DD`, a time axis) or categories (cuids). */
  x: { days: string[] } | { categories: string[] };
  /** What the categories are, for the table's first column and the legend ("cuid", "Player"). */
  xLabel?: string;
  series: ChartSeries[];
  /** The unit of the left axis and of the right one, if any; `counts`: the left axis counts (whole ticks). */
  units: { left: string; right?: string; counts?: boolean };
  /** Table cells that are elements (amounts with their exact value on hover), by series and index. */
  cells?: (seriesIndex: number, index: number) => Child;
}

export const COLOURS = { blue: '#2449b3', orange: '#b35c00', green: '#1b7f3a', red: '#a3191d' };

/** Tick steps of an axis that counts things: never 0.5 of a player. */
const COUNT_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 100_000, 1_000_000];

const plain = (value: number) => formatInteger(Math.round(value));
const compact = formatCompact;

/** True when the chart has nothing to draw: no point, or every value of its data (marks left out) 0. */
export function chartIsEmpty(series: Pick<ChartSeries, 'values' | 'mark'>[]): boolean {
  return series.filter((s) => !s.mark).every((s) => s.values.every((v) => v === 0));
}

const barsPath = (align: -1 | 0 | 1) => uPlot.paths.bars!({ size: [align === 0 ? 0.6 : 0.35, 48], align });

function width(): number {
  const view = document.getElementById('view');
  return Math.max(280, Math.min(728, (view?.clientWidth ?? 760) - 64));
}

export function chart(input: ChartInput): HTMLElement {
  if (chartIsEmpty(input.series)) {
    return h(
      'figure',
      { class: 'chart empty', id: input.id, 'aria-labelledby': `${input.id}-title` },
      h('figcaption', { id: `${input.id}-title` }, input.title),
      h('p', { class: 'chart-empty' }, input.empty),
    );
  }
  const isTime = 'days' in input.x;
  const labels = 'days' in input.x ? input.x.days : input.x.categories;
  const xs = isTime
    ? labels.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000)
    : labels.map((_label, i) => i);
  const categoryName = input.xLabel ?? t('console.chart.cuid');
  const xLabel = (value: number) => (isTime ? formatDay(value * 1000) : (labels[Math.round(value)] ?? ''));

  const options: uPlot.Options = {
    width: width(),
    height: 220,
    // The service's days are UTC days.
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
    scales: {
      // Half a step beyond the first and last point, so the bars at the edges are whole.
      x: isTime
        ? { time: true, range: () => [(xs[0] ?? 0) - 43_200, (xs.at(-1) ?? 0) + 43_200] }
        : { time: false, range: () => [-0.6, Math.max(labels.length - 1, 0) + 0.6] },
      // The axes follow the data; a mark (a budget) stretches them only when it is within reach.
      left: { range: () => [0, axisTop(input.series.filter((s) => !s.right))] },
      right: { range: () => [0, axisTop(input.series.filter((s) => s.right))] },
    },
    axes: [
      {
        space: isTime ? 90 : 40,
        values: (_u, splits) =>
          isTime
            ? splits.map((s) => formatDay(s * 1000))
            : splits.map((s) => (Number.isInteger(s) ? (labels[s] ?? '') : '')),
        ...(isTime ? {} : { splits: () => xs }),
      },
      {
        scale: 'left',
        label: input.units.left,
        values: (_u, splits) => splits.map(compact),
        size: 60,
        ...(input.units.counts ? { incrs: COUNT_STEPS } : {}),
      },
      ...(input.units.right
        ? [
            {
              scale: 'right',
              side: 1 as const,
              label: input.units.right,
              grid: { show: false },
              values: (_u: uPlot, splits: number[]) => splits.map(compact),
              size: 60,
            },
          ]
        : []),
    ],
    series: [
      {
        label: isTime ? t('console.chart.day') : categoryName,
        value: (_u, v) => (v === null ? '' : xLabel(v)),
      },
      ...input.series.map((s): uPlot.Series => ({
        label: s.label,
        scale: s.right ? 'right' : 'left',
        stroke: s.colour,
        // Bars are fill only: an outline would draw a line along the axis for every empty day.
        width: s.kind === 'line' ? 2 : 0,
        ...(s.dashed ? { dash: [6, 4] } : {}),
        ...(s.kind === 'bars'
          ? { fill: `${s.colour}cc`, paths: barsPath(s.align ?? 0), points: { show: false } }
          : { points: { show: !s.dashed, size: 6 } }),
        value: (_u, v) => (v === null ? '' : (s.format ?? plain)(v)),
      })),
    ],
    legend: { show: true, live: true },
    cursor: { drag: { x: false, y: false } },
    // The legend shows the latest day until the pointer picks another (uPlot clears it once drawn).
    hooks: { ready: [(u) => u.setLegend({ idx: xs.length - 1 })] },
  };

  const canvas = h('div', { class: 'chart-canvas', 'aria-hidden': 'true' });
  const data: uPlot.AlignedData = [xs, ...input.series.map((s) => s.values)];
  const plot = new uPlot(options, data, canvas);
  // Follow the page's width (a phone turned, a window resized).
  if (typeof ResizeObserver !== 'undefined') {
    new ResizeObserver(() => {
      const next = width();
      if (Math.abs(next - plot.width) > 4) plot.setSize({ width: next, height: 220 });
    }).observe(document.getElementById('view') ?? document.body);
  }

  const table = h(
    'table',
    { class: 'figures' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, isTime ? t('console.chart.day') : categoryName),
        input.series.map((s) => h('th', { scope: 'col' }, s.label)),
      ),
    ),
    h(
      'tbody',
      {},
      labels.map((label, i) =>
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, label),
          input.series.map((s, si) =>
            h('td', {}, input.cells?.(si, i) ?? (s.format ?? plain)(s.values[i] ?? 0)),
          ),
        ),
      ),
    ),
  );
  return h(
    'figure',
    {
      class: 'chart',
      id: input.id,
      'aria-labelledby': `${input.id}-title`,
      // The left axis' top, for tests and tools (a canvas cannot be read).
      'data-axis-top': String(axisTop(input.series.filter((s) => !s.right))),
    },
    h('figcaption', { id: `${input.id}-title` }, input.title),
    canvas,
    h('p', { class: 'hint' }, input.summary),
    // The table scrolls inside its own box on a narrow screen, never the page.
    h('details', {}, h('summary', {}, t('console.chart.figures')), h('div', { class: 'scroll' }, table)),
  );
}
