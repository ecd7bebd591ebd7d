import { ApiError, call } from '../api.js';
import { chart, COLOURS, MARK_REACH } from '../charts.js';
import { h } from '../dom.js';
import { amount, amountText, formatUnits, groupDigits } from '../format.js';

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
const count = (n: number, one: string, many = `${one}s`) =>
  `${groupDigits(String(n))} ${n === 1 ? one : many}`;

/** The app page's charts (docs/console.md): players, sponsored gas against the budget, content, sales. */
export function activitySection(activity: Activity): HTMLElement {
  const { days } = activity;
  const dates = days.map((d) => d.date);
  const span = `the last ${days.length} days (UTC)`;
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
      h('h2', { id: 'activity-h' }, 'Activity'),
      h(
        'p',
        { id: 'activity-none' },
        `Nothing yet over ${span}. Sign-ins and active players, sponsored gas against the app’s budget of ${groupDigits(
          String(activity.budget.daily_gas),
        )} gas a day, content bought and consumed per cuid, and marketplace sales appear here as charts.`,
      ),
    );
  }

  const players = chart({
    id: 'chart-players',
    title: 'Sign-ins and active players a day',
    summary: `${count(sum(days.map((d) => d.sign_ins)), 'sign-in')} over ${span}; at most ${count(
      Math.max(0, ...days.map((d) => d.active_players)),
      'active player',
    )} on one day.`,
    x: { days: dates },
    units: { left: 'players', counts: true },
    series: [
      { label: 'Sign-ins', kind: 'bars', colour: COLOURS.blue, values: days.map((d) => d.sign_ins) },
      {
        label: 'Active players',
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
    title: 'Sponsored gas against the daily budget',
    summary: `Budget ${groupDigits(String(budget))} gas a day; the busiest day used ${groupDigits(
      String(busiest),
    )} gas (${share < 0.01 && busiest > 0 ? 'under 0.01' : share.toFixed(2)} % of it), ${count(
      sum(days.map((d) => d.sponsored_operations)),
      'sponsored operation',
    )} in all.${budgetShown ? '' : ' The axis follows what is spent: the budget line is far above it.'}`,
    x: { days: dates },
    units: { left: 'gas' },
    series: [
      {
        label: 'Sponsored gas',
        kind: 'bars',
        colour: COLOURS.green,
        values: days.map((d) => d.sponsored_gas),
      },
      {
        label: 'Daily budget',
        kind: 'line',
        colour: COLOURS.red,
        dashed: true,
        mark: true,
        values: days.map(() => budget),
      },
    ],
  });

  const cuids = activity.content;
  const content = cuids.length
    ? chart({
        id: 'chart-content',
        title: 'Content bought and consumed per cuid',
        summary: `${count(sum(days.map((d) => d.purchases)), 'purchase')} and ${count(
          sum(days.map((d) => d.consumptions)),
          'consumption record',
        )} over ${span}.`,
        x: { categories: cuids.map((c) => c.cuid) },
        units: { left: 'units' },
        series: [
          {
            label: 'Bought',
            kind: 'bars',
            colour: COLOURS.blue,
            align: -1,
            values: cuids.map((c) => Number(c.bought)),
            format: (v) => amountText(String(Math.round(v)), 'units'),
          },
          {
            label: 'Consumed',
            kind: 'bars',
            colour: COLOURS.orange,
            align: 1,
            values: cuids.map((c) => Number(c.consumed)),
            format: (v) => amountText(String(Math.round(v)), 'units'),
          },
        ],
        cells: (series, i) => {
          const entry = cuids[i]!;
          return amount(series === 0 ? entry.bought : entry.consumed, 'units');
        },
      })
    : h(
        'p',
        { id: 'chart-content', class: 'hint' },
        'No content yet: register a cuid under “Content providers” below.',
      );

  const volume = bigSum(days.map((d) => d.market_volume_wei));
  const sales = chart({
    id: 'chart-market',
    title: 'Marketplace sales',
    summary: `${count(sum(days.map((d) => d.market_sales)), 'sale')} over ${span}, for ${amountText(
      volume,
      'ether',
    )} in all.`,
    x: { days: dates },
    units: { left: 'sales', right: 'ETH', counts: true },
    series: [
      { label: 'Sales', kind: 'bars', colour: COLOURS.blue, values: days.map((d) => d.market_sales) },
      {
        label: 'Paid',
        kind: 'line',
        colour: COLOURS.green,
        right: true,
        values: days.map((d) => etherOf(d.market_volume_wei)),
        format: (v) => `${formatUnits(String(BigInt(Math.round(v * 1e6)) * 10n ** 12n), 18)} ETH`,
      },
    ],
    cells: (series, i) => (series === 1 ? amount(days[i]!.market_volume_wei, 'ether') : undefined),
  });

  return h(
    'section',
    { id: 'activity', 'aria-labelledby': 'activity-h' },
    h('h2', { id: 'activity-h' }, 'Activity'),
    h('p', { class: 'hint' }, `Over ${span}. Hover a chart for a day’s figures; “Figures” lists them all.`),
    h('div', { class: 'charts' }, players, gas, content, sales),
  );
}
