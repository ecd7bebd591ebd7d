import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { userActor } from '../../../services/orgs/roles.js';
import { MANAGEMENT_SCOPES } from '../../../services/serviceAccounts/scopes.js';
import type { ServiceAccountView } from '../../../services/serviceAccounts/serviceAccountService.js';
import { authOf, bearerSecurity, requireFreshLogin, requireToken } from '../../auth.js';
import { routeLimit } from '../../rateLimits.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';

const OrgParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 40 }) });
const AccountParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 40 }),
  client_id: Type.String({ minLength: 1, maxLength: 64 }),
});

const AccountView = Type.Object({
  client_id: Type.String(),
  name: Type.String(),
  scopes: Type.Array(Type.String()),
  created_by: Type.String(),
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
  last_used_at: Type.Union([Type.String({ description: 'ISO 8601 UTC' }), Type.Null()]),
});

const viewOf = (a: ServiceAccountView) => ({
  client_id: a.clientId,
  name: a.name,
  scopes: a.scopes,
  created_by: String(a.createdBy),
  created_at: new Date(a.createdAt).toISOString(),
  last_used_at: a.lastUsedAt === undefined ? null : new Date(a.lastUsedAt).toISOString(),
});

/**
 * An organization's service accounts (decisions §9 "Machines", docs/machines.md): machine clients whose
 * client_credentials tokens carry management scopes. Managed by the org's `admin`s and `owner` only (they
 * are secrets, as apps' are), never by a service account; making one, rotating and deleting need a fresh
 * login (STEP_UP_MAX_AGE), as an app's secret rotation does.
 */
export async function serviceAccountRoutes(app: App, services: Services): Promise<void> {
  const { serviceAccounts, orgs, config } = services;
  const fresh = requireFreshLogin(services.authenticator, config.stepUpMaxAgeSeconds);
  const admin = async (orgId: string, userId: string) => orgs.require(orgId, userActor(userId), 'admin');

  app.post(
    '/v1/orgs/:id/service-accounts',
    {
      schema: {
        tags: ['orgs'],
        summary:
          'A service account of the organization (admin): client_id and client_secret, shown once. Its client_credentials tokens carry the management scopes given',
        security: bearerSecurity,
        params: OrgParams,
        body: Type.Object({
          name: Type.String({ minLength: 1, maxLength: 200 }),
          scopes: Type.Array(Type.String({ maxLength: 50 }), {
            minItems: 1,
            maxItems: MANAGEMENT_SCOPES.length,
            description: MANAGEMENT_SCOPES.join(', '),
          }),
        }),
        response: {
          201: Type.Intersect([
            Type.Object({ success: Type.Boolean(), client_secret: Type.String() }),
            AccountView,
          ]),
          ...errorResponses(400, 401, 403, 404, 409, 429),
        },
      },
      preHandler: fresh,
      config: { rateLimit: routeLimit(config.rateLimits, 'clients_create') },
    },
    async (request, reply) => {
      const userId = authOf(request).userId;
      await admin(request.params.id, userId);
      const { account, clientSecret } = await serviceAccounts.create({
        orgId: request.params.id,
        createdBy: Number(userId),
        name: request.body.name,
        scopes: request.body.scopes,
      });
      void reply.header('cache-control', 'no-store');
      return reply.status(201).send({ success: true, client_secret: clientSecret, ...viewOf(account) });
    },
  );

  app.get(
    '/v1/orgs/:id/service-accounts',
    {
      schema: {
        tags: ['orgs'],
        summary: "The organization's service accounts (admin), never their secrets",
        security: bearerSecurity,
        params: OrgParams,
        response: {
          200: Type.Object({ success: Type.Boolean(), service_accounts: Type.Array(AccountView) }),
          ...errorResponses(401, 403, 404),
        },
      },
      preHandler: requireToken(services.authenticator, 'login'),
    },
    async (request) => {
      await admin(request.params.id, authOf(request).userId);
      const accounts = await serviceAccounts.list(request.params.id);
      return { success: true, service_accounts: accounts.map(viewOf) };
    },
  );

  app.post(
    '/v1/orgs/:id/service-accounts/:client_id/rotate-secret',
    {
      schema: {
        tags: ['orgs'],
        summary:
          'A new secret for a service account (admin), shown once; the old one works until old_secret_valid_until (CLIENT_SECRET_GRACE_SECONDS)',
        security: bearerSecurity,
        params: AccountParams,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            client_secret: Type.String(),
            old_secret_valid_until: Type.String({ description: 'ISO 8601 UTC' }),
          }),
          ...errorResponses(401, 403, 404, 429),
        },
      },
      preHandler: fresh,
      config: { rateLimit: routeLimit(config.rateLimits, 'clients_create') },
    },
    async (request, reply) => {
      await admin(request.params.id, authOf(request).userId);
      const { clientSecret, oldSecretValidUntil } = await serviceAccounts.rotateSecret(
        request.params.id,
        request.params.client_id,
        config.clientSecretGraceSeconds,
      );
      void reply.header('cache-control', 'no-store');
      return {
        success: true,
        client_secret: clientSecret,
        old_secret_valid_until: new Date(oldSecretValidUntil).toISOString(),
      };
    },
  );

  app.delete(
    '/v1/orgs/:id/service-accounts/:client_id',
    {
      schema: {
        tags: ['orgs'],
        summary:
          'Delete a service account (admin): its secrets stop at once and every token it holds is revoked',
        security: bearerSecurity,
        params: AccountParams,
        response: { 200: Type.Object({ success: Type.Boolean() }), ...errorResponses(401, 403, 404, 503) },
      },
      preHandler: fresh,
    },
    async (request) => {
      await admin(request.params.id, authOf(request).userId);
      await serviceAccounts.remove(request.params.id, request.params.client_id);
      return { success: true };
    },
  );
}
