import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import type { ContentServices } from '../../../composition/index.js';
import { callbackRouteLimit } from '../../callbackRouteLimit.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { Amount } from './contentSchemas.js';

/** `GET /v1/development-api/balance_adex/:slot_address`: a slot's balance and used balance of a cuid (public). */
export async function balanceAdexRoutes(app: App, services: Services): Promise<void> {
  const content: ContentServices = services.content;
  const url = '/v1/development-api/balance_adex/:slot_address';
  const answer = (result: { slot: string; cuid: string; balance: bigint; used: bigint }) => ({
    success: true,
    slot: result.slot,
    balance: result.balance.toString(),
    used_balances: result.used.toString(),
    cuid: result.cuid,
  });

  app.get(
    url,
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
      // The per-address limit (RATE_LIMITS balance_adex) as @fastify/rate-limit counts it, without its promises.
      onRequest: callbackRouteLimit(services.config.rateLimits, services.redis, 'balance_adex', url),
    },
    // Not async: a cached balance is returned as it is (Fastify sends it at once); only a miss returns a promise.
    (request) => {
      const { slot_address: slotAddress } = request.params;
      const hit = content.balances.queryNow(slotAddress, request.query.cuid);
      if (hit) return answer(hit);
      return content.balances.query(slotAddress, request.query.cuid).then(answer);
    },
  );
}
