import { notFound } from '../../errors.js';
import { userActor } from '../../services/orgs/roles.js';
import { type CliCommand, requiredString } from '../command.js';

/** `dauth client list --owner <e-mail>`: the apps of every organization a developer belongs to (never their secrets, which are not stored). */
export const clientList: CliCommand = {
  path: ['client', 'list'],
  summary: "List a developer's apps (database only)",
  usage: '--owner-email <e-mail>',
  needs: 'database',
  options: { 'owner-email': { type: 'string' } },
  deprecatedOptions: { owner: 'owner-email' },
  async run(values, services) {
    const email = requiredString(values, 'owner-email');
    const owner = await services.accounts.findUserByEmail(email);
    if (!owner) throw notFound('user_not_found', `No user with the e-mail ${email}`);
    const clients = await services.orgs.appsOf(userActor(owner.userUuid));
    return {
      success: true,
      owner_uuid: String(owner.userUuid),
      clients: clients.map((c) => ({
        client_id: c.clientId,
        name: c.name,
        redirect_uris: c.redirectUris,
        dapp: c.dapp,
        post_logout_redirect_uris: c.postLogoutRedirectUris,
        created_at: new Date(c.createdAt).toISOString(),
        ...(c.orgId !== undefined ? { org_id: c.orgId } : {}),
      })),
    };
  },
};
