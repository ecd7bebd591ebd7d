import { type CliCommand, type CliOptions, type CliValues, requiredString } from '../command.js';
import type { ServerApi } from '../serverApi.js';
import { ownerToken } from './clientLifecycle.js';
import type { CliIo } from '../command.js';

/**
 * Organizations through the running server's API (docs/orgs.md), as a member signed in over HTTP with
 * e-mail and password (like `client update`), so the server applies its rules (roles, the invitation
 * mail, single use).
 */
const memberOptions: CliOptions = {
  email: { type: 'string' },
  password: { type: 'string' },
  'password-stdin': { type: 'boolean' },
};
const memberUsage = '--email <e-mail> (--password <p> | --password-stdin)';
const memberToken = (values: CliValues, server: ServerApi, io: CliIo) =>
  ownerToken({ ...values, 'owner-email': requiredString(values, 'email') }, server, io);
const orgPath = (values: CliValues) => `/v1/orgs/${encodeURIComponent(requiredString(values, 'org-id'))}`;

export const orgList: CliCommand = {
  path: ['org', 'list'],
  summary: 'The organizations you belong to, with your role in each',
  usage: `${memberUsage} [--server <url>]`,
  needs: 'server',
  options: memberOptions,
  async run(values, server, io) {
    return server.request('GET', '/v1/orgs', undefined, await memberToken(values, server, io));
  },
};

export const orgCreate: CliCommand = {
  path: ['org', 'create'],
  summary: 'Create an organization; you are its owner',
  usage: `${memberUsage} --name <name> [--server <url>]`,
  needs: 'server',
  options: { ...memberOptions, name: { type: 'string' } },
  async run(values, server, io) {
    const name = requiredString(values, 'name');
    return server.request('POST', '/v1/orgs', { name }, await memberToken(values, server, io));
  },
};

export const orgMembers: CliCommand = {
  path: ['org', 'members'],
  summary: "An organization's members and their roles",
  usage: `${memberUsage} --org-id <id> [--server <url>]`,
  needs: 'server',
  options: { ...memberOptions, 'org-id': { type: 'string' } },
  async run(values, server, io) {
    return server.request(
      'GET',
      `${orgPath(values)}/members`,
      undefined,
      await memberToken(values, server, io),
    );
  },
};

export const orgInvite: CliCommand = {
  path: ['org', 'invite'],
  summary: 'Invite someone by e-mail with a role (admin, developer or viewer); the server mails the link',
  usage: `${memberUsage} --org-id <id> --invitee <e-mail> --role <role> [--server <url>]`,
  needs: 'server',
  options: {
    ...memberOptions,
    'org-id': { type: 'string' },
    invitee: { type: 'string' },
    role: { type: 'string' },
  },
  async run(values, server, io) {
    const body = { email: requiredString(values, 'invitee'), role: requiredString(values, 'role') };
    return server.request(
      'POST',
      `${orgPath(values)}/invitations`,
      body,
      await memberToken(values, server, io),
    );
  },
};

export const orgAccept: CliCommand = {
  path: ['org', 'accept'],
  summary: 'Accept an invitation with the token from its mail (signed in with the invited address)',
  usage: `${memberUsage} --token=<invitation token> [--server <url>]`,
  needs: 'server',
  options: { ...memberOptions, token: { type: 'string' } },
  async run(values, server, io) {
    const token = requiredString(values, 'token');
    return server.request(
      'POST',
      '/v1/orgs/invitations/accept',
      { token },
      await memberToken(values, server, io),
    );
  },
};
