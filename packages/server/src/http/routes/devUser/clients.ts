import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { type ClientView, MAX_REDIRECT_URIS } from '../../../services/oauth/clientService.js';
import { userActor } from '../../../services/orgs/roles.js';
import {
  authOf,
  bearerSecurity,
  requireFreshLogin,
  requireFreshLoginOrClient,
  requireToken,
} from '../../auth.js';
import { managementActor } from '../../managementActor.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { routeLimit } from '../../rateLimits.js';

export const ClientSummary = Type.Object({
  client_id: Type.String(),
  name: Type.String(),
  redirect_uris: Type.Array(Type.String()),
  dapp: Type.Boolean(),
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
  post_logout_redirect_uris: Type.Array(Type.String()),
  require_mfa: Type.Boolean({
    description: 'Every sign-in to the app on the login page needs two factors (docs/oidc.md)',
  }),
  org_id: Type.Optional(Type.String({ description: 'The organization the app belongs to (docs/orgs.md)' })),
});

/** An app as the management routes show it (never its secret). */
export const clientSummary = (c: ClientView) => ({
  client_id: c.clientId,
  name: c.name,
  redirect_uris: c.redirectUris,
  dapp: c.dapp,
  created_at: new Date(c.createdAt).toISOString(),
  post_logout_redirect_uris: c.postLogoutRedirectUris,
  require_mfa: c.requireMfa,
  ...(c.orgId !== undefined ? { org_id: c.orgId } : {}),
});

