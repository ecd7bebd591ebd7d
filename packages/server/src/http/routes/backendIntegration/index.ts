import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { AppError, isAppError, tooManyRequests } from '../../../errors.js';
import { EnvelopeCode } from '../../../services/backendIntegration/envelopeCodes.js';
import { backendConsentRequired, bearerMayAuthorize } from '../../../services/oauth/loginBinding.js';
import { authOf, bearerSecurity, requireToken } from '../../auth.js';
import { sendLosslessJson } from '../../json/sendJson.js';
import { slotInfoJson, slotSummaryJson } from '../../json/slotJson.js';
import type { App } from '../../types.js';
import { bound } from '../../../observability/spans.js';
import { clientAddress, routeLimit } from '../../rateLimits.js';

/** The backend-integration envelope; `message` is an object on the authorize success path. */
const Envelope = Type.Object(
  {
    code: Type.Integer({
      description: '1 success; 410 client mismatch; 510 code expired; 570 unregistered; else the HTTP status',
    }),
    message: Type.Union([Type.String(), Type.Object({}, { additionalProperties: true })]),
    data: Type.Array(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: false },
);
const envelopeResponses = {
  200: Envelope,
  400: Envelope,
  401: Envelope,
  409: Envelope,
  429: Envelope,
  503: Envelope,
};

const RESULT_TEXT = {
  created: { status_code: 201, status_msg: 'slot created' },
  existing: { status_code: 200, status_msg: 'slot found' },
  recovered: { status_code: 201, status_msg: 'slot creation completed' },
} as const;

const sendEnvelope = (reply: FastifyReply, status: number, envelope: Record<string, unknown>) =>
  sendLosslessJson(reply.header('cache-control', 'no-store'), status, envelope);

const invalidParameter = (field: string, message: string) =>
  new AppError(400, 'invalid_request', message, { field });

/**
 * Backend integration (spec endpoint 13, decisions §5): authorize with the user's login JWT, the
 * callback, get_token and user/logout. Every answer, success or failure, is the envelope
 * `{code, message, data}`; slot ids inside are written losslessly (`http/json`).
 */
export async function backendIntegrationRoutes(app: App, services: Services): Promise<void> {
  const { backend } = services;
  const loginToken = requireToken(services.authenticator, 'login');
  const accessToken = requireToken(services.authenticator, 'access');

  /** The login JWT check, with an expired token answered as `EXPIRED_TOKEN` (decisions §5). */
  const requireLoginJwt = async (request: FastifyRequest) => {
    try {
      await loginToken(request);
    } catch (err) {
      if (isAppError(err) && err.code === 'expired_token') {
        throw new AppError(401, 'expired_token', 'EXPIRED_TOKEN');
      }
      throw err;
    }
  };

  app.get(
    '/v1/oauth-meta/authorize',
    {
      schema: {
        tags: ['backend integration'],
        summary: 'Backend authorize: a user login JWT in, slot ensured, code delivered by callback',
        description:
          'The response-type parameter is spelled `respose_type` (sic) and must be `code`; the correctly ' +
          'spelled `response_type` alone is refused with 400. After the 2xx answer the service sends ' +
          '`POST <redirect_uri>` with JSON `{success: 1, code, state}`.',
        security: bearerSecurity,
        querystring: Type.Object({
          client_id: Type.Optional(Type.String({ maxLength: 200 })),
          redirect_uri: Type.Optional(Type.String({ maxLength: 2048 })),
          respose_type: Type.Optional(Type.String({ maxLength: 50 })),
          response_type: Type.Optional(Type.String({ maxLength: 50 })),
          state: Type.Optional(Type.String({ maxLength: 1024 })),
        }),
        response: envelopeResponses,
      },
      preHandler: requireLoginJwt,
      config: {
        errorStyle: 'envelope',
        // Runs after the JWT check (the plugin appends its hook): per user and app.
        rateLimit: routeLimit(services.config.rateLimits, 'meta_authorize', {
          hook: 'preHandler',
          keyGenerator: (request: FastifyRequest) =>
            `meta_authorize:${request.auth?.userId ?? clientAddress(request)}:${(request.query as { client_id?: string }).client_id ?? ''}`,
        }),
      },
    },
    async (request, reply) => {
      const query = request.query;
      if (query.respose_type === undefined) {
        if (query.response_type !== undefined) {
          throw invalidParameter(
            'respose_type',
            'response_type is not accepted here; send respose_type=code (spelled so by the interface)',
          );
        }
        throw invalidParameter('respose_type', 'respose_type is required');
      }
      if (query.respose_type !== 'code') {
        throw new AppError(400, 'unsupported_response_type', 'respose_type must be code', {
          field: 'respose_type',
        });
      }
      if (!query.client_id) throw invalidParameter('client_id', 'client_id is required');
      if (!query.redirect_uri) throw invalidParameter('redirect_uri', 'redirect_uri is required');
      if (!query.state) throw invalidParameter('state', 'state is required');
      // Login binding (docs/security.md): another app's JWT → 401 `client_mismatch`; under
      // LOGIN_BINDING=strict an unbound one needs the user's consent to this app.
      const claims = authOf(request);
      const clientId = query.client_id;
      const allowed = await bearerMayAuthorize({
        claims,
        clientId,
        scope: undefined,
        mode: services.config.loginBinding,
        consented: () => services.browserSessions.hasConsent(Number(claims.userId), clientId),
      });
      if (!allowed) throw backendConsentRequired();

      const outcome = await backend.authorize
        .authorize({
          userUuid: Number(claims.userId),
          clientId: query.client_id,
          redirectUri: query.redirect_uri,
          state: query.state,
        })
        .catch((err: unknown) => {
          // The envelope has no `error` field: its message is the identifier (docs/backend-integration.md).
          if (isAppError(err) && err.code === 'wallet_required')
            throw new AppError(409, err.code, 'wallet_required');
          throw err;
        });
      // The callback goes out once the answer has been written; a caller gone before that gets no
      // callback and its code is dropped.
      // Bound to the request's context: the callback's span belongs to this request's trace.
      reply.raw.once(
        'close',
        bound(() => {
          const delivery = {
            redirectUri: outcome.redirectUri,
            code: outcome.code,
            codeHash: outcome.codeHash,
            state: outcome.state,
          };
          if (reply.raw.writableFinished) void backend.callbacks.deliver(delivery);
          else void backend.callbacks.discard(delivery);
        }),
      );
      const slot = slotSummaryJson(outcome.slot);
      return sendEnvelope(reply, 200, {
        code: EnvelopeCode.success,
        message: {
          res: outcome.result,
          ...RESULT_TEXT[outcome.result],
          slot_id: slot.id,
          meta_idx: outcome.slot.metaIdx,
          tr_cnt: outcome.slot.trCnt,
        },
        data: [{ ...slot, state: outcome.state }],
      });
    },
  );

  // Failed client authentications per address; successful exchanges are not limited here (each one
  // spends a fresh single-use code).
  const failures = app.createRateLimit(routeLimit(services.config.rateLimits, 'meta_get_token_failures'));

  app.post(
    '/v1/oauth-meta/get_token',
    {
      schema: {
        tags: ['backend integration'],
        summary: 'Exchange a callback code (or a refresh token) for SlotInfo',
        description:
          '`data[0]` is SlotInfo. The envelope `code` is a JSON number: 1 success, 410 the code belongs ' +
          'to another client or the secret is wrong, 510 the code expired or was used, 570 unknown client ' +
          'or code. Slot ids are raw 19-digit JSON numbers (decimal strings for imported slots): parse ' +
          'losslessly.',
        body: Type.Object({
          client_id: Type.String({ minLength: 1, maxLength: 200 }),
          client_secret: Type.String({ minLength: 1, maxLength: 512 }),
          grant_type: Type.String({ maxLength: 50 }),
          code: Type.Optional(Type.String({ maxLength: 512 })),
          refresh_token: Type.Optional(Type.String({ maxLength: 2048 })),
        }),
        response: envelopeResponses,
      },
      config: { errorStyle: 'envelope' },
    },
    async (request, reply) => {
      const limit = await failures(request, { increment: false });
      if (!limit.isAllowed && limit.isExceeded)
        throw tooManyRequests('Too many failed get_token attempts, slow down');
      const body = request.body;
      const credentials = { clientId: body.client_id, clientSecret: body.client_secret };
      try {
        let grant;
        if (body.grant_type === 'authorization_code') {
          if (!body.code) throw invalidParameter('code', 'code is required');
          grant = await backend.getToken.exchangeCode(credentials, body.code);
        } else if (body.grant_type === 'refresh_token') {
          if (!body.refresh_token) throw invalidParameter('refresh_token', 'refresh_token is required');
          grant = await backend.getToken.refresh(credentials, body.refresh_token);
        } else {
          throw new AppError(
            400,
            'unsupported_grant_type',
            'grant_type must be authorization_code or refresh_token',
            {
              field: 'grant_type',
            },
          );
        }
        return sendEnvelope(reply, 200, {
          code: EnvelopeCode.success,
          message: 'success',
          data: [slotInfoJson(grant)],
        });
      } catch (err) {
        if (isAppError(err) && err.status < 500) await failures(request);
        throw err;
      }
    },
  );

  app.post(
    '/v1/oauth-meta/user/logout',
    {
      schema: {
        tags: ['backend integration'],
        summary: "Revoke the access token's pair and set the user's status for the app to logged_out",
        security: bearerSecurity,
        response: envelopeResponses,
      },
      preHandler: accessToken,
      config: { errorStyle: 'envelope' },
    },
    async (request, reply) => {
      const { userId, clientId } = await backend.logout.logout(authOf(request));
      return sendEnvelope(reply, 200, {
        code: EnvelopeCode.success,
        message: 'logged_out',
        data: [{ user_id: userId, client_id: clientId, status: 'logged_out' }],
      });
    },
  );
}
