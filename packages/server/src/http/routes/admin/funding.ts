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
      const deposit = wei(request.body.paymaster_deposit, 'paymaster_deposit');
      const operator = wei(request.body.operator, 'operator');
      const relayer = wei(request.body.relayer, 'relayer');
      const { chain } = services;
      const relayers = chain.telemetry.relayerAddresses;
      if (deposit > 0n) await chain.faucet.depositForPaymaster(deposit);
      if (operator > 0n) await chain.faucet.sendNative(chain.operator.address, operator);
      // One after the other: each is a transaction of the deployer, whose nonces must not race.
      if (relayer > 0n) for (const address of relayers) await chain.faucet.sendNative(address, relayer);
      const [paymasterDeposit, operatorBalance, relayerBalances] = await Promise.all([
        chain.gateway.paymasterDeposit(),
        chain.gateway.nativeBalance(chain.operator.address),
        Promise.all(relayers.map((address) => chain.gateway.nativeBalance(address))),
      ]);
      const own = relayers.indexOf(chain.telemetry.relayerAddress);
      return {
        success: true,
        paymaster_deposit: paymasterDeposit.toString(),
        operator_balance: operatorBalance.toString(),
        relayer_balance: (relayerBalances[own] ?? 0n).toString(),
        relayer_balances: relayers.map((address, i) => ({
          address,
          balance: relayerBalances[i]!.toString(),
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
