import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import type { ContentServices } from '../../../composition/index.js';
import { AppError } from '../../../errors.js';
import { routeLimit } from '../../rateLimits.js';
import { errorResponses } from '../../schemas.js';
import { basicCredentials } from '../oauth/clientAuthentication.js';
import type { App } from '../../types.js';
import { ConsumptionResult, QueuedResult } from './contentSchemas.js';

/** The cuid a consumption payload named, once it is authenticated: the key of the per-cuid limit. */
const consumedCuid = new WeakMap<FastifyRequest, string>();

/** `POST /v1/development-api/increase_used_content_token`: the provider's backend records consumption, authenticated by its encrypted payload. */
export async function increaseUsedContentTokenRoutes(app: App, services: Services): Promise<void> {
  const content: ContentServices = services.content;
  const limits = services.config.rateLimits;
  const cuidLimiter = app.createRateLimit(
    routeLimit(limits, 'content_consume_cuid', {
      keyGenerator: (request) => `content_consume_cuid:${consumedCuid.get(request) ?? ''}`,
    }),
  );
  // On shutdown, callers waiting for an inclusion are answered at once (202: their record is stored and
  // is sent by the next batcher), so closing never waits on the chain.
  app.addHook('preClose', async () => content.consumption.answerPending());

  app.post(
    '/v1/development-api/increase_used_content_token',
    {
      schema: {
        tags: ['content'],
        summary:
          'Record consumption (provider backend only). Authenticated by the encrypted payload, and by the app’s HTTP Basic credentials for a provider with consume_auth client_secret; answers once the record is on chain',
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
          ...errorResponses(400, 401, 404, 409, 429, 503),
        },
      },
      // Anonymous: bounded per address before the payload is decrypted.
      config: { rateLimit: routeLimit(limits, 'content_consume') },
    },
    async (request, reply) => {
      const basic = basicCredentials(request);
      const authenticated = basic
        ? await services.clients.authenticateClient(basic.clientId, basic.secret)
        : undefined;
      const outcome = await content.consumption.consume({
        encryptedMessage: request.body.encrypted_message,
        clientId: request.body.client_id,
        authenticatedClientId: authenticated?.clientId,
        throttle: async (cuid) => {
          consumedCuid.set(request, cuid);
          const limit = await cuidLimiter(request);
          if (!limit.isAllowed && limit.isExceeded) {
            throw new AppError(429, 'rate_limited', 'Too many consumption calls for this cuid, slow down', {
              retryAfterSeconds: limit.ttlInSeconds,
            });
          }
        },
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
}
