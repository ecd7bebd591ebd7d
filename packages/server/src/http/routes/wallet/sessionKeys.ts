import { Type } from 'typebox';
import { toAddress } from '../../../chain/address.js';
import type { Services } from '../../../composition/index.js';
import { MAX_SESSION_CALLS } from '../../../services/sessionKeys/sessionKeyService.js';
import { authOf, bearerSecurity, requireToken } from '../../auth.js';
import { perUser } from '../../rateLimits.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { requestContextOf } from '../../requestContext.js';
import { WalletPolicyJson } from '../devUser/walletPolicy.js';
import { PinFields } from '../pin/pinRequest.js';

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
const ClientId = Type.String({ minLength: 1, maxLength: 64 });
const Hash = Type.String({ pattern: '^0x[0-9a-f]{64}$' });

/**
 * Session keys (decisions §8 "Wallet grants on chain", docs/session-keys.md): the player's grant with the PIN,
 * the list, the revocation (no PIN), and session operations with the app's access token.
 */
export async function walletSessionKeyRoutes(app: App, services: Services): Promise<void> {
  const { sessionKeys } = services;
  const login = requireToken(services.authenticator, 'login');
  const user = (request: Parameters<typeof authOf>[0]) => Number(authOf(request).userId);

  app.post(
    '/v1/wallet/session-keys',
    {
      schema: {
        tags: ['session keys'],
        summary:
          'Grant an app its wallet policy with the PIN: registers a fresh session key on your main wallet, on chain (the key stays sealed in dauth)',
        security: bearerSecurity,
        body: Type.Object({
          client_id: ClientId,
          pin_hash: PinFields.pinHash,
          pin_salt: PinFields.pinSalt,
          key_share_user: PinFields.keyShareUser,
        }),
        response: {
          201: Type.Object({
            session_key: Type.String({ description: 'The session key’s address (never its private key)' }),
            valid_until: Type.String({ description: 'ISO 8601 UTC' }),
            policy: WalletPolicyJson,
            user_op_hash: Hash,
            tx_hash: Hash,
          }),
          ...errorResponses(400, 401, 403, 404, 409, 422, 423, 429, 503),
        },
      },
      preHandler: login,
      config: perUser(services.config.rateLimits, 'session_keys'),
    },
    async (request, reply) => {
      const { client_id, pin_hash, key_share_user } = request.body;
      const granted = await sessionKeys.grant(user(request), client_id, {
        pinHash: pin_hash,
        keyShareUser: key_share_user,
      });
      services.security.notify(
        user(request),
        { kind: 'session_key_granted', clientId: client_id },
        requestContextOf(request),
      );
      return reply.status(201).send({
        session_key: granted.sessionKey,
        valid_until: iso(granted.validUntil),
        policy: granted.policy,
        user_op_hash: granted.userOpHash,
        tx_hash: granted.txHash,
      });
    },
  );

  app.get(
    '/v1/wallet/session-keys',
    {
      schema: {
        tags: ['session keys'],
        summary:
          'Your active session keys, per app, with what each spent today (read from the wallet contract)',
        security: bearerSecurity,
        response: {
          200: Type.Object({
            session_keys: Type.Array(
              Type.Object({
                client_id: Type.String(),
                client_name: Type.String(),
                session_key: Type.String(),
                valid_until: Type.String(),
                policy: WalletPolicyJson,
                spent_today: Type.Object({
                  value_wei: Type.String(),
                  tokens: Type.Array(Type.Object({ token: Type.String(), amount: Type.String() })),
                }),
                created_at: Type.String(),
                tx_hash: Type.Union([Type.String(), Type.Null()]),
              }),
            ),
          }),
          ...errorResponses(401, 429, 503),
        },
      },
      preHandler: login,
      config: perUser(services.config.rateLimits, 'session_keys_read'),
    },
    async (request) => ({
      session_keys: (await sessionKeys.list(user(request))).map((k) => ({
        client_id: k.clientId,
        client_name: k.clientName,
        session_key: k.sessionKey,
        valid_until: iso(k.validUntil),
        policy: k.policy,
        spent_today: {
          value_wei: k.spentToday.valueWei.toString(),
          tokens: k.spentToday.tokens.map((t) => ({ token: t.token, amount: t.amount.toString() })),
        },
        created_at: new Date(k.createdAt).toISOString(),
        tx_hash: k.txHash ?? null,
      })),
    }),
  );

  app.delete(
    '/v1/wallet/session-keys/:client_id',
    {
      schema: {
        tags: ['session keys'],
        summary: 'Revoke an app’s session key (no PIN): the key signs its own revocation on chain',
        security: bearerSecurity,
        params: Type.Object({ client_id: ClientId }),
        response: {
          200: Type.Object({ success: Type.Boolean(), tx_hash: Type.Union([Hash, Type.Null()]) }),
          ...errorResponses(401, 404, 422, 429, 503),
        },
      },
      preHandler: login,
      config: perUser(services.config.rateLimits, 'session_keys'),
    },
    async (request) => {
      const { txHash } = await sessionKeys.revoke(user(request), request.params.client_id);
      return { success: true, tx_hash: txHash ?? null };
    },
  );

  app.post(
    '/v1/wallet/session-operations',
    {
      schema: {
        tags: ['session keys'],
        summary:
          'One sponsored operation from the player’s wallet signed by your app’s session key (the player’s access token for your app); refused with 403 outside_session_policy before anything is signed',
        security: bearerSecurity,
        body: Type.Object({
          calls: Type.Array(
            Type.Object({
              to: PinFields.address,
              value: Type.Optional(PinFields.uint),
              data: Type.Optional(Type.String({ pattern: '^0x([0-9a-fA-F]{2})*$', maxLength: 65_538 })),
            }),
            { minItems: 1, maxItems: MAX_SESSION_CALLS },
          ),
        }),
        response: {
          200: Type.Object({
            user_op_hash: Hash,
            tx_hash: Hash,
            results: Type.Array(
              Type.Object({ call_index: Type.Integer(), to: Type.String(), success: Type.Boolean() }),
            ),
          }),
          ...errorResponses(400, 401, 403, 404, 409, 422, 429, 503),
        },
      },
      preHandler: requireToken(services.authenticator, 'access'),
      config: perUser(services.config.rateLimits, 'session_operations'),
    },
    async (request) => {
      const auth = authOf(request);
      const calls = request.body.calls.map((c, i) => ({
        to: toAddress(c.to, `calls.${i}.to`),
        value: BigInt(c.value ?? '0'),
        data: (c.data ?? '0x') as `0x${string}`,
      }));
      const result = await sessionKeys.operate(Number(auth.userId), auth.clientId ?? '', calls);
      return { user_op_hash: result.userOpHash, tx_hash: result.txHash, results: result.results };
    },
  );
}
