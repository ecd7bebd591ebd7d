import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import type { DeliveryView, WebhookEndpointView } from '../../../services/webhooks/webhookEndpointService.js';
import { WEBHOOK_EVENT_TYPES } from '../../../services/webhooks/webhookEvents.js';
import { bearerSecurity, requireLoginOrClient } from '../../auth.js';
import type { authOf } from '../../auth.js';
import { routeLimit } from '../../rateLimits.js';
import { managementActor } from '../../managementActor.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

const EventTypes = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  minItems: 1,
  maxItems: WEBHOOK_EVENT_TYPES.length,
  description: `Event types: ${WEBHOOK_EVENT_TYPES.join(', ')}`,
});
const Url = Type.String({ minLength: 1, maxLength: 2000 });

const Endpoint = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
  failing: Type.Boolean({
    description: 'A delivery was given up on after its retries (cleared by the next success)',
  }),
  failing_since: Type.Union([Type.String(), Type.Null()]),
  previous_secret_valid_until: Type.Union([Type.String(), Type.Null()]),
});

const Attempt = Type.Object({
  attempt: Type.Integer(),
  at: Type.String(),
  outcome: Type.String({ description: 'delivered, refused, timeout, unreachable or blocked' }),
  status: Type.Union([Type.Integer(), Type.Null()]),
  duration_ms: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
});

const Delivery = Type.Object({
  id: Type.String({ description: 'The webhook-id' }),
  type: Type.String(),
  state: Type.String({ description: 'pending, delivered or failed' }),
  attempts: Type.Integer(),
  next_attempt_at: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  delivered_at: Type.Union([Type.String(), Type.Null()]),
  last_status: Type.Union([Type.Integer(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  payload: Type.String({ description: 'The body as signed and sent' }),
  attempt_log: Type.Array(Attempt),
});

const endpointJson = (e: WebhookEndpointView) => ({
  id: e.id,
  url: e.url,
  events: e.events,
  created_at: new Date(e.createdAt).toISOString(),
  failing: e.failingSince !== undefined,
  failing_since: iso(e.failingSince),
  previous_secret_valid_until: iso(e.previousSecretValidUntil),
});

const deliveryJson = (d: DeliveryView) => ({
  id: d.msgId,
  type: d.type,
  state: d.state,
  attempts: d.attempts,
  next_attempt_at: d.state === 'pending' ? iso(d.nextAttemptAt) : null,
  created_at: new Date(d.createdAt).toISOString(),
  delivered_at: iso(d.deliveredAt),
  last_status: d.lastStatus ?? null,
  last_error: d.lastError ?? null,
  payload: d.payload,
  attempt_log: d.attemptLog.map((a) => ({
    attempt: a.attempt,
    at: new Date(a.at).toISOString(),
    outcome: a.outcome,
    status: a.status ?? null,
    duration_ms: a.durationMs,
    error: a.error ?? null,
  })),
});

const AppParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const EndpointParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  wid: Type.String({ minLength: 1, maxLength: 40 }),
});
const DeliveryParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  wid: Type.String({ minLength: 1, maxLength: 40 }),
  did: Type.String({ minLength: 1, maxLength: 64 }),
});

/**
 * An app's webhook endpoints (decisions §8 "Events", docs/webhooks.md), authenticated like the other
 * `/v1/dev-user/clients/{id}` routes: a member's login JWT, by role (docs/orgs.md); another organization's app is `client_not_found`.
 */
