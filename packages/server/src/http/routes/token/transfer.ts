import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { authOf, bearerSecurity, requireToken } from '../../auth.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { perAddressLimiter, perUser } from '../../rateLimits.js';
import { toAddress } from '../../../chain/address.js';
import { PinFields } from '../pin/pinRequest.js';

/** Spec endpoint 4: ERC-20 transfer from one of the caller's wallets, PIN-gated (decisions §4). */
export async function tokenTransferRoutes(app: App, services: Services): Promise<void> {
  const { transfers } = services;

  app.post(
    '/v1/token/transfer',
    {
      onRequest: [perAddressLimiter(app, services), requireToken(services.authenticator, 'any')],
      schema: {
        tags: ['wallet'],
        summary: 'Transfer an ERC-20 token from one of your wallets (sponsored; needs the PIN trio)',
        security: bearerSecurity,
        body: Type.Object({
          from_address: Type.String({
            pattern: '^0x[0-9a-fA-F]{40}$',
            description: 'One of the caller’s wallets',
          }),
          to_address: PinFields.address,
          amount: Type.String({
            pattern: '^[0-9]{1,78}$',
            format: 'uint256',
            description: 'Integer in the token’s base units',
          }),
          contract_address: Type.String({
            pattern: '^0x[0-9a-fA-F]{40}$',
            description: 'The ERC-20 contract',
          }),
          pin_hash: Type.Optional(PinFields.pinHash),
          pin_salt: Type.Optional(PinFields.pinSalt),
          key_share_user: Type.Optional(PinFields.keyShareUser),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            transaction_hash: Type.String(),
            user_op_hash: Type.String(),
            from_address: Type.String(),
            to_address: Type.String(),
            amount: Type.String(),
            contract_address: Type.String(),
          }),
          ...errorResponses(400, 401, 403, 409, 422, 423, 429, 503),
        },
      },
      config: perUser(services.config.rateLimits, 'token_transfer'),
    },
    async (request) => {
      const body = request.body;
      const from = toAddress(body.from_address, 'from_address');
      const to = toAddress(body.to_address, 'to_address');
      const contract = toAddress(body.contract_address, 'contract_address');
      const pin =
        body.pin_hash !== undefined && body.pin_salt !== undefined && body.key_share_user !== undefined
          ? { pinHash: body.pin_hash, keyShareUser: body.key_share_user }
          : undefined;
      const amount = BigInt(body.amount);
      const result = await transfers.transfer({
        userUuid: Number(authOf(request).userId),
        fromAddress: from,
        toAddress: to,
        amount,
        contractAddress: contract,
        pin,
      });
      return {
        success: true,
        transaction_hash: result.transactionHash,
        user_op_hash: result.userOpHash,
        from_address: from,
        to_address: to,
        amount: amount.toString(),
        contract_address: contract,
      };
    },
  );
}
