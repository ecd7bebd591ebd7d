import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { bearerSecurity, requireToken } from '../../auth.js';
import { errorResponses } from '../../schemas.js';
import { perAddressLimiter, perSession } from '../../rateLimits.js';
import type { App } from '../../types.js';
import { PinFields, requireSameUser } from './pinRequest.js';

/** `POST /v1/pin/recover` (spec endpoint 12): rotates the wallet owner key after e-mail verification; the address stays. */
export async function pinRecoverRoutes(app: App, services: Services): Promise<void> {
  const { custody } = services;
  const limitAddress = perAddressLimiter(app, services);
  const requireLogin = requireToken(services.authenticator, 'login');
  // A fresh array per route: the rate-limit plugin appends each route's own limiter to it.
  const loginOnly = () => [limitAddress, requireLogin];

  app.post(
    '/v1/pin/recover',
    {
      onRequest: loginOnly(),
      schema: {
        tags: ['pin'],
        summary: 'Rotate the wallet owner key after e-mail verification; the address stays',
        security: bearerSecurity,
        body: Type.Object({
          user_uuid: PinFields.userUuid,
          pin_hash: PinFields.pinHash,
          pin_salt: PinFields.pinSalt,
          verification_token: Type.String({
            minLength: 16,
            maxLength: 200,
            description: 'From POST /v1/auth/email/verify with purpose pin_recover',
          }),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            address: Type.String(),
            mnemonic_enc: Type.String(),
            key_share_user: Type.String(),
          }),
          ...errorResponses(400, 401, 403, 404, 409, 429, 502, 503),
        },
      },
      config: perSession(services.config.rateLimits, 'pin_recover'),
    },
    async (request) => {
      const body = request.body;
      const userUuid = requireSameUser(request, body.user_uuid);
      const result = await custody.recover(userUuid, body.pin_hash, body.verification_token);
      return {
        success: true,
        address: result.address,
        mnemonic_enc: result.mnemonicEnc,
        key_share_user: result.keyShareUser,
      };
    },
  );
}
