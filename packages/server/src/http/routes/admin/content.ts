import { Type } from 'typebox';
import type { Services } from '../../../composition.js';
import { parseWei } from '../../../services/content/amounts.js';
import { requireAdmin } from '../../adminAuth.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';

const Cuid = Type.String({ minLength: 1, maxLength: 128 });

/** The platform's content-token switches (decisions §6): release per cuid, and the settlement pool. */
export async function adminContentRoutes(app: App, services: Services): Promise<void> {
  const admin = requireAdmin(services.secrets.adminApiKey);

  app.post(
    '/v1/admin/content/release',
    {
      onRequest: admin,
      schema: {
        tags: ['admin'],
        summary: 'Enable or disable release (settlement) for a cuid; disabled by default',
        security: [{ admin: [] }],
        body: Type.Object({ cuid: Cuid, enabled: Type.Boolean() }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            cuid: Type.String(),
            enabled: Type.Boolean(),
            tx_hash: Type.String(),
          }),
          ...errorResponses(400, 401, 404, 422, 503),
        },
      },
    },
    async (request) => {
      const { cuid, enabled } = request.body;
      const result = await services.content.settlement.setReleaseEnabled(cuid, enabled);
      return { success: true, cuid, enabled, tx_hash: result.txHash };
    },
  );

  app.post(
    '/v1/admin/content/pool',
    {
      onRequest: admin,
      schema: {
        tags: ['admin'],
        summary: "Fund a cuid's settlement pool with wei from the platform's operator wallet",
        security: [{ admin: [] }],
        body: Type.Object({
          cuid: Cuid,
          amount: Type.String({ pattern: '^[0-9]{1,78}$', description: 'Wei, as a decimal string' }),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            cuid: Type.String(),
            amount: Type.String(),
            pool: Type.String({ description: 'The pool after funding (wei)' }),
            tx_hash: Type.String(),
          }),
          ...errorResponses(400, 401, 404, 409, 422, 503),
        },
      },
    },
    async (request) => {
      const { cuid } = request.body;
      const amount = parseWei(request.body.amount);
      const result = await services.content.settlement.fundPool(cuid, amount);
      return {
        success: true,
        cuid,
        amount: amount.toString(),
        pool: result.pool.toString(),
        tx_hash: result.txHash,
      };
    },
  );
}
