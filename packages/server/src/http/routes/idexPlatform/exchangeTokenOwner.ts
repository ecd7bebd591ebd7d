import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { sendLosslessJson } from '../../json/sendJson.js';
import { slotIdJson } from '../../json/slotJson.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { routeLimit } from '../../rateLimits.js';

/** A user_uuid as the spec sends it (a decimal string), or as a JSON number. */
export const UserUuid = Type.Union([
  Type.String({ pattern: '^[1-9][0-9]{0,15}$', description: 'user_uuid as a decimal string' }),
  Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
]);

export const TransferBindingBody = {
  cu_id: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'The app: its client_id or a cuid registered to it',
  }),
  from_uuid: UserUuid,
  to_uuid: UserUuid,
  meta_idx: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
};

export const uuidNumber = (value: string | number): number =>
  typeof value === 'number' ? value : Number(value);

/**
 * Spec endpoint 8: `POST /idex-platform/exchange_token_owner`. `state` is a single-use transfer
 * ticket (issued by a marketplace purchase or `POST /v1/admin/transfer-tickets`) that must bind
 * exactly this body's cu_id, from_uuid, to_uuid and meta_idx. The operator's operation calls the
 * dex `init_self(fromWallet, slot, toWallet)`.
 */
export async function exchangeTokenOwnerRoutes(app: App, services: Services): Promise<void> {
  app.post(
    '/idex-platform/exchange_token_owner',
    {
      schema: {
        tags: ['slots'],
        summary: 'Move a slot to another user with a single-use transfer ticket',
        body: Type.Object({ state: Type.String({ minLength: 1, maxLength: 200 }), ...TransferBindingBody }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            tx_hash: Type.Union([Type.String(), Type.Null()]),
            user_op_hash: Type.Union([Type.String(), Type.Null()]),
            slot_id: Type.Union([Type.Integer(), Type.String()], {
              description: 'Raw 19-digit number (decimal string for imported slots)',
            }),
            from_address: Type.String(),
            to_address: Type.String(),
          }),
          ...errorResponses(400, 401, 403, 404, 409, 429, 503),
        },
      },
      config: { rateLimit: routeLimit(services.config.rateLimits, 'exchange_token_owner') },
    },
    async (request, reply) => {
      const body = request.body;
      const result = await services.slotTransfers.exchange(body.state, {
        cuId: body.cu_id,
        fromUuid: uuidNumber(body.from_uuid),
        toUuid: uuidNumber(body.to_uuid),
        metaIdx: body.meta_idx,
      });
      return sendLosslessJson(reply, 200, {
        success: true,
        tx_hash: result.txHash ?? null,
        user_op_hash: result.userOpHash ?? null,
        slot_id: slotIdJson(result.slot),
        from_address: result.fromAddress,
        to_address: result.toAddress,
      });
    },
  );
}
