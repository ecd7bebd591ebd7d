import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../composition.js';
import { PIN_HASH_PATTERN, PIN_SALT_PATTERN, KEY_SHARE_PATTERN } from '../../crypto/keyShares.js';
import type { ContentServices } from '../../services/content/contentServices.js';
import { authOf, bearerSecurity, requireToken } from '../auth.js';
import { errorResponses } from '../schemas.js';
import type { App } from '../types.js';

const ClientId = Type.String({ minLength: 1, maxLength: 128, description: 'The OAuth client (app) id' });
const Cuid = Type.String({ minLength: 1, maxLength: 128, description: 'Content id (one per game)' });
const SlotAddress = Type.String({
  pattern: '^0x[0-9a-fA-F]{40}$',
  description: 'The slot (content wallet) address',
});
const Amount = (description: string) => Type.String({ description });
const PayloadMode = Type.Union([Type.Literal('ctr'), Type.Literal('ctr+gcm'), Type.Literal('gcm')], {
  description:
    '`ctr`: the spec’s AES-256-CTR form only (default); `ctr+gcm`: both forms, while migrating; `gcm`: the authenticated form is required',
});

const ConsumptionResult = Type.Object({
  success: Type.Boolean(),
  tx_hash: Type.String({ description: 'The transaction that carried this record' }),
  balance: Amount('The slot’s balance of the cuid right after this record'),
  used_balances: Amount('The slot’s used balance of the cuid right after this record'),
  cuid: Type.String(),
  slot: Type.String({ description: 'The slot (content wallet) address' }),
  user_dbkey: Type.String(),
  amount: Type.String(),
  request_id: Type.Optional(Type.String()),
});

const QueuedResult = Type.Object({
  success: Type.Boolean(),
  status: Type.Literal('queued'),
  message: Type.String(),
  cuid: Type.String(),
  slot: Type.String(),
  user_dbkey: Type.String(),
  amount: Type.String(),
  request_id: Type.Optional(Type.String()),
});

const perUser = (name: string) => (request: FastifyRequest) =>
  `${name}:${request.auth?.userId ?? request.ip}`;

/**
 * Content tokens (spec endpoint group 14, decisions §6). Provider registration, settlement, the payload
 * setting and `test_encryption` take the client owner's login JWT; the purchase takes the slot owner's
 * bearer token and the PIN trio; consumption is authenticated by its encrypted payload; the balance query
 * is public.
 */
