import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import type { ContentServices } from '../../../composition/index.js';
import { authOf, bearerSecurity, requireToken } from '../../auth.js';
import { errorResponses } from '../../schemas.js';
import { perUser } from '../../rateLimits.js';
import type { App } from '../../types.js';
import { ClientId, Cuid, SlotAddress, Amount } from './contentSchemas.js';

/** `POST /v1/development-api/release_used_balance`: the client owner settles a slot's used balance once the platform enabled release. */
export async function releaseUsedBalanceRoutes(app: App, services: Services): Promise<void> {
  const content: ContentServices = services.content;
  const loginToken = requireToken(services.authenticator, 'login');

  app.post(
    '/v1/development-api/release_used_balance',
    {
      onRequest: loginToken,
      schema: {
        tags: ['content'],
        summary:
          'Settle a slot’s unreleased usage to owner_addr from the cuid’s pool (when the platform enabled it)',
        security: bearerSecurity,
        body: Type.Object({ client_id: ClientId, cuid: Cuid, slot: SlotAddress }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            released_amount: Amount('Wei paid to owner_addr'),
            tx_hash: Type.String(),
          }),
          ...errorResponses(400, 401, 403, 404, 409, 422, 429, 503),
        },
      },
      config: perUser(services.config.rateLimits, 'content_release'),
    },
    async (request) => {
      const { client_id, cuid, slot } = request.body;
      const result = await content.settlement.release(Number(authOf(request).userId), {
        clientId: client_id,
        cuid,
        slot,
      });
      return { success: true, released_amount: result.releasedAmount.toString(), tx_hash: result.txHash };
    },
  );
}
