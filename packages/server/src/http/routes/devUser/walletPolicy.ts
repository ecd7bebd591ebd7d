import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import type { StoredWalletPolicy } from '../../../services/sessionKeys/sessionKeyService.js';
import {
  MAX_POLICY_CALLS,
  MAX_POLICY_ENTRIES,
  MAX_SELECTORS_PER_CALL,
  MAX_TOKEN_LIMITS,
  MAX_VALID_FOR_SECONDS,
  MIN_VALID_FOR_SECONDS,
} from '../../../services/sessionKeys/walletPolicy.js';
import { bearerSecurity, requireFreshLoginOrClient, requireLoginOrClient } from '../../auth.js';
import type { authOf } from '../../auth.js';
import { routeLimit } from '../../rateLimits.js';
import { managementActor } from '../../managementActor.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';

const Uint = Type.String({ pattern: '^[0-9]{1,78}$', description: 'Decimal integer string' });
const Address = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: '0x-prefixed 20-byte address' });

/** An app's wallet policy (decisions §8 "Wallet grants on chain", docs/session-keys.md). */
export const WalletPolicyBody = Type.Object(
  {
    calls: Type.Array(
      Type.Object({
        to: Address,
        selectors: Type.Array(Type.String({ pattern: '^0x[0-9a-fA-F]{8}$' }), {
          maxItems: MAX_SELECTORS_PER_CALL,
        }),
      }),
      {
        maxItems: MAX_POLICY_CALLS,
        description: `Allowed (contract, function selectors); 0x00000000 allows a plain transfer. A token with a token_limits entry allows transfer and approve only (an approve must be set back to 0 within its operation); value-moving selectors (transferFrom, setApprovalForAll, safeTransferFrom, increaseAllowance, permit, …) are refused elsewhere (400 invalid_wallet_policy). All selectors together plus token_limits: at most ${MAX_POLICY_ENTRIES} entries (each is a storage write of the grant; more is 400 invalid_wallet_policy)`,
      },
    ),
    max_value_per_call_wei: Uint,
    max_value_per_day_wei: Uint,
    token_limits: Type.Array(Type.Object({ token: Address, per_day: Uint }), {
      maxItems: MAX_TOKEN_LIMITS,
      description: `Per-day caps of ERC-20 transfer/approve amounts, in the token’s base units; each counts towards the ${MAX_POLICY_ENTRIES} entries`,
    }),
    valid_for_seconds: Type.Integer({
      minimum: MIN_VALID_FOR_SECONDS,
      maximum: MAX_VALID_FOR_SECONDS,
      description: 'At most 30 days',
    }),
  },
  { additionalProperties: false },
);

export const WalletPolicyJson = Type.Object({
  calls: Type.Array(Type.Object({ to: Type.String(), selectors: Type.Array(Type.String()) })),
  max_value_per_call_wei: Type.String(),
  max_value_per_day_wei: Type.String(),
  token_limits: Type.Array(Type.Object({ token: Type.String(), per_day: Type.String() })),
  valid_for_seconds: Type.Integer(),
});

const policyJson = (p: StoredWalletPolicy) => ({
  ...p.policy,
  updated_at: new Date(p.updatedAt).toISOString(),
});
const Params = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

/** `/v1/dev-user/clients/{id}/wallet-policy`: what the app may do from a player's wallet without the PIN. */
export async function walletPolicyRoutes(app: App, services: Services): Promise<void> {
  const { sessionKeys } = services;
  const limit = { rateLimit: routeLimit(services.config.rateLimits, 'wallet_policy') };
  // A member's login JWT by role, or the org's service account (`apps:read`, `apps:write`).
  const owner = (request: Parameters<typeof authOf>[0]) => managementActor(request, services);
  const Stored = Type.Object({
    ...WalletPolicyJson.properties,
    updated_at: Type.String({ description: 'ISO 8601 UTC' }),
  });

  app.put(
    '/v1/dev-user/clients/:id/wallet-policy',
    {
      schema: {
        tags: ['session keys'],
        summary:
          'Set your app’s wallet policy: the calls, value and token caps and validity a player’s grant gives it. Needs a fresh login (STEP_UP_MAX_AGE)',
        security: bearerSecurity,
        params: Params,
        body: WalletPolicyBody,
        response: { 200: Stored, ...errorResponses(400, 401, 403, 404, 429) },
      },
      preHandler: requireFreshLoginOrClient(services.authenticator, services.config.stepUpMaxAgeSeconds),
      config: limit,
    },
    async (request) =>
      policyJson(await sessionKeys.putPolicy(await owner(request), request.params.id, request.body)),
  );

  app.get(
    '/v1/dev-user/clients/:id/wallet-policy',
    {
      schema: {
        tags: ['session keys'],
        summary: 'Your app’s wallet policy',
        security: bearerSecurity,
        params: Params,
        response: { 200: Stored, ...errorResponses(401, 403, 404, 429) },
      },
      preHandler: requireLoginOrClient(services.authenticator),
      config: limit,
    },
    async (request) => policyJson(await sessionKeys.getPolicy(await owner(request), request.params.id)),
  );

  app.delete(
    '/v1/dev-user/clients/:id/wallet-policy',
    {
      schema: {
        tags: ['session keys'],
        summary:
          'Remove your app’s wallet policy (no new grants; existing ones keep their policy until revoked)',
        security: bearerSecurity,
        params: Params,
        response: { 200: Type.Object({ success: Type.Boolean() }), ...errorResponses(401, 403, 404, 429) },
      },
      preHandler: requireFreshLoginOrClient(services.authenticator, services.config.stepUpMaxAgeSeconds),
      config: limit,
    },
    async (request) => {
      await sessionKeys.deletePolicy(await owner(request), request.params.id);
      return { success: true };
    },
  );
}
