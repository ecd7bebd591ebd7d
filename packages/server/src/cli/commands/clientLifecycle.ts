import { FIRST_PARTY_BINDING } from '../../services/oauth/loginBinding.js';
import {
  type CliCommand,
  type CliIo,
  type CliOptions,
  type CliValues,
  passwordOption,
  requiredString,
  stringList,
  optionalString,
  UsageError,
} from '../command.js';
import type { ServerApi } from '../serverApi.js';

/**
 * App lifecycle through the running server's API (`PATCH`/`DELETE /v1/dev-user/clients/{id}`,
 * `POST …/rotate-secret`), as its owner: the CLI signs in over HTTP with the owner's e-mail and
 * password, so the server applies its own rules (ownership, fresh login, revocation on every replica).
 */
export const ownerOptions: CliOptions = {
  'client-id': { type: 'string' },
  'owner-email': { type: 'string' },
  password: { type: 'string' },
  'password-stdin': { type: 'boolean' },
};
export const ownerUsage =
  '--client-id <client_id> --owner-email <e-mail> (--password <p> | --password-stdin)';
/** `--email` was these commands' name for the owner before every command said `--owner-email`. */
export const ownerAlias = { email: 'owner-email' };

export async function ownerToken(values: CliValues, server: ServerApi, io: CliIo): Promise<string> {
  const email = requiredString(values, 'owner-email');
  const password = await passwordOption(values, io);
  const answer = (await server.request('POST', '/v1/dev-user/login_devuser', {
    email,
    password,
    // First-party: the CLI's login manages the account and opens no app (docs/security.md).
    client_id: FIRST_PARTY_BINDING,
  })) as {
    token: string;
  };
  return answer.token;
}

export const clientPath = (values: CliValues) =>
  `/v1/dev-user/clients/${encodeURIComponent(requiredString(values, 'client-id'))}`;

export const clientUpdate: CliCommand = {
  path: ['client', 'update'],
  summary:
    "Edit an app's name and/or redirect URIs through the running server (old URIs stop working at once)",
  usage: `${ownerUsage} [--name <name>] [--redirect-uri <uri> …] [--server <url>]`,
  needs: 'server',
  options: { ...ownerOptions, name: { type: 'string' }, 'redirect-uri': { type: 'string', multiple: true } },
  deprecatedOptions: ownerAlias,
  async run(values, server, io) {
    const route = clientPath(values);
    const name = optionalString(values, 'name');
    const redirectUris = stringList(values, 'redirect-uri');
    if (name === undefined && redirectUris.length === 0) {
      throw new UsageError('give --name and/or --redirect-uri');
    }
    const body = {
      ...(name !== undefined ? { name } : {}),
      ...(redirectUris.length ? { redirect_uris: redirectUris } : {}),
    };
    return server.request('PATCH', route, body, await ownerToken(values, server, io));
  },
};

export const clientRotateSecret: CliCommand = {
  path: ['client', 'rotate-secret'],
  summary:
    'Issue a new client secret through the running server; PRINTS THE NEW SECRET once (the old one works for the grace period)',
  usage: `${ownerUsage} [--server <url>]`,
  needs: 'server',
  options: ownerOptions,
  deprecatedOptions: ownerAlias,
  async run(values, server, io) {
    const route = `${clientPath(values)}/rotate-secret`;
    return server.request('POST', route, undefined, await ownerToken(values, server, io));
  },
};

export const clientDelete: CliCommand = {
  path: ['client', 'delete'],
  summary: 'Delete an app through the running server: every token and grant of it is revoked',
  usage: `${ownerUsage} [--server <url>]`,
  needs: 'server',
  options: ownerOptions,
  deprecatedOptions: ownerAlias,
  async run(values, server, io) {
    const route = clientPath(values);
    return server.request('DELETE', route, undefined, await ownerToken(values, server, io));
  },
};