export async function developmentApiRoutes(app: App, services: Services): Promise<void> {
  const content: ContentServices = services.content;
  const loginToken = requireToken(services.authenticator, 'login');
  // On shutdown, callers waiting for an inclusion are answered at once (202: their record is stored and
  // is sent by the next batcher), so closing never waits on the chain.
  app.addHook('preClose', async () => content.consumption.answerPending());

  app.post(
    '/v1/development-api/init_permission_provider',
    {
      onRequest: loginToken,
      schema: {
        tags: ['content'],
        summary: 'Register a content provider (cuid) for one of your clients, on chain through the operator',
        security: bearerSecurity,
        body: Type.Object({
          client_id: ClientId,
          cuid: Cuid,
          release_per: Type.Number({
            minimum: 0,
            maximum: 100,
            description: 'Settlement ratio on used_balances, 0–100',
          }),
          owner_addr: Type.String({
            description: 'Provider wallet that receives the 85% revenue and releases',
          }),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            tx_hash: Type.String(),
            encryption_key: Type.Optional(
              Type.String({ description: 'Hex, 32 bytes; only on the client’s first registration' }),
            ),
            encryption_iv: Type.Optional(
              Type.String({ description: 'Hex, 16 bytes; only on the client’s first registration' }),
            ),
          }),
          ...errorResponses(400, 401, 403, 404, 409, 422, 429, 503),
        },
      },
      config: { rateLimit: { max: 30, timeWindow: '1 minute', keyGenerator: perUser('content-register') } },
    },
    async (request) => {
      const { client_id, cuid, release_per, owner_addr } = request.body;
      const result = await content.providers.register(Number(authOf(request).userId), {
        clientId: client_id,
        cuid,
        releasePer: release_per,
        ownerAddr: owner_addr,
      });
      return {
        success: true,
        tx_hash: result.txHash,
        ...(result.encryptionKey
          ? { encryption_key: result.encryptionKey, encryption_iv: result.encryptionIv }
          : {}),
      };
    },
  );

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
      config: { rateLimit: { max: 30, timeWindow: '1 minute', keyGenerator: perUser('content-buy') } },
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

  app.post(
    '/v1/development-api/increase_used_content_token',
    {
      schema: {
        tags: ['content'],
        summary:
          'Record consumption (provider backend only). Authenticated by the encrypted payload; answers once the record is on chain',
        body: Type.Object({
          encrypted_message: Type.String({
            minLength: 2,
            maxLength: 8192,
            description:
              'Hex AES-256-CTR of the JSON {client_id, user_dbkey, amount, cuid, request_id?}, or the authenticated form "gcm1:<hex>"',
          }),
          client_id: Type.Optional(
            Type.String({ minLength: 1, maxLength: 128, description: 'Selects the provider key directly' }),
          ),
        }),
        response: {
          200: ConsumptionResult,
          202: QueuedResult,
          ...errorResponses(400, 401, 404, 409, 503),
        },
      },
    },
    async (request, reply) => {
      const outcome = await content.consumption.consume({
        encryptedMessage: request.body.encrypted_message,
        clientId: request.body.client_id,
      });
      const { record } = outcome;
      const common = {
        success: true,
        cuid: record.cuid,
        slot: record.slot,
        user_dbkey: record.slotId,
        amount: record.amount.toString(),
        ...(outcome.requestId !== undefined ? { request_id: outcome.requestId } : {}),
      };
      if (outcome.status === 'queued') {
        return reply.status(202).send({
          ...common,
          status: 'queued' as const,
          message: 'Accepted and stored; it will be recorded on chain when the chain answers again',
        });
      }
      return reply.status(200).send({
        ...common,
        tx_hash: record.txHash!,
        balance: record.balanceAfter!.toString(),
        used_balances: record.usedAfter!.toString(),
      });
    },
  );

  app.get(
    '/v1/development-api/balance_adex/:slot_address',
    {
      schema: {
        tags: ['content'],
        summary: 'A slot’s content-token balance and used_balances (public, from chain state)',
        params: Type.Object({ slot_address: Type.String({ maxLength: 64 }) }),
        querystring: Type.Object({ cuid: Type.Optional(Type.String({ maxLength: 128 })) }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            slot: Type.String(),
            balance: Amount('Content-token balance (base units)'),
            used_balances: Amount('Cumulative consumption (base units), permanent'),
            cuid: Type.String(),
          }),
          ...errorResponses(400, 404, 503),
        },
      },
    },
    async (request) => {
      const result = await content.balances.query(request.params.slot_address, request.query.cuid);
      return {
        success: true,
        slot: result.slot,
        balance: result.balance.toString(),
        used_balances: result.used.toString(),
        cuid: result.cuid,
      };
    },
  );

  app.post(
    '/v1/development-api/release_used_balance',
    {
      onRequest: loginToken,
      schema: {
        tags: ['content'],
        summary:
          'Settle a slot’s unreleased usage to owner_addr from the cuid’s pool (when the platform enabled it)',
        security: bearerSecurity,
        body: Type.Object({ client_id: ClientId, cuid: Cuid, slot: SlotAddress }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            released_amount: Amount('Wei paid to owner_addr'),
            tx_hash: Type.String(),
          }),
          ...errorResponses(400, 401, 403, 404, 409, 422, 429, 503),
        },
      },
      config: { rateLimit: { max: 60, timeWindow: '1 minute', keyGenerator: perUser('content-release') } },
    },
    async (request) => {
      const { client_id, cuid, slot } = request.body;
      const result = await content.settlement.release(Number(authOf(request).userId), {
        clientId: client_id,
        cuid,
        slot,
      });
      return { success: true, released_amount: result.releasedAmount.toString(), tx_hash: result.txHash };
    },
  );

  app.post(
    '/v1/development-api/test_encryption',
    {
      onRequest: loginToken,
      schema: {
        tags: ['content'],
        summary:
          'AES-256-CTR (hex) of test_string under the client’s key and IV, to compare with a local result',
        security: bearerSecurity,
        body: Type.Object({ client_id: ClientId, test_string: Type.String({ maxLength: 65_536 }) }),
        response: {
          200: Type.Object({ success: Type.Boolean(), encrypted_string: Type.String() }),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
      config: {
        rateLimit: { max: 60, timeWindow: '1 minute', keyGenerator: perUser('content-test-encryption') },
      },
    },
    async (request) => {
      const { client_id, test_string } = request.body;
      const encrypted = await content.providers.testEncryption(
        Number(authOf(request).userId),
        client_id,
        test_string,
      );
      return { success: true, encrypted_string: encrypted };
    },
  );

  app.post(
    '/v1/development-api/payload_mode',
    {
      onRequest: loginToken,
      schema: {
        tags: ['content'],
        summary:
          'Choose which consumption payload forms the client accepts (switch on / require AES-256-GCM)',
        security: bearerSecurity,
        body: Type.Object({ client_id: ClientId, mode: PayloadMode }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            client_id: Type.String(),
            payload_mode: PayloadMode,
            gcm_key: Type.Optional(
              Type.String({
                description: 'Hex, 32 bytes: the AES-256-GCM key, shown once when first issued',
              }),
            ),
          }),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
      config: {
        rateLimit: { max: 20, timeWindow: '1 minute', keyGenerator: perUser('content-payload-mode') },
      },
    },
    async (request) => {
      const { client_id, mode } = request.body;
      const result = await content.providers.setPayloadMode(Number(authOf(request).userId), client_id, mode);
      return {
        success: true,
        client_id,
        payload_mode: result.mode,
        ...(result.gcmKey ? { gcm_key: result.gcmKey } : {}),
      };
    },
  );

  app.get(
    '/v1/development-api/payload_mode',
    {
      onRequest: loginToken,
      schema: {
        tags: ['content'],
        summary: 'Which consumption payload forms the client accepts',
        security: bearerSecurity,
        querystring: Type.Object({ client_id: ClientId }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            client_id: Type.String(),
            payload_mode: PayloadMode,
            has_gcm_key: Type.Boolean(),
          }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const { client_id } = request.query;
      const result = await content.providers.payloadMode(Number(authOf(request).userId), client_id);
      return { success: true, client_id, payload_mode: result.mode, has_gcm_key: result.hasGcmKey };
    },
  );
}
