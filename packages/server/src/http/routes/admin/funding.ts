import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { invalidField } from '../../../errors.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';

const MAX_UINT256 = 2n ** 256n - 1n;
const Wei = (description: string) =>
  Type.String({ pattern: '^[0-9]{1,78}$', format: 'uint256', description: `${description} (wei, decimal)` });

/**
 * `POST /v1/admin/funding`: one call to refill what the platform spends, on any chain, from the deployer account
 * (DEPLOYER_PRIVATE_KEY): the paymaster's EntryPoint deposit, the platform operator wallet's balance and every
 * replica's relayer (each key of RELAYER_PRIVATE_KEYS, so one call through any replica funds them all).
 */
export async function adminFundingRoutes(app: App, services: Services): Promise<void> {
  app.post(
    '/v1/admin/funding',
    {
      schema: {
        tags: ['admin'],
        summary: "Fund the paymaster's EntryPoint deposit and the operator wallet from the deployer",
        security: [{ admin: [] }],
        body: Type.Object(
          {
            paymaster_deposit: Type.Optional(Wei("Added to the paymaster's EntryPoint deposit")),
            operator: Type.Optional(Wei('Sent to the platform operator wallet')),
            relayer: Type.Optional(
              Wei("Sent to each replica's relayer account (every RELAYER_PRIVATE_KEYS key)"),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            paymaster_deposit: Type.String({ description: 'Wei, after funding' }),
            operator_balance: Type.String({ description: 'Wei, after funding' }),
            relayer_balance: Type.String({ description: "This replica's relayer, wei" }),
            relayer_balances: Type.Array(
              Type.Object({ address: Type.String(), balance: Type.String({ description: 'Wei' }) }),
              { description: "Every replica's relayer, in RELAYER_PRIVATE_KEYS order" },
            ),
          }),
          ...errorResponses(400, 401, 409, 503),
        },
      },
    },
    async (request) => {
      const result = await services.funding.refill({
        paymasterDeposit: wei(request.body.paymaster_deposit, 'paymaster_deposit'),
        operator: wei(request.body.operator, 'operator'),
        relayer: wei(request.body.relayer, 'relayer'),
      });
      return {
        success: true,
        paymaster_deposit: result.paymasterDeposit.toString(),
        operator_balance: result.operatorBalance.toString(),
        relayer_balance: result.relayerBalance.toString(),
        relayer_balances: result.relayerBalances.map(({ address, balance }) => ({
          address,
          balance: balance.toString(),
        })),
      };
    },
  );
}

function wei(value: string | undefined, field: string): bigint {
  if (value === undefined) return 0n;
  const parsed = BigInt(value);
  if (parsed > MAX_UINT256) throw invalidField(field, `${field} is larger than 2^256 - 1`);
  return parsed;
}
