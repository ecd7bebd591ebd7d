import { type CliCommand, requiredString, stringList, UsageError } from '../command.js';
import { clientPath, ownerOptions, ownerToken, ownerUsage } from './clientLifecycle.js';

/**
 * An app's webhook endpoints through the running server's API (docs/webhooks.md), as the app's owner
 * (signed in over HTTP like `client update`), so the server applies its rules (ownership, the SSRF
 * policy on the URL, the secret sealed and shown once).
 */
const webhookPath = (values: Parameters<typeof clientPath>[0]) =>
  `${clientPath(values)}/webhooks/${encodeURIComponent(requiredString(values, 'webhook-id'))}`;

export const webhookCreate: CliCommand = {
  path: ['webhook', 'create'],
  summary: 'Register a webhook endpoint of an app; PRINTS ITS whsec_ SECRET once',
  usage: `${ownerUsage} --url <https url> --event <type> [--event <type> …] [--server <url>]`,
  needs: 'server',
  options: { ...ownerOptions, url: { type: 'string' }, event: { type: 'string', multiple: true } },
  async run(values, server, io) {
    const url = requiredString(values, 'url');
    const events = stringList(values, 'event');
    if (events.length === 0) throw new UsageError('give at least one --event');
    return server.request(
      'POST',
      `${clientPath(values)}/webhooks`,
      { url, events },
      await ownerToken(values, server, io),
    );
  },
};

export const webhookList: CliCommand = {
  path: ['webhook', 'list'],
  summary: "An app's webhook endpoints with their failing state (never their secrets)",
  usage: `${ownerUsage} [--server <url>]`,
  needs: 'server',
  options: ownerOptions,
  async run(values, server, io) {
    return server.request(
      'GET',
      `${clientPath(values)}/webhooks`,
      undefined,
      await ownerToken(values, server, io),
    );
  },
};

export const webhookDelete: CliCommand = {
  path: ['webhook', 'delete'],
  summary: 'Delete a webhook endpoint; its pending deliveries are dropped',
  usage: `${ownerUsage} --webhook-id <id> [--server <url>]`,
  needs: 'server',
  options: { ...ownerOptions, 'webhook-id': { type: 'string' } },
  async run(values, server, io) {
    return server.request('DELETE', webhookPath(values), undefined, await ownerToken(values, server, io));
  },
};

export const webhookRotateSecret: CliCommand = {
  path: ['webhook', 'rotate-secret'],
  summary:
    'A new signing secret for a webhook endpoint; PRINTS IT once (both secrets sign for WEBHOOK_SECRET_GRACE_SECONDS)',
  usage: `${ownerUsage} --webhook-id <id> [--server <url>]`,
  needs: 'server',
  options: { ...ownerOptions, 'webhook-id': { type: 'string' } },
  async run(values, server, io) {
    return server.request(
      'POST',
      `${webhookPath(values)}/rotate-secret`,
      undefined,
      await ownerToken(values, server, io),
    );
  },
};
