import { call } from '../api.js';
import { chart, COLOURS, MARK_REACH } from '../charts.js';
import { field, h, secretBox } from '../dom.js';
import { form, onSubmit, routeMissing, submit } from '../view.js';
import type { MessageKey } from '../i18n/catalogues/index.js';
import { t } from '../i18n/translator.js';

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

const BUDGETS: readonly (readonly [
  'daily_gas_per_player' | 'daily_gas_per_guest' | 'daily_gas_app' | 'ops_per_player_per_minute',
  MessageKey,
  string,
])[] = [
  ['daily_gas_per_player', 'console.sponsorship.per_player', 'sp-player'],
  ['daily_gas_per_guest', 'console.sponsorship.per_guest', 'sp-guest'],
  ['daily_gas_app', 'console.sponsorship.per_app', 'sp-app'],
  ['ops_per_player_per_minute', 'console.sponsorship.rate', 'sp-rate'],
];

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
      t(label),
      { id, name, inputmode: 'numeric', pattern: '^[0-9]*$' },
      t('console.sponsorship.budget_hint'),
    );
    const value = policy[name];
    control.input.value = value === null ? '' : String(value);
    return [name, control] as const;
  });
  const url = field(
    t('console.sponsorship.hook'),
    { id: 'sp-approval-url', name: 'approval_url', type: 'url' },
    t('console.sponsorship.hook_hint'),
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
    h(
      'div',
      { class: 'field check' },
      failOpen,
      h('label', { for: 'sp-fail-open' }, t('console.sponsorship.fail_open')),
    ),
    secret,
    h('div', { class: 'actions' }, submit(t('console.sponsorship.save'), 'sp-submit')),
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
        ? [
            secretBox(
              t('console.sponsorship.secret'),
              t('console.sponsorship.secret_copy'),
              saved.approval_secret,
              'sp-approval-secret',
            ),
          ]
        : []),
    );
    return t('console.sponsorship.saved');
  });
  return h(
    'section',
    { id: 'sponsorship', 'aria-labelledby': 'sponsorship-h' },
    h('h2', { id: 'sponsorship-h' }, t('console.sponsorship.title')),
    h('p', {}, t('console.sponsorship.intro')),
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
    title: t('console.sponsorship.burn.title', { day: today.day }),
    summary: t('console.sponsorship.burn.summary', {
      gas: today.gas,
      budget,
      operations: today.operations,
      refused: today.refused,
      far: shown ? 'no' : 'yes',
    }),
    empty: t('console.sponsorship.burn.empty', { budget }),
    x: { categories: hours.map((hour) => `${hour}:00`) },
    xLabel: t('console.sponsorship.burn.hour'),
    units: { left: t('console.sponsorship.gas') },
    series: [
      { label: t('console.sponsorship.burn.spent'), kind: 'line', colour: COLOURS.green, values: burnt },
      {
        label: t('console.sponsorship.burn.budget'),
        kind: 'line',
        colour: COLOURS.red,
        dashed: true,
        mark: true,
        values: hours.map(() => budget),
      },
    ],
  });
  const perPlayer = p.daily_gas_per_player;
  const spenders = chart({
    id: 'chart-spenders',
    title: t('console.sponsorship.spenders.title'),
    summary:
      perPlayer === null
        ? t('console.sponsorship.spenders.summary', { count: today.top_players.length })
        : t('console.sponsorship.spenders.summary_budget', {
            count: today.top_players.length,
            budget: perPlayer,
          }),
    empty: t('console.sponsorship.spenders.empty'),
    x: { categories: today.top_players.map((r) => r.user_id) },
    xLabel: t('console.sponsorship.spenders.player'),
    units: { left: t('console.sponsorship.gas') },
    series: [
      {
        label: t('console.sponsorship.spenders.gas'),
        kind: 'bars',
        colour: COLOURS.blue,
        values: today.top_players.map((r) => r.gas),
      },
      ...(perPlayer === null
        ? []
        : [
            {
              label: t('console.sponsorship.spenders.budget'),
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
