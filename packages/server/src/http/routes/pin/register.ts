import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { bearerSecurity, requireToken } from '../../auth.js';
import { errorResponses } from '../../schemas.js';
import { perAddressLimiter, perSession } from '../../rateLimits.js';
import type { App } from '../../types.js';
import { PinFields, requireSameUser } from './pinRequest.js';

/** `POST /v1/pin/register` (spec endpoint 9): creates the user's wallet and owner key, split under the PIN. */
export async function pinRegisterRoutes(app: App, services: Services): Promise<void> {
  const { custody } = services;
  const limitAddress = perAddressLimiter(app, services);
  const requireLogin = requireToken(services.authenticator, 'login');
  // A fresh array per route: the rate-limit plugin appends each route's own limiter to it.
  const loginOnly = () => [limitAddress, requireLogin];

  app.post(
    '/v1/pin/register',
    {
      onRequest: loginOnly(),
      schema: {
        tags: ['pin'],
        summary: 'Create the user’s wallet and owner key, split under the PIN',
        security: bearerSecurity,
        body: Type.Object({
          user_uuid: PinFields.userUuid,
          pin_hash: PinFields.pinHash,
          pin_salt: PinFields.pinSalt,
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            data: Type.Array(
              Type.Object({
                address: Type.String({ description: 'Main wallet (counterfactual until first used)' }),
                mnemonic: Type.String({
                  description: 'hex(iv ‖ AES-256-CTR(SHA-256("dauth/mnemonic/v1:" + pin_hash), mnemonic))',
                }),
                key_share_user: Type.String(),
              }),
            ),
          }),
          ...errorResponses(400, 401, 403, 409, 429, 503),
        },
      },
      config: perSession(services.config.rateLimits, 'pin_register'),
    },
    async (request) => {
      const userUuid = requireSameUser(request, request.body.user_uuid);
      const wallet = await custody.register(userUuid, request.body.pin_hash);
      return {
        success: true,
        data: [
          { address: wallet.address, mnemonic: wallet.mnemonicEnc, key_share_user: wallet.keyShareUser },
        ],
      };
    },
  );
}
