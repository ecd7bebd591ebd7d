import { call } from '../api.js';
import { chart, COLOURS, MARK_REACH } from '../charts.js';
import { field, h, secretBox } from '../dom.js';
import { groupDigits } from '../format.js';
import { form, onSubmit, routeMissing, submit } from '../view.js';

export interface SponsorshipPolicy {
  client_id: string;
  daily_gas_per_player: number | null;
  daily_gas_per_guest: number | null;
  daily_gas_app: number | null;
  ops_per_player_per_minute: number | null;
  approval_url: string | null;
  approval_fail_open: boolean;
  platform_daily_gas_app: number;
  approval_secret?: string;
  today: {
    day: string;
    gas: number;
    operations: number;
    refused: number;
    hours: { hour: string; gas: number; operations: number }[];
    top_players: { user_id: string; gas: number; operations: number }[];
  };
}

const BUDGETS = [
  ['daily_gas_per_player', 'Gas per player a day', 'sp-player'],
  ['daily_gas_per_guest', 'Gas per guest a day', 'sp-guest'],
  ['daily_gas_app', 'Gas for the whole app a day', 'sp-app'],
  ['ops_per_player_per_minute', 'Operations per player a minute', 'sp-rate'],
] as const;

const gas = (n: number) => `${groupDigits(String(n))} gas`;

/** The app's sponsorship policy (decisions §9, docs/sponsorship.md); null from a service without the route. */
export async function sponsorshipSection(path: string): Promise<HTMLElement | null> {
  const route = `${path}/sponsorship`;
  let policy: SponsorshipPolicy;
  try {
    policy = await call<SponsorshipPolicy>('GET', route);
  } catch (error) {
    if (routeMissing(error)) return null;
    throw error;
  }
  const charts = h('div', { class: 'charts', id: 'sponsorship-charts' }, burnCharts(policy));
  const inputs = BUDGETS.map(([name, label, id]) => {
    const control = field(
      label,
      { id, name, inputmode: 'numeric', pattern: '^[0-9]*$' },
      'Empty: no cap of the app’s own (the platform’s caps still apply).',
    );
    const value = policy[name];
    control.input.value = value === null ? '' : String(value);
    return [name, control] as const;
  });
  const url = field(
    'Approval hook URL',
    { id: 'sp-approval-url', name: 'approval_url', type: 'url' },
    'Asked before each sponsorship with a signed POST {user_id, client_id, calls, gas}; only {"approve": true} within 2 s approves. Empty: no hook.',
  );
  url.input.value = policy.approval_url ?? '';
  const failOpen = h('input', {
    type: 'checkbox',
    id: 'sp-fail-open',
    name: 'approval_fail_open',
  }) as HTMLInputElement;
  failOpen.checked = policy.approval_fail_open;
  const secret = h('div', { id: 'sp-secret' });
  const f = form(
    'sponsorship-form',
    inputs.map(([, control]) => control.wrapper),
    url.wrapper,
    h('p', {}, h('label', { for: 'sp-fail-open' }, failOpen, ' Sponsor when the hook times out or fails')),
    secret,
    h('div', { class: 'actions' }, submit('Save sponsorship policy', 'sp-submit')),
  );
  onSubmit(f, async () => {
    const body: Record<string, unknown> = {};
    for (const [name, control] of inputs) {
      const text = control.input.value.trim();
      body[name] = text === '' ? null : Number(text);
    }
    body.approval_url = url.input.value.trim() || null;
    body.approval_fail_open = failOpen.checked;
    const saved = await call<SponsorshipPolicy>('PUT', route, body);
    charts.replaceChildren(...burnCharts(saved));
    secret.replaceChildren(
      ...(saved.approval_secret
        ? [secretBox('Approval secret (shown once)', saved.approval_secret, 'sp-approval-secret')]
        : []),
    );
    return 'Sponsorship policy saved.';
  });
  return h(
    'section',
    { id: 'sponsorship', 'aria-labelledby': 'sponsorship-h' },
    h('h2', { id: 'sponsorship-h' }, 'Sponsorship'),
    h(
      'p',
      {},
      'The gas your game’s players get sponsored, inside the platform’s caps. Past a budget, operations answer 429 app_sponsorship_exhausted and the sponsorship.exhausted webhook is sent once a day.',
    ),
    charts,
    f,
  );
}

/** Today's burn hour by hour against the app's day budget, and the top spenders against a player's. */
function burnCharts(p: SponsorshipPolicy): HTMLElement[] {
  const { today } = p;
  const budget = p.daily_gas_app ?? p.platform_daily_gas_app;
  const lastHour = Math.max(0, ...today.hours.map((x) => Number(x.hour)), new Date().getUTCHours());
  const hours = Array.from({ length: lastHour + 1 }, (_, i) => String(i).padStart(2, '0'));
  const byHour = new Map(today.hours.map((x) => [x.hour, x.gas]));
  let running = 0;
  const burnt = hours.map((hour) => (running += byHour.get(hour) ?? 0));
  const shown = today.gas > 0 && budget <= today.gas * MARK_REACH;
  const burn = chart({
    id: 'chart-burn',
    title: `Gas sponsored today (${today.day}, UTC) against the day’s budget`,
    summary: `${gas(today.gas)} of ${gas(budget)} (${today.operations} operations, ${today.refused} refused).${
      shown ? '' : ' The axis follows what is spent: the budget line is far above it.'
    }`,
    x: { categories: hours.map((hour) => `${hour}:00`) },
    units: { left: 'gas' },
    series: [
      { label: 'Spent so far', kind: 'line', colour: COLOURS.green, values: burnt },
      {
        label: 'Day budget',
        kind: 'line',
        colour: COLOURS.red,
        dashed: true,
        mark: true,
        values: hours.map(() => budget),
      },
    ],
  });
  if (today.top_players.length === 0) {
    return [burn, h('p', { id: 'chart-spenders', class: 'hint' }, 'No player was sponsored today yet.')];
  }
  const perPlayer = p.daily_gas_per_player;
  const spenders = chart({
    id: 'chart-spenders',
    title: 'Top spenders today',
    summary: `The ${today.top_players.length} players who spent the most today${
      perPlayer === null ? '' : `, against ${gas(perPlayer)} a player`
    }.`,
    x: { categories: today.top_players.map((r) => r.user_id) },
    units: { left: 'gas' },
    series: [
      { label: 'Gas', kind: 'bars', colour: COLOURS.blue, values: today.top_players.map((r) => r.gas) },
      ...(perPlayer === null
        ? []
        : [
            {
              label: 'Player budget',
              kind: 'line' as const,
              colour: COLOURS.red,
              dashed: true,
              mark: true,
              values: today.top_players.map(() => perPlayer),
            },
          ]),
    ],
  });
  return [burn, spenders];
}
