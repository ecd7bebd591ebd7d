import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { TransferBindingBody, uuidNumber } from '../idexPlatform/exchangeTokenOwner.js';

/** `POST /v1/admin/transfer-tickets` (decisions §5): the platform issues a ticket for one slot transfer. */
export async function adminTransferTicketRoutes(app: App, services: Services): Promise<void> {
  app.post(
    '/v1/admin/transfer-tickets',
    {
      schema: {
        tags: ['admin'],
        summary: 'Issue a single-use transfer ticket binding cu_id, from_uuid, to_uuid and meta_idx',
        security: [{ admin: [] }],
        body: Type.Object(TransferBindingBody),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            state: Type.String({
              description: 'The ticket; present it once as exchange_token_owner `state`',
            }),
            expires_at: Type.String({ description: 'ISO 8601 UTC' }),
          }),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const ticket = await services.slotTransfers.issueTicket(
        {
          cuId: body.cu_id,
          fromUuid: uuidNumber(body.from_uuid),
          toUuid: uuidNumber(body.to_uuid),
          metaIdx: body.meta_idx,
        },
        'admin',
      );
      void reply.header('cache-control', 'no-store');
      return { success: true, state: ticket.state, expires_at: new Date(ticket.expiresAt).toISOString() };
    },
  );
}