/** Apps (OAuth clients) of a developer (decisions §3), authenticated by the developer's login JWT. */
export async function clientRoutes(app: App, services: Services): Promise<void> {
  const { clients, orgs } = services;
  const actor = (request: Parameters<typeof authOf>[0]) => userActor(authOf(request).userId);

  app.post(
    '/v1/dev-user/clients',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Register an app (OAuth client); the secret is shown once',
        security: bearerSecurity,
        body: Type.Object({
          name: Type.String({ minLength: 1, maxLength: 200 }),
          redirect_uris: Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), {
            minItems: 1,
            maxItems: MAX_REDIRECT_URIS,
          }),
          dapp: Type.Optional(Type.Boolean()),
          post_logout_redirect_uris: Type.Optional(
            Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), {
              maxItems: MAX_REDIRECT_URIS,
              description: 'OpenID Connect RP-initiated logout targets (exact match), docs/oidc.md',
            }),
          ),
          org_id: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 40,
              description:
                'The organization to create the app in (your role there developer or higher); default: your personal organization (docs/orgs.md)',
            }),
          ),
        }),
        response: {
          201: Type.Object({
            success: Type.Boolean(),
            client_id: Type.String(),
            client_secret: Type.String(),
            org_id: Type.String(),
          }),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
      preHandler: requireToken(services.authenticator, 'login'),
      config: {
        rateLimit: routeLimit(services.config.rateLimits, 'clients_create'),
      },
    },
    async (request, reply) => {
      const orgId = await orgs.orgForNewApp(actor(request), request.body.org_id);
      const { client, clientSecret } = await clients.create({
        ownerUuid: Number(authOf(request).userId),
        orgId,
        name: request.body.name,
        redirectUris: request.body.redirect_uris,
        dapp: request.body.dapp,
        postLogoutRedirectUris: request.body.post_logout_redirect_uris,
      });
      await orgs.record(orgId, actor(request), 'app.create', { name: client.name }, client.clientId);
      void reply.header('cache-control', 'no-store');
      return reply
        .status(201)
        .send({ success: true, client_id: client.clientId, client_secret: clientSecret, org_id: orgId });
    },
  );

  app.get(
    '/v1/dev-user/clients',
    {
      schema: {
        tags: ['accounts'],
        summary: 'The apps of every organization you belong to (never their secrets)',
        security: bearerSecurity,
        response: {
          200: Type.Object({ success: Type.Boolean(), clients: Type.Array(ClientSummary) }),
          ...errorResponses(401),
        },
      },
      preHandler: requireToken(services.authenticator, 'login'),
    },
    async (request) => {
      const visible = await orgs.appsOf(actor(request));
      return { success: true, clients: visible.map(clientSummary) };
    },
  );

  const ClientIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
  const RedirectUris = Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), {
    minItems: 1,
    maxItems: MAX_REDIRECT_URIS,
  });

  app.patch(
    '/v1/dev-user/clients/:id',
    {
      schema: {
        tags: ['accounts'],
        summary:
          'Edit your app: name, redirect URIs (the registration rules apply; the old URIs stop working at once) and/or require_mfa (two factors on every sign-in to it on the login page). Needs a fresh login (STEP_UP_MAX_AGE)',
        security: bearerSecurity,
        params: ClientIdParams,
        body: Type.Object(
          {
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            redirect_uris: Type.Optional(RedirectUris),
            require_mfa: Type.Optional(Type.Boolean()),
          },
          { minProperties: 1 },
        ),
        response: {
          200: Type.Object({ success: Type.Boolean(), client: ClientSummary }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
      // Repointing an app's redirect URIs is account-critical (decisions §7 step-up, security issue 18); the
      // org's service account with `apps:write` may too (docs/machines.md: its secret is its credential).
      preHandler: requireFreshLoginOrClient(services.authenticator, services.config.stepUpMaxAgeSeconds),
    },
    async (request) => {
      const c = await clients.update(await managementActor(request, services), request.params.id, {
        name: request.body.name,
        redirectUris: request.body.redirect_uris,
        requireMfa: request.body.require_mfa,
      });
      return { success: true, client: clientSummary(c) };
    },
  );

  app.delete(
    '/v1/dev-user/clients/:id',
    {
      schema: {
        tags: ['accounts'],
        summary:
          'Delete your app: every token and grant of it is revoked on every replica. Needs a fresh login (STEP_UP_MAX_AGE)',
        security: bearerSecurity,
        params: ClientIdParams,
        response: {
          200: Type.Object({ success: Type.Boolean(), revoked_grants: Type.Integer() }),
          ...errorResponses(401, 403, 404, 503),
        },
      },
      // Deleting an app is account-critical (decisions §7 step-up, security issue 18).
      preHandler: requireFreshLogin(services.authenticator, services.config.stepUpMaxAgeSeconds),
    },
    async (request) => {
      const clientId = request.params.id;
      // Deleted first: from then on the app cannot authenticate, so it cannot open a grant the sweep misses.
      await clients.remove(actor(request), clientId);
      const revoked = await services.oauth.revokeClientGrants(clientId, 'client_deleted');
      return { success: true, revoked_grants: revoked };
    },
  );

  app.post(
    '/v1/dev-user/clients/:id/rotate-secret',
    {
      schema: {
        tags: ['accounts'],
        summary:
          'A new client secret, shown once; the old one works until old_secret_valid_until (CLIENT_SECRET_GRACE_SECONDS). Needs a fresh login (STEP_UP_MAX_AGE)',
        security: bearerSecurity,
        params: ClientIdParams,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            client_secret: Type.String(),
            old_secret_valid_until: Type.String({ description: 'ISO 8601 UTC' }),
          }),
          ...errorResponses(401, 403, 404, 429),
        },
      },
      preHandler: requireFreshLogin(services.authenticator, services.config.stepUpMaxAgeSeconds),
      config: { rateLimit: routeLimit(services.config.rateLimits, 'clients_create') },
    },
    async (request, reply) => {
      const { clientSecret, oldSecretValidUntil } = await clients.rotateSecret(
        actor(request),
        request.params.id,
        services.config.clientSecretGraceSeconds,
      );
      void reply.header('cache-control', 'no-store');
      return {
        success: true,
        client_secret: clientSecret,
        old_secret_valid_until: new Date(oldSecretValidUntil).toISOString(),
      };
    },
  );
}
