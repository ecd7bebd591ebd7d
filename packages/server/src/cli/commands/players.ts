import {
  type CliCommand,
  type CliIo,
  type CliOptions,
  type CliValues,
  optionalString,
  requiredString,
  UsageError,
} from '../command.js';
import type { ServerApi } from '../serverApi.js';
import { ownerToken } from './clientLifecycle.js';

/**
 * `dauth players …`: an org app's players directory and pre-generated players through the running
 * server (docs/players.md), as a member (`--owner-email`, signed in over HTTP like `client update`) or
 * as the org's service account (`--sa-id`, its secret from `--sa-secret-stdin` or `DAUTH_SA_SECRET`,
 * a client_credentials token; docs/machines.md).
 */
const callerOptions: CliOptions = {
  org: { type: 'string' },
  'client-id': { type: 'string' },
  'owner-email': { type: 'string' },
  password: { type: 'string' },
  'password-stdin': { type: 'boolean' },
  'sa-id': { type: 'string' },
  'sa-secret-stdin': { type: 'boolean' },
};
const callerUsage =
  '--org <org id> --client-id <client_id> (--owner-email <e-mail> (--password <p> | --password-stdin) | --sa-id <sa_…> [--sa-secret-stdin])';

async function callerToken(values: CliValues, server: ServerApi, io: CliIo): Promise<string> {
  const serviceAccount = optionalString(values, 'sa-id');
  if (serviceAccount === undefined) return ownerToken(values, server, io);
  const secret =
    values['sa-secret-stdin'] === true
      ? (await io.readStdin()).replace(/\r?\n$/, '')
      : process.env.DAUTH_SA_SECRET;
  if (!secret)
    throw new UsageError(
      'give the service account secret on stdin (--sa-secret-stdin) or in DAUTH_SA_SECRET',
    );
  const answer = (await server.request('POST', '/oauth/token', {
    grant_type: 'client_credentials',
    client_id: serviceAccount,
    client_secret: secret,
  })) as { access_token: string };
  return answer.access_token;
}

const playersPath = (values: CliValues) =>
  `/v1/orgs/${encodeURIComponent(requiredString(values, 'org'))}/apps/${encodeURIComponent(
    requiredString(values, 'client-id'),
  )}/players`;

const userPath = (values: CliValues) =>
  `${playersPath(values)}/${encodeURIComponent(requiredString(values, 'user-id'))}`;

export const playersList: CliCommand = {
  path: ['players', 'list'],
  summary: "An app's players, a page at a time; --q finds one by user_id, wallet address or e-mail",
  usage: `${callerUsage} [--limit <1-200>] [--cursor <next_cursor>] [--q <text>] [--server <url>]`,
  needs: 'server',
  options: { ...callerOptions, limit: { type: 'string' }, cursor: { type: 'string' }, q: { type: 'string' } },
  async run(values, server, io) {
    const query = new URLSearchParams();
    for (const name of ['limit', 'cursor', 'q']) {
      const value = optionalString(values, name);
      if (value !== undefined) query.set(name, value);
    }
    const suffix = query.size > 0 ? `?${query}` : '';
    return server.request(
      'GET',
      `${playersPath(values)}${suffix}`,
      undefined,
      await callerToken(values, server, io),
    );
  },
};

export const playersShow: CliCommand = {
  path: ['players', 'show'],
  summary: 'A player of the app with slots, purchases, consumption and session keys',
  usage: `${callerUsage} --user-id <uuid> [--server <url>]`,
  needs: 'server',
  options: { ...callerOptions, 'user-id': { type: 'string' } },
  async run(values, server, io) {
    return server.request('GET', userPath(values), undefined, await callerToken(values, server, io));
  },
};

export const playersRevoke: CliCommand = {
  path: ['players', 'revoke'],
  summary: "End a player's grant for the app: every token, on every replica",
  usage: `${callerUsage} --user-id <uuid> [--server <url>]`,
  needs: 'server',
  options: { ...callerOptions, 'user-id': { type: 'string' } },
  async run(values, server, io) {
    return server.request('POST', `${userPath(values)}/revoke`, {}, await callerToken(values, server, io));
  },
};

export const playersPregenerate: CliCommand = {
  path: ['players', 'pregenerate'],
  summary: 'A player before their first sign-in, by e-mail or platform identity: user_id and wallet address',
  usage: `${callerUsage} (--email <e-mail> | --provider <name> --subject <id>) [--server <url>]`,
  needs: 'server',
  options: {
    ...callerOptions,
    email: { type: 'string' },
    provider: { type: 'string' },
    subject: { type: 'string' },
  },
  async run(values, server, io) {
    const email = optionalString(values, 'email');
    const provider = optionalString(values, 'provider');
    const subject = optionalString(values, 'subject');
    if ((email === undefined) === (provider === undefined || subject === undefined)) {
      throw new UsageError('give --email, or --provider and --subject');
    }
    const body = email !== undefined ? { email } : { platform: { provider, subject } };
    return server.request(
      'POST',
      `${playersPath(values)}/pregenerate`,
      body,
      await callerToken(values, server, io),
    );
  },
};
