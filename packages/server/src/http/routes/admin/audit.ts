import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { badRequest } from '../../../errors.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';

const AuditEntryBody = Type.Object({
  id: Type.String(),
  at: Type.String({ description: 'ISO 8601 UTC' }),
  action: Type.String({ description: 'e.g. pin.verify, token.transfer, market.purchase, admin.faucet' }),
  outcome: Type.Union([Type.Literal('success'), Type.Literal('denied'), Type.Literal('failure')]),
  status: Type.Integer(),
  error_code: Type.Optional(Type.String()),
  actor_kind: Type.String({ description: 'user (login JWT), app (access token), admin or anonymous' }),
  actor_user: Type.Optional(Type.String()),
  client_id: Type.Optional(Type.String()),
  address: Type.String({ description: 'The client address as the service saw it' }),
  request_id: Type.String(),
  details: Type.Record(Type.String(), Type.Unknown()),
});

const ISO_OR_MS = Type.String({
  maxLength: 40,
  description: 'ISO 8601 time or milliseconds since the epoch',
});

function timeOf(value: string | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = /^\d{1,16}$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(ms)) throw badRequest('invalid_request', `${field} is not a time`, { field });
  return ms;
}

/** `GET /v1/admin/audit`: the audit trail, newest first, filtered and paged by cursor. */
export async function adminAuditRoutes(app: App, services: Services): Promise<void> {
  app.get(
    '/v1/admin/audit',
    {
      schema: {
        tags: ['admin'],
        summary: 'The audit trail of security-relevant actions, newest first (never a secret)',
        security: [{ admin: [] }],
        querystring: Type.Object({
          action: Type.Optional(Type.String({ maxLength: 64 })),
          user_id: Type.Optional(Type.String({ pattern: '^[0-9]{1,16}$' })),
          client_id: Type.Optional(Type.String({ maxLength: 128 })),
          outcome: Type.Optional(
            Type.Union([Type.Literal('success'), Type.Literal('denied'), Type.Literal('failure')]),
          ),
          from: Type.Optional(ISO_OR_MS),
          to: Type.Optional(ISO_OR_MS),
          limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: '1–500, default 100' })),
          cursor: Type.Optional(
            Type.String({
              pattern: '^[A-Za-z0-9_-]{1,64}$',
              description: 'next_cursor of the previous page',
            }),
          ),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            entries: Type.Array(AuditEntryBody),
            next_cursor: Type.Optional(Type.String()),
          }),
          ...errorResponses(400, 401),
        },
      },
    },
    async (request) => {
      const q = request.query;
      const limit = q.limit === undefined ? 100 : Number(q.limit);
      if (limit < 1 || limit > 500)
        throw badRequest('invalid_request', 'limit must be 1 to 500', { field: 'limit' });
      const from = timeOf(q.from, 'from');
      const to = timeOf(q.to, 'to');
      const page = await services.audit.list({
        limit,
        ...(q.action ? { action: q.action } : {}),
        ...(q.user_id ? { actorUser: q.user_id } : {}),
        ...(q.client_id ? { clientId: q.client_id } : {}),
        ...(q.outcome ? { outcome: q.outcome } : {}),
        ...(from !== undefined ? { from } : {}),
        ...(to !== undefined ? { to } : {}),
        ...(q.cursor ? { cursor: q.cursor } : {}),
      });
      return {
        success: true,
        entries: page.entries.map((e) => ({
          id: e.id,
          at: new Date(e.at).toISOString(),
          action: e.action,
          outcome: e.outcome,
          status: e.status,
          ...(e.errorCode ? { error_code: e.errorCode } : {}),
          actor_kind: e.actorKind,
          ...(e.actorUser ? { actor_user: e.actorUser } : {}),
          ...(e.clientId ? { client_id: e.clientId } : {}),
          address: e.address,
          request_id: e.requestId,
          details: e.details,
        })),
        ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}),
      };
    },
  );
}
