import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { toAddress } from '../../../chain/address.js';
import { invalidField } from '../../../errors.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';

const MAX_UINT256 = 2n ** 256n - 1n;
const Amount = (description: string) =>
  Type.String({
    pattern: '^[0-9]{1,78}$',
    format: 'uint256',
    description: `${description}, as a decimal string`,
  });

/** `POST /v1/admin/faucet` (decisions §1): development funds for demos and tests, on chain 31337 only. */
export async function adminFaucetRoutes(app: App, services: Services): Promise<void> {
  app.post(
    '/v1/admin/faucet',
    {
      schema: {
        tags: ['admin'],
        summary:
          'Add native currency (wei) and platform ERC-20 (base units) to an address (chain 31337 only)',
        security: [{ admin: [] }],
        body: Type.Object({
          address: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' }),
          native: Type.Optional(Amount('Wei to add')),
          token: Type.Optional(Amount('Platform ERC-20 base units to add')),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            address: Type.String(),
            native_balance: Type.String({ description: 'Wei, decimal string' }),
            token_balance: Type.String({ description: 'Base units, decimal string' }),
          }),
          ...errorResponses(400, 401, 403, 409, 503),
        },
      },
    },
    async (request) => {
      const { address, native, token } = request.body;
      const result = await services.funding.faucet({
        // Mixed case must be a valid EIP-55 checksum (a typo otherwise): 400, never a 500 from the node client.
        address: toAddress(address, 'address'),
        native: amount(native, 'native'),
        token: amount(token, 'token'),
      });
      return {
        success: true,
        address,
        native_balance: result.nativeBalance.toString(),
        token_balance: result.tokenBalance.toString(),
      };
    },
  );
}

function amount(value: string | undefined, field: string): bigint {
  if (value === undefined) return 0n;
  const parsed = BigInt(value);
  if (parsed > MAX_UINT256) throw invalidField(field, `${field} is larger than 2^256 - 1`);
  return parsed;
}
