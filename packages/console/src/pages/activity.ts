import { ApiError, call } from '../api.js';
import { chart, COLOURS, MARK_REACH } from '../charts.js';
import { h } from '../dom.js';
import { amount, amountText, formatUnits } from '../format.js';
import { t } from '../i18n/translator.js';

export interface ActivityDay {
  date: string;
  sign_ins: number;
  active_players: number;
  sponsored_gas: number;
  sponsored_operations: number;
  purchases: number;
  purchased_tokens: string;
  consumptions: number;
  consumed_tokens: string;
  market_sales: number;
  market_volume_wei: string;
}

export interface Activity {
  days: ActivityDay[];
  budget: { daily_gas: number };
  content: { cuid: string; bought: string; consumed: string }[];
}

/** The app's last 30 days (`GET …/activity`); null from a service that predates the report. */
export async function loadActivity(path: string): Promise<Activity | null> {
  try {
    return await call<Activity>('GET', `${path}/activity?days=30`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404 && error.code !== 'client_not_found') return null;
    throw error;
  }
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const bigSum = (values: string[]) => values.reduce((a, b) => a + BigInt(b), 0n).toString();
/** Wei as a float, for drawing only: every figure that is read is the exact decimal string. */
const etherOf = (wei: string) => Number(BigInt(wei) / 10n ** 12n) / 1e6;

/**
 * The app page's charts (docs/console.md): players, sponsored gas against the budget, content, sales. A
 * chart with nothing to draw says so in a sentence under its title; an app with no activity at all gets
 * one sentence for the four.
 */
export function activitySection(activity: Activity): HTMLElement {
  const { days } = activity;
  const dates = days.map((d) => d.date);
  const span = days.length;
  const quiet = days.every(
    (d) =>
      d.sign_ins +
        d.active_players +
        d.sponsored_operations +
        d.purchases +
        d.consumptions +
        d.market_sales ===
      0,
  );
  if (quiet) {
    // Four empty charts would say less than one sentence.
    return h(
      'section',
      { id: 'activity', 'aria-labelledby': 'activity-h' },
      h('h2', { id: 'activity-h' }, t('console.activity.title')),
      h(
        'p',
        { id: 'activity-none' },
        t('console.activity.none', { days: span, budget: activity.budget.daily_gas }),
      ),
    );
  }

  const players = chart({
    id: 'chart-players',
    title: t('console.activity.players.title'),
    summary: t('console.activity.players.summary', {
      signIns: sum(days.map((d) => d.sign_ins)),
      peak: Math.max(0, ...days.map((d) => d.active_players)),
      days: span,
    }),
    empty: t('console.activity.players.empty', { days: span }),
    x: { days: dates },
    units: { left: t('console.activity.players.unit'), counts: true },
    series: [
      {
        label: t('console.activity.players.sign_ins'),
        kind: 'bars',
        colour: COLOURS.blue,
        values: days.map((d) => d.sign_ins),
      },
      {
        label: t('console.activity.players.active'),
        kind: 'line',
        colour: COLOURS.orange,
        values: days.map((d) => d.active_players),
      },
    ],
  });

  const budget = activity.budget.daily_gas;
  const busiest = Math.max(0, ...days.map((d) => d.sponsored_gas));
  const share = budget > 0 ? (busiest / budget) * 100 : 0;
  const budgetShown = busiest > 0 && budget <= busiest * MARK_REACH;
  const gas = chart({
    id: 'chart-gas',
    title: t('console.activity.gas.title'),
    summary: t('console.activity.gas.summary', {
      budget,
      busiest,
      tiny: share < 0.01 && busiest > 0 ? 'yes' : 'no',
      share,
      operations: sum(days.map((d) => d.sponsored_operations)),
      far: budgetShown ? 'no' : 'yes',
    }),
    empty: t('console.activity.gas.empty', { days: span, budget }),
    x: { days: dates },
    units: { left: t('console.activity.gas.unit') },
    series: [
      {
        label: t('console.activity.gas.spent'),
        kind: 'bars',
        colour: COLOURS.green,
        values: days.map((d) => d.sponsored_gas),
      },
      {
        label: t('console.activity.gas.budget'),
        kind: 'line',
        colour: COLOURS.red,
        dashed: true,
        mark: true,
        values: days.map(() => budget),
      },
    ],
  });

  const cuids = activity.content;
  const unitsOf = (v: number) => amountText(String(Math.round(v)), 'units');
  const content = chart({
    id: 'chart-content',
    title: t('console.activity.content.title'),
    summary: t('console.activity.content.summary', {
      purchases: sum(days.map((d) => d.purchases)),
      consumptions: sum(days.map((d) => d.consumptions)),
      days: span,
    }),
    empty: cuids.length
      ? t('console.activity.content.empty', { cuids: cuids.length })
      : t('console.activity.content.no_provider'),
    x: { categories: cuids.map((c) => c.cuid) },
    xLabel: t('console.chart.cuid'),
    units: { left: t('console.activity.content.unit') },
    series: [
      {
        label: t('console.activity.content.bought'),
        kind: 'bars',
        colour: COLOURS.blue,
        align: -1,
        values: cuids.map((c) => Number(c.bought)),
        format: unitsOf,
      },
      {
        label: t('console.activity.content.consumed'),
        kind: 'bars',
        colour: COLOURS.orange,
        align: 1,
        values: cuids.map((c) => Number(c.consumed)),
        format: unitsOf,
      },
    ],
    cells: (series, i) => {
      const entry = cuids[i]!;
      return amount(series === 0 ? entry.bought : entry.consumed, 'units');
    },
  });

  const volume = bigSum(days.map((d) => d.market_volume_wei));
  const sales = chart({
    id: 'chart-market',
    title: t('console.activity.market.title'),
    summary: t('console.activity.market.summary', {
      sales: sum(days.map((d) => d.market_sales)),
      days: span,
      volume: amountText(volume, 'ether'),
    }),
    empty: t('console.activity.market.empty', { days: span }),
    x: { days: dates },
    units: { left: t('console.activity.market.unit'), right: 'ETH', counts: true },
    series: [
      {
        label: t('console.activity.market.sales'),
        kind: 'bars',
        colour: COLOURS.blue,
        values: days.map((d) => d.market_sales),
      },
      {
        label: t('console.activity.market.paid'),
        kind: 'line',
        colour: COLOURS.green,
        right: true,
        values: days.map((d) => etherOf(d.market_volume_wei)),
        format: (v) =>
          t('console.amount.ether', {
            amount: formatUnits(String(BigInt(Math.round(v * 1e6)) * 10n ** 12n), 18),
          }),
      },
    ],
    cells: (series, i) => (series === 1 ? amount(days[i]!.market_volume_wei, 'ether') : undefined),
  });

  return h(
    'section',
    { id: 'activity', 'aria-labelledby': 'activity-h' },
    h('h2', { id: 'activity-h' }, t('console.activity.title')),
    h('p', { class: 'hint' }, t('console.activity.hint', { days: span })),
    h('div', { class: 'charts' }, players, gas, content, sales),
  );
}