export async function webhookRoutes(app: App, services: Services): Promise<void> {
  const { webhooks } = services;
  // A member's login JWT by role, or the org's service account (`apps:read` to read, `webhooks:write` to change).
  const login = requireLoginOrClient(services.authenticator);
  const limit = { rateLimit: routeLimit(services.config.rateLimits, 'webhooks_manage') };
  const owner = (request: Parameters<typeof authOf>[0]) => managementActor(request, services);

  app.post(
    '/v1/dev-user/clients/:id/webhooks',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Register a webhook endpoint; its whsec_ signing secret is shown once',
        security: bearerSecurity,
        params: AppParams,
        body: Type.Object({ url: Url, events: EventTypes }),
        response: {
          201: Type.Object({
            success: Type.Boolean(),
            ...Endpoint.properties,
            secret: Type.String({ description: 'whsec_…, shown once' }),
          }),
          ...errorResponses(400, 401, 403, 404, 409, 429),
        },
      },
      preHandler: login,
      config: limit,
    },
    async (request, reply) => {
      const { endpoint, secret } = await webhooks.create(
        await owner(request),
        request.params.id,
        request.body,
      );
      void reply.header('cache-control', 'no-store');
      return reply.status(201).send({ success: true, ...endpointJson(endpoint), secret });
    },
  );

  app.get(
    '/v1/dev-user/clients/:id/webhooks',
    {
      schema: {
        tags: ['webhooks'],
        summary: "Your app's webhook endpoints (never their secrets), with their failing state",
        security: bearerSecurity,
        params: AppParams,
        response: {
          200: Type.Object({ success: Type.Boolean(), webhooks: Type.Array(Endpoint) }),
          ...errorResponses(401, 403, 404),
        },
      },
      preHandler: login,
    },
    async (request) => ({
      success: true,
      webhooks: (await webhooks.list(await owner(request), request.params.id)).map(endpointJson),
    }),
  );

  app.get(
    '/v1/dev-user/clients/:id/webhooks/:wid',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'One webhook endpoint',
        security: bearerSecurity,
        params: EndpointParams,
        response: {
          200: Type.Object({ success: Type.Boolean(), webhook: Endpoint }),
          ...errorResponses(401, 403, 404),
        },
      },
      preHandler: login,
    },
    async (request) => ({
      success: true,
      webhook: endpointJson(await webhooks.get(await owner(request), request.params.id, request.params.wid)),
    }),
  );

  app.patch(
    '/v1/dev-user/clients/:id/webhooks/:wid',
    {
      schema: {
        tags: ['webhooks'],
        summary: "Change a webhook endpoint's url and/or events (the registration rules apply)",
        security: bearerSecurity,
        params: EndpointParams,
        body: Type.Object(
          { url: Type.Optional(Url), events: Type.Optional(EventTypes) },
          { minProperties: 1 },
        ),
        response: {
          200: Type.Object({ success: Type.Boolean(), webhook: Endpoint }),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
      preHandler: login,
      config: limit,
    },
    async (request) => ({
      success: true,
      webhook: endpointJson(
        await webhooks.update(await owner(request), request.params.id, request.params.wid, request.body),
      ),
    }),
  );

  app.delete(
    '/v1/dev-user/clients/:id/webhooks/:wid',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Delete a webhook endpoint; its pending deliveries are dropped',
        security: bearerSecurity,
        params: EndpointParams,
        response: { 200: Type.Object({ success: Type.Boolean() }), ...errorResponses(401, 403, 404) },
      },
      preHandler: login,
    },
    async (request) => {
      await webhooks.remove(await owner(request), request.params.id, request.params.wid);
      return { success: true };
    },
  );

  app.post(
    '/v1/dev-user/clients/:id/webhooks/:wid/rotate-secret',
    {
      schema: {
        tags: ['webhooks'],
        summary:
          'A new signing secret, shown once; deliveries carry signatures by both secrets until previous_secret_valid_until (WEBHOOK_SECRET_GRACE_SECONDS)',
        security: bearerSecurity,
        params: EndpointParams,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            secret: Type.String(),
            previous_secret_valid_until: Type.String({ description: 'ISO 8601 UTC' }),
          }),
          ...errorResponses(401, 403, 404, 429),
        },
      },
      preHandler: login,
      config: limit,
    },
    async (request, reply) => {
      const { secret, previousValidUntil } = await webhooks.rotateSecret(
        await owner(request),
        request.params.id,
        request.params.wid,
        services.config.webhooks.secretGraceSeconds,
      );
      void reply.header('cache-control', 'no-store');
      return {
        success: true,
        secret,
        previous_secret_valid_until: new Date(previousValidUntil).toISOString(),
      };
    },
  );

  app.get(
    '/v1/dev-user/clients/:id/webhooks/:wid/deliveries',
    {
      schema: {
        tags: ['webhooks'],
        summary: "An endpoint's latest deliveries with their attempts (newest first)",
        security: bearerSecurity,
        params: EndpointParams,
        querystring: Type.Object({
          limit: Type.Optional(
            Type.String({ pattern: '^[1-9][0-9]{0,2}$', description: '1 to 200; 50 by default' }),
          ),
          state: Type.Optional(
            Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
          ),
        }),
        response: {
          200: Type.Object({ success: Type.Boolean(), deliveries: Type.Array(Delivery) }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
      preHandler: login,
    },
    async (request) => {
      const deliveries = await webhooks.deliveries(
        await owner(request),
        request.params.id,
        request.params.wid,
        {
          limit: Math.min(200, Number(request.query.limit ?? 50)),
          state: request.query.state,
        },
      );
      return { success: true, deliveries: deliveries.map(deliveryJson) };
    },
  );

  app.post(
    '/v1/dev-user/clients/:id/webhooks/:wid/deliveries/:did/retry',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Send a delivery again now, with the same webhook-id',
        security: bearerSecurity,
        params: DeliveryParams,
        response: {
          202: Type.Object({ success: Type.Boolean() }),
          ...errorResponses(401, 403, 404, 409, 429),
        },
      },
      preHandler: login,
      config: limit,
    },
    async (request, reply) => {
      await webhooks.retry(await owner(request), request.params.id, request.params.wid, request.params.did);
      return reply.status(202).send({ success: true });
    },
  );
}
