import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { routeLimit } from '../../rateLimits.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';

const AddressString = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' });

/** `GET /v1/chain/info` (decisions §1): which chain the service uses and where its contracts are. */
export async function chainRoutes(app: App, services: Services): Promise<void> {
  app.get(
    '/v1/chain/info',
    {
      schema: {
        tags: ['chain'],
        summary: 'The chain id, the addresses of every contract and, for the embedded chain, its RPC URL',
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            chain_id: Type.Integer(),
            entry_point: AddressString,
            account_factory: AddressString,
            paymaster: AddressString,
            dex: AddressString,
            content_token: AddressString,
            token: AddressString,
            rpc_url: Type.Optional(Type.String({ description: 'Only for the embedded development chain' })),
          }),
          ...errorResponses(429),
        },
      },
      config: { rateLimit: routeLimit(services.config.rateLimits, 'chain_info') },
    },
    async () => {
      const { chainId, contracts, rpcUrl } = services.chainInfo;
      return { success: true, chain_id: chainId, ...contracts, ...(rpcUrl ? { rpc_url: rpcUrl } : {}) };
    },
  );
}
