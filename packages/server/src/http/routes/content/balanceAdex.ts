import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import type { ContentServices } from '../../../composition/index.js';
import { callbackRouteLimit } from '../../callbackRouteLimit.js';
import { jsonOncePer } from '../../json/jsonOncePer.js';
import { sendJsonText } from '../../json/sendJson.js';
import { errorResponses } from '../../schemas.js';
import { stringFieldsValidatorCompiler } from '../../stringFieldsValidator.js';
import type { App } from '../../types.js';
import type { SlotReading } from '../../../services/content/slotBalanceReader.js';
import { Amount } from './contentSchemas.js';

/** The path and query-string fields of `balance_adex` (checked by `stringFieldsValidatorCompiler`). */
export const balanceAdexParams = Type.Object({ slot_address: Type.String({ maxLength: 64 }) });
export const balanceAdexQuery = Type.Object({ cuid: Type.Optional(Type.String({ maxLength: 128 })) });

/** `GET /v1/development-api/balance_adex/:slot_address`: a slot's balance and used balance of a cuid (public). */
export async function balanceAdexRoutes(app: App, services: Services): Promise<void> {
  const content: ContentServices = services.content;
  const url = '/v1/development-api/balance_adex/:slot_address';
  // The answer of one reading (one per cuid, slot and block) is written once and sent as it is by every
  // request of that block: no answer object, no serialisation per request (docs/performance-content.md
  // round 12). The fields and their order are the 200 schema's; a test compares the two.
  const answerJson = jsonOncePer((reading: SlotReading) => ({
    success: true,
    slot: reading.slot,
    balance: reading.balance.toString(),
    used_balances: reading.used.toString(),
    cuid: reading.cuid,
  }));

  app.get(
    url,
    {
      schema: {
        tags: ['content'],
        summary: 'A slot’s content-token balance and used_balances (public, from chain state)',
        params: balanceAdexParams,
        querystring: balanceAdexQuery,
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
      // The two string fields checked as ajv would, without its generated code (a public read's every request).
      validatorCompiler: stringFieldsValidatorCompiler,
      // The per-address limit (RATE_LIMITS balance_adex) as @fastify/rate-limit counts it, without its promises;
      // its x-ratelimit-* headers once a caller has used half its allowance, and with every 429 (docs/security.md).
      onRequest: callbackRouteLimit(services.config.rateLimits, services.redis, 'balance_adex', url, {
        headers: 'near-limit',
      }),
    },
    // Not async: a cached balance is returned as it is (Fastify sends it at once); only a miss returns a promise.
    // A string answer with a JSON content type is sent unserialised; errors still go through the schemas.
    (request, reply) => {
      const { slot_address: slotAddress } = request.params;
      const hit = content.balances.queryNow(slotAddress, request.query.cuid);
      if (hit) {
        void sendJsonText(reply, answerJson(hit));
        return;
      }
      return content.balances.query(slotAddress, request.query.cuid).then((reading) => {
        void sendJsonText(reply, answerJson(reading));
      });
    },
  );
}
