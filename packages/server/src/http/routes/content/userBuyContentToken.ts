import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { PIN_HASH_PATTERN, PIN_SALT_PATTERN, KEY_SHARE_PATTERN } from '../../../crypto/keyShares.js';
import type { ContentServices } from '../../../composition/index.js';
import { authOf, bearerSecurity, requireToken } from '../../auth.js';
import { errorResponses } from '../../schemas.js';
import { perUser } from '../../rateLimits.js';
import type { App } from '../../types.js';
import { ClientId, Cuid, Amount } from './contentSchemas.js';

/** `POST /v1/development-api/user_buy_content_token`: the slot owner buys content tokens for a slot with native currency (PIN-gated). */
export async function userBuyContentTokenRoutes(app: App, services: Services): Promise<void> {
  const content: ContentServices = services.content;

  app.post(
    '/v1/development-api/user_buy_content_token',
    {
      onRequest: requireToken(services.authenticator, 'any'),
      schema: {
        tags: ['content'],
        summary: 'Buy content tokens for a slot, paid from the slot owner’s main wallet (PIN-gated)',
        security: bearerSecurity,
        body: Type.Object({
          client_id: ClientId,
          user_dbkey: Type.String({
            pattern: '^[1-9][0-9]{0,18}$',
            description: 'The slot id (decimal string)',
          }),
          amount: Type.String({
            minLength: 1,
            maxLength: 100,
            description: 'Native amount: an integer string is wei; a decimal ("0.5") or "<n> ether" is ether',
          }),
          cuid: Cuid,
          pin_hash: Type.Optional(Type.String({ pattern: PIN_HASH_PATTERN })),
          pin_salt: Type.Optional(Type.String({ pattern: PIN_SALT_PATTERN })),
          key_share_user: Type.Optional(Type.String({ pattern: KEY_SHARE_PATTERN })),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            tx_hash: Type.String(),
            token_amount: Amount('Content-token base units credited (1 per wei)'),
            native_paid: Amount('Wei paid'),
            platform_fee: Amount('Wei to the platform (15%, rounded down)'),
            provider_received: Amount('Wei to the provider’s owner_addr (the rest)'),
          }),
          ...errorResponses(400, 401, 403, 404, 409, 422, 423, 429, 503),
        },
      },
      config: perUser(services.config.rateLimits, 'content_buy'),
    },
    async (request) => {
      const auth = authOf(request);
      const body = request.body;
      const result = await content.purchases.buy(
        { userUuid: Number(auth.userId), tokenClientId: auth.use === 'access' ? auth.clientId : undefined },
        {
          clientId: body.client_id,
          userDbkey: body.user_dbkey,
          amount: body.amount,
          cuid: body.cuid,
          pin: { pinHash: body.pin_hash, pinSalt: body.pin_salt, keyShareUser: body.key_share_user },
        },
      );
      return {
        success: true,
        tx_hash: result.txHash,
        token_amount: result.tokenAmount.toString(),
        native_paid: result.nativePaid.toString(),
        platform_fee: result.platformFee.toString(),
        provider_received: result.providerReceived.toString(),
      };
    },
  );
}
