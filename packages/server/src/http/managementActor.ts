import type { FastifyRequest } from 'fastify';
import type { Services } from '../composition/index.js';
import { AppError } from '../errors.js';
import { type Actor, userActor } from '../services/orgs/roles.js';
import { authOf } from './auth.js';

/**
 * Who called a management route guarded by `requireLoginOrClient` (or its fresh variant): the member
 * behind a login JWT, or the live service account behind a client_credentials token (docs/machines.md).
 * An app's own client token, or a deleted account's → 401 `invalid_token`.
 */
export async function managementActor(
  request: FastifyRequest,
  services: Pick<Services, 'serviceAccounts'>,
): Promise<Actor> {
  const claims = authOf(request);
  if (claims.use === 'login') return userActor(claims.userId);
  const actor = await services.serviceAccounts.actorOf(claims);
  if (!actor) {
    throw new AppError(
      401,
      'invalid_token',
      "Only an organization's service account (or a member's login JWT) may call this route",
    );
  }
  return actor;
}
