import { type CliCommand, type CliValues, optionalString, UsageError } from '../command.js';
import { clientPath, ownerOptions, ownerToken, ownerUsage } from './clientLifecycle.js';

/**
 * An app's own sponsorship policy through the running server's API (docs/sponsorship.md), as the app's
 * owner (signed in over HTTP like `client update`), so the server applies its rules (ownership, fresh
 * login, the callback-target policy on the approval URL, the approval secret sealed and shown once).
 */
const BUDGET_FLAGS = {
  'player-gas': 'daily_gas_per_player',
  'guest-gas': 'daily_gas_per_guest',
  'app-gas': 'daily_gas_app',
  'ops-per-minute': 'ops_per_player_per_minute',
} as const;

const budgetUsage = Object.keys(BUDGET_FLAGS)
  .map((flag) => `[--${flag} <n|none>]`)
  .join(' ');

/** `none` clears a budget (no app cap); otherwise a safe integer of 0 or more. */
function budgetValue(values: CliValues, flag: string): number | null | undefined {
  const raw = optionalString(values, flag);
  if (raw === undefined) return undefined;
  if (raw === 'none') return null;
  if (!/^[0-9]+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw new UsageError(`--${flag} takes a whole number (a safe integer) or none`);
  }
  return Number(raw);
}

export const sponsorshipShow: CliCommand = {
  path: ['client', 'sponsorship'],
  summary: "An app's sponsorship policy with today's use (gas by hour, top spenders)",
  usage: `${ownerUsage} [--server <url>]`,
  needs: 'server',
  options: ownerOptions,
  async run(values, server, io) {
    return server.request(
      'GET',
      `${clientPath(values)}/sponsorship`,
      undefined,
      await ownerToken(values, server, io),
    );
  },
};

export const sponsorshipSet: CliCommand = {
  path: ['client', 'sponsorship', 'set'],
  summary:
    "Change an app's sponsorship policy (the flags given; the rest stays); PRINTS the approval secret once when --approval-url is new",
  usage: `${ownerUsage} ${budgetUsage} [--approval-url <url|none>] [--fail-open true|false] [--server <url>]`,
  needs: 'server',
  options: {
    ...ownerOptions,
    ...Object.fromEntries(Object.keys(BUDGET_FLAGS).map((flag) => [flag, { type: 'string' as const }])),
    'approval-url': { type: 'string' },
    'fail-open': { type: 'string' },
  },
  async run(values, server, io) {
    const route = `${clientPath(values)}/sponsorship`;
    const token = await ownerToken(values, server, io);
    const changes: Record<string, unknown> = {};
    for (const [flag, field] of Object.entries(BUDGET_FLAGS)) {
      const value = budgetValue(values, flag);
      if (value !== undefined) changes[field] = value;
    }
    const url = optionalString(values, 'approval-url');
    if (url !== undefined) changes.approval_url = url === 'none' ? null : url;
    const failOpen = optionalString(values, 'fail-open');
    if (failOpen !== undefined) {
      if (failOpen !== 'true' && failOpen !== 'false')
        throw new UsageError('--fail-open takes true or false');
      changes.approval_fail_open = failOpen === 'true';
    }
    if (Object.keys(changes).length === 0) throw new UsageError('give at least one setting to change');
    // The API replaces the policy whole: what is not given stays as it is.
    const current = (await server.request('GET', route, undefined, token)) as Record<string, unknown>;
    const body: Record<string, unknown> = {
      daily_gas_per_player: current.daily_gas_per_player,
      daily_gas_per_guest: current.daily_gas_per_guest,
      daily_gas_app: current.daily_gas_app,
      ops_per_player_per_minute: current.ops_per_player_per_minute,
      approval_url: current.approval_url,
      approval_fail_open: current.approval_fail_open,
      ...changes,
    };
    return server.request('PUT', route, body, token);
  },
};
