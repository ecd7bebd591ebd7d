import type { FastifyRequest } from 'fastify';
import type { Services } from '../../../composition/index.js';
import { AppError } from '../../../errors.js';
import type { StudioCaller } from '../../../services/studio/studioAccess.js';
import { authOf } from '../../auth.js';

/**
 * Who called a studio route guarded by `requireLoginOrClient`: the member behind a login JWT, or the
 * live service account behind a client_credentials token (an app's own client token, or a deleted
 * account's → 401 `invalid_token`).
 */
export async function studioCaller(request: FastifyRequest, services: Services): Promise<StudioCaller> {
  const claims = authOf(request);
  if (claims.use === 'login') return { kind: 'user', userId: Number(claims.userId) };
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
