import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import type { ContentServices } from '../../../composition/index.js';
import { routeLimit } from '../../rateLimits.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { Amount } from './contentSchemas.js';

/** `GET /v1/development-api/balance_adex/:slot_address`: a slot's balance and used balance of a cuid (public). */
export async function balanceAdexRoutes(app: App, services: Services): Promise<void> {
  const content: ContentServices = services.content;

  app.get(
    '/v1/development-api/balance_adex/:slot_address',
    {
      schema: {
        tags: ['content'],
        summary: 'A slot’s content-token balance and used_balances (public, from chain state)',
        params: Type.Object({ slot_address: Type.String({ maxLength: 64 }) }),
        querystring: Type.Object({ cuid: Type.Optional(Type.String({ maxLength: 128 })) }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            slot: Type.String(),
            balance: Amount('Content-token balance (base units)'),
            used_balances: Amount('Cumulative consumption (base units), permanent'),
            cuid: Type.String(),
          }),
          ...errorResponses(400, 404, 429, 503),
        },
      },
      config: { rateLimit: routeLimit(services.config.rateLimits, 'balance_adex') },
    },
    async (request) => {
      const result = await content.balances.query(request.params.slot_address, request.query.cuid);
      return {
        success: true,
        slot: result.slot,
        balance: result.balance.toString(),
        used_balances: result.used.toString(),
        cuid: result.cuid,
      };
    },
  );
}
