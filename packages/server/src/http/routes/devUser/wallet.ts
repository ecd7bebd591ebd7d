import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { authOf, bearerSecurity, requireToken } from '../../auth.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { Amount } from './accountSchemas.js';

/** `GET /v1/dev-user/wallet` (the console's account page): the user's main wallet and its balances. */
export async function devUserWalletRoutes(app: App, services: Services): Promise<void> {
  const overview = services.accountOverview;

  app.get(
    '/v1/dev-user/wallet',
    {
      schema: {
        tags: ['accounts'],
        summary:
          'Your main wallet: address (null before a PIN is set) and native and platform ERC-20 balances',
        security: bearerSecurity,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            address: Type.Union([Type.String(), Type.Null()]),
            native_balance: Type.Union([Amount, Type.Null()]),
            token_balance: Type.Union([Amount, Type.Null()]),
          }),
          ...errorResponses(401, 503),
        },
      },
      preHandler: requireToken(services.authenticator, 'login'),
    },
    async (request) => {
      const w = await overview.wallet(Number(authOf(request).userId));
      return {
        success: true,
        address: w.address,
        native_balance: w.nativeBalance,
        token_balance: w.tokenBalance,
      };
    },
  );
}
