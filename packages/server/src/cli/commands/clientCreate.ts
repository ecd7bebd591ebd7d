import { notFound } from '../../errors.js';
import { userActor } from '../../services/orgs/roles.js';
import { type CliCommand, requiredString, stringList, UsageError } from '../command.js';

/**
 * `dauth client create --owner-email … --name … --redirect-uri … [--redirect-uri …] [--dapp]
 * [--post-logout-redirect-uri …]` (the last one repeatable: OpenID Connect logout targets).
 */
export const clientCreate: CliCommand = {
  path: ['client', 'create'],
  summary: 'Register an app (OAuth client) for a developer; prints the secret once (database only)',
  needs: 'database',
  usage:
    '--owner-email <e-mail> --name <name> --redirect-uri <uri> [--redirect-uri <uri> …] [--dapp] [--post-logout-redirect-uri <uri> …]',
  options: {
    'owner-email': { type: 'string' },
    name: { type: 'string' },
    'redirect-uri': { type: 'string', multiple: true },
    dapp: { type: 'boolean' },
    'post-logout-redirect-uri': { type: 'string', multiple: true },
  },
  async run(values, services) {
    const ownerEmail = requiredString(values, 'owner-email');
    const name = requiredString(values, 'name');
    const redirectUris = stringList(values, 'redirect-uri');
    if (redirectUris.length === 0) throw new UsageError('--redirect-uri is required');
    const owner = await services.accounts.findUserByEmail(ownerEmail);
    if (!owner) throw notFound('user_not_found', `No user with the e-mail ${ownerEmail}`);
    // The owner's personal organization (docs/orgs.md), created on first use.
    const orgId = await services.orgs.orgForNewApp(userActor(owner.userUuid), undefined);
    const { client, clientSecret } = await services.clients.create({
      ownerUuid: owner.userUuid,
      orgId,
      name,
      redirectUris,
      dapp: values.dapp === true,
      postLogoutRedirectUris: stringList(values, 'post-logout-redirect-uri'),
    });
    return {
      success: true,
      client_id: client.clientId,
      client_secret: clientSecret,
      name: client.name,
      redirect_uris: client.redirectUris,
      dapp: client.dapp,
      post_logout_redirect_uris: client.postLogoutRedirectUris,
      owner_uuid: String(client.ownerUuid),
      org_id: orgId,
    };
  },
};
