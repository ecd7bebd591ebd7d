import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { bearerSecurity, requireToken } from '../../auth.js';
import { errorResponses } from '../../schemas.js';
import { perAddressLimiter, perSession } from '../../rateLimits.js';
import type { App } from '../../types.js';
import { PinFields, Mnemonic, requireSameUser } from './pinRequest.js';

/** `POST /v1/pin/reset` (spec endpoint 11): a new PIN with the mnemonic; same owner and wallet, no chain transaction. */
export async function pinResetRoutes(app: App, services: Services): Promise<void> {
  const { custody } = services;
  const limitAddress = perAddressLimiter(app, services);
  const requireLogin = requireToken(services.authenticator, 'login');
  // A fresh array per route: the rate-limit plugin appends each route's own limiter to it.
  const loginOnly = () => [limitAddress, requireLogin];

  app.post(
    '/v1/pin/reset',
    {
      onRequest: loginOnly(),
      schema: {
        tags: ['pin'],
        summary: 'Set a new PIN with the mnemonic; same owner and wallet, no chain transaction',
        security: bearerSecurity,
        body: Type.Object({
          user_uuid: PinFields.userUuid,
          mnemonic: Mnemonic,
          new_pin_hash: PinFields.pinHash,
          new_pin_salt: PinFields.pinSalt,
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            address: Type.String(),
            key_share_user: Type.String(),
          }),
          ...errorResponses(400, 401, 403, 404, 409, 429),
        },
      },
      config: perSession(services.config.rateLimits, 'pin_reset'),
    },
    async (request) => {
      const body = request.body;
      const userUuid = requireSameUser(request, body.user_uuid);
      const result = await custody.reset(userUuid, body.mnemonic, body.new_pin_hash);
      return { success: true, address: result.address, key_share_user: result.keyShareUser };
    },
  );
}
