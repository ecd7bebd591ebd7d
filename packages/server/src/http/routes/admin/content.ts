import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { parseWei } from '../../../services/content/amounts.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';

const Cuid = Type.String({ minLength: 1, maxLength: 128 });

/** The platform's content-token switches (decisions §6, §7): release per cuid, settlement terms, the pool. */
export async function adminContentRoutes(app: App, services: Services): Promise<void> {
  app.post(
    '/v1/admin/content/release',
    {
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
    '/v1/admin/content/terms',
    {
      schema: {
        tags: ['admin'],
        summary:
          "Approve and apply a change of a cuid's release_per / owner_addr: outstanding usage is first released at the current terms, in the same operation",
        security: [{ admin: [] }],
        body: Type.Object({
          cuid: Cuid,
          release_per: Type.Integer({ minimum: 0, maximum: 100 }),
          owner_addr: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' }),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            cuid: Type.String(),
            release_per: Type.Integer(),
            owner_addr: Type.String(),
            settled: Type.String({ description: 'Wei paid out at the previous terms before the change' }),
            settled_slots: Type.Integer(),
            tx_hash: Type.String(),
          }),
          ...errorResponses(400, 401, 404, 409, 422, 503),
        },
      },
    },
    async (request) => {
      const { cuid, release_per: releasePer, owner_addr: ownerAddr } = request.body;
      const result = await services.content.settlement.amendTerms(cuid, { releasePer, ownerAddr });
      return {
        success: true,
        cuid,
        release_per: releasePer,
        owner_addr: ownerAddr,
        settled: result.settled.toString(),
        settled_slots: result.slots,
        tx_hash: result.txHash,
      };
    },
  );

  app.post(
    '/v1/admin/content/pool',
    {
      schema: {
        tags: ['admin'],
        summary: "Fund a cuid's settlement pool with wei from the platform's operator wallet",
        security: [{ admin: [] }],
        body: Type.Object({
          cuid: Cuid,
          amount: Type.String({
            pattern: '^[0-9]{1,78}$',
            format: 'uint256',
            description: 'Wei, as a decimal string',
          }),
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
