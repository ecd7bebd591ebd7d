import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import type { Call } from '../../../services/custody/walletChain.js';
import { FIRST_PARTY_BINDING } from '../../../services/oauth/loginBinding.js';
import { authOf, bearerSecurity, requireToken } from '../../auth.js';
import { errorResponses } from '../../schemas.js';
import { perAddressLimiter, perSession } from '../../rateLimits.js';
import type { App } from '../../types.js';
import { toAddress } from '../../../chain/address.js';
import { PinFields, CallBody, requireSameUser } from './pinRequest.js';

/** `POST /v1/pin/verify` (spec endpoint 10): proves the PIN, or signs and submits one sponsored operation from the main wallet. */
export async function pinVerifyRoutes(app: App, services: Services): Promise<void> {
  const { custody } = services;
  const limitAddress = perAddressLimiter(app, services);
  const requireLogin = requireToken(services.authenticator, 'login');
  // A fresh array per route: the rate-limit plugin appends each route's own limiter to it.
  const loginOnly = () => [limitAddress, requireLogin];

  app.post(
    '/v1/pin/verify',
    {
      onRequest: loginOnly(),
      schema: {
        tags: ['pin'],
        summary: 'Prove the PIN, or sign and submit one sponsored operation from the main wallet',
        security: bearerSecurity,
        body: Type.Object({
          user_uuid: PinFields.userUuid,
          pin_hash: PinFields.pinHash,
          pin_salt: PinFields.pinSalt,
          key_share_user: PinFields.keyShareUser,
          calls: Type.Optional(Type.Array(CallBody, { maxItems: 16 })),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            address: Type.Optional(Type.String({ description: 'Main wallet (PIN proof without calls)' })),
            user_op_hash: Type.Optional(Type.String()),
            tx_hash: Type.Optional(Type.String()),
          }),
          ...errorResponses(400, 401, 403, 404, 409, 422, 423, 429, 503),
        },
      },
      config: perSession(services.config.rateLimits, 'pin_verify'),
    },
    async (request) => {
      const body = request.body;
      const userUuid = requireSameUser(request, body.user_uuid);
      const calls: Call[] | undefined = body.calls?.map((c, i) => ({
        to: toAddress(c.to, `calls.${i}.to`),
        value: BigInt(c.value ?? '0'),
        data: (c.data ?? '0x') as `0x${string}`,
      }));
      // A login JWT bound to an app (not the console's): the operation is made for that app.
      const azp = authOf(request).azp;
      const result = await custody.verify(
        userUuid,
        { pinHash: body.pin_hash, keyShareUser: body.key_share_user },
        calls,
        azp !== undefined && azp !== FIRST_PARTY_BINDING ? azp : undefined,
      );
      if ('userOpHash' in result) {
        return { success: true, user_op_hash: result.userOpHash, tx_hash: result.txHash };
      }
      return { success: true, address: result.address };
    },
  );
}
