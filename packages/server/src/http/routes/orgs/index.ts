import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { invalidField } from '../../../errors.js';
import type { OrgInvitation } from '../../../services/orgs/orgService.js';
import { userActor } from '../../../services/orgs/roles.js';
import { authOf, bearerSecurity, requireFreshLogin, requireLoginOrClient, requireToken } from '../../auth.js';
import { routeLimit } from '../../rateLimits.js';
import { managementActor } from '../../managementActor.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { clientSummary, ClientSummary } from '../devUser/clients.js';

const Role = Type.Union(
  [Type.Literal('owner'), Type.Literal('admin'), Type.Literal('developer'), Type.Literal('viewer')],
  { description: 'owner | admin | developer | viewer (docs/orgs.md)' },
);
const OrgId = Type.String({ minLength: 1, maxLength: 40 });
const OrgParams = Type.Object({ id: OrgId });
const Success = Type.Object({ success: Type.Boolean() });
const UserId = Type.String({ pattern: '^[1-9][0-9]{0,15}$', description: 'A user_uuid, decimal' });
const Iso = Type.String({ description: 'ISO 8601 UTC' });

const OrgJson = Type.Object({
  id: Type.String(),
  name: Type.String(),
  personal: Type.Boolean(),
  role: Role,
  created_at: Iso,
});

const InvitationJson = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: Role,
  status: Type.Union([
    Type.Literal('pending'),
    Type.Literal('accepted'),
    Type.Literal('revoked'),
    Type.Literal('expired'),
  ]),
  invited_by: Type.String(),
  created_at: Iso,
  expires_at: Iso,
  accepted_by: Type.Optional(Type.String()),
});

const iso = (ms: number) => new Date(ms).toISOString();

const invitationJson = (i: OrgInvitation, now: number) => ({
  id: i.id,
  email: i.email,
  role: i.role,
  status:
    i.acceptedAt !== undefined
      ? ('accepted' as const)
      : i.revokedAt !== undefined
        ? ('revoked' as const)
        : i.expiresAt <= now
          ? ('expired' as const)
          : ('pending' as const),
  invited_by: String(i.invitedBy),
  created_at: iso(i.createdAt),
  expires_at: iso(i.expiresAt),
  ...(i.acceptedBy !== undefined ? { accepted_by: String(i.acceptedBy) } : {}),
});

/**
 * Organizations (decisions §9 "Studios", docs/orgs.md): a member's login JWT, by role. Not a member → 404
 * `org_not_found`; a role too low → 403 `forbidden_role`. Transferring and deleting an org need a fresh
 * login (STEP_UP_MAX_AGE), like an app's deletion.
 */
export async function orgRoutes(app: App, services: Services): Promise<void> {
  const { orgs } = services;
  const login = requireToken(services.authenticator, 'login');
  const fresh = requireFreshLogin(services.authenticator, services.config.stepUpMaxAgeSeconds);
  const manage = { rateLimit: routeLimit(services.config.rateLimits, 'orgs_manage') };
  const actor = (request: Parameters<typeof authOf>[0]) => userActor(authOf(request).userId);
  // The org's apps may also be read by its service accounts (`apps:read`, docs/machines.md).
  const memberOrMachine = requireLoginOrClient(services.authenticator);
  const tags = ['organizations'];

  app.post(
    '/v1/orgs',
    {
      schema: {
        tags,
        summary: 'Create an organization; you are its owner',
        security: bearerSecurity,
        body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: {
          201: Type.Object({ success: Type.Boolean(), id: Type.String(), name: Type.String() }),
          ...errorResponses(400, 401, 429),
        },
      },
      preHandler: login,
      config: manage,
    },
    async (request, reply) => {
      const org = await orgs.create(actor(request), request.body.name);
      return reply.status(201).send({ success: true, id: org.id, name: org.name });
    },
  );

  app.get(
    '/v1/orgs',
    {
      schema: {
        tags,
        summary: 'The organizations you belong to, with your role in each',
        security: bearerSecurity,
        response: {
          200: Type.Object({ success: Type.Boolean(), orgs: Type.Array(OrgJson) }),
          ...errorResponses(401),
        },
      },
      preHandler: login,
    },
    async (request) => ({
      success: true,
      orgs: (await orgs.list(actor(request))).map((o) => ({
        id: o.id,
        name: o.name,
        personal: o.personal,
        role: o.role,
        created_at: iso(o.createdAt),
      })),
    }),
  );

  app.get(
    '/v1/orgs/:id',
    {
      schema: {
        tags,
        summary: 'One organization and your role there',
        security: bearerSecurity,
        params: OrgParams,
        response: {
          200: Type.Object({ success: Type.Boolean(), org: OrgJson }),
          ...errorResponses(401, 404),
        },
      },
      preHandler: login,
    },
    async (request) => {
      const o = await orgs.get(actor(request), request.params.id);
      return {
        success: true,
        org: { id: o.id, name: o.name, personal: o.personal, role: o.role, created_at: iso(o.createdAt) },
      };
    },
  );

  app.patch(
    '/v1/orgs/:id',
    {
      schema: {
        tags,
        summary: 'Rename the organization (admin or owner)',
        security: bearerSecurity,
        params: OrgParams,
        body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: {
          200: Type.Object({ success: Type.Boolean(), id: Type.String(), name: Type.String() }),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
      preHandler: login,
      config: manage,
    },
    async (request) => {
      const org = await orgs.rename(actor(request), request.params.id, request.body.name);
      return { success: true, id: org.id, name: org.name };
    },
  );

  app.delete(
    '/v1/orgs/:id',
    {
      schema: {
        tags,
        summary:
          'Delete the organization (owner; only without apps: 409 org_has_apps). Needs a fresh login (STEP_UP_MAX_AGE)',
        security: bearerSecurity,
        params: OrgParams,
        response: { 200: Success, ...errorResponses(401, 403, 404, 409, 429) },
      },
      preHandler: fresh,
      config: manage,
    },
    async (request) => {
      await orgs.delete(actor(request), request.params.id);
      return { success: true };
    },
  );

  app.post(
    '/v1/orgs/:id/transfer',
    {
      schema: {
        tags,
        summary:
          'Hand the organization to another member (owner): they become owner, you admin. Needs a fresh login (STEP_UP_MAX_AGE)',
        security: bearerSecurity,
        params: OrgParams,
        body: Type.Object({ user_id: UserId }),
        response: { 200: Success, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
      preHandler: fresh,
      config: manage,
    },
    async (request) => {
      await orgs.transfer(actor(request), request.params.id, Number(request.body.user_id));
      return { success: true };
    },
  );

  // ---- apps ----

  app.get(
    '/v1/orgs/:id/apps',
    {
      schema: {
        tags,
        summary: "The organization's apps (any member)",
        security: bearerSecurity,
        params: OrgParams,
        response: {
          200: Type.Object({ success: Type.Boolean(), apps: Type.Array(ClientSummary) }),
          ...errorResponses(401, 403, 404),
        },
      },
      preHandler: memberOrMachine,
    },
    async (request) => ({
      success: true,
      apps: (await orgs.apps(await managementActor(request, services), request.params.id)).map(clientSummary),
    }),
  );

  app.get(
    '/v1/orgs/:id/apps/:client_id',
    {
      schema: {
        tags,
        summary: "One of the organization's apps (any member)",
        security: bearerSecurity,
        params: Type.Object({ id: OrgId, client_id: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: {
          200: Type.Object({ success: Type.Boolean(), app: ClientSummary }),
          ...errorResponses(401, 403, 404),
        },
      },
      preHandler: memberOrMachine,
    },
    async (request) => ({
      success: true,
      app: clientSummary(
        await orgs.app(await managementActor(request, services), request.params.id, request.params.client_id),
      ),
    }),
  );

  // ---- members ----

  app.get(
    '/v1/orgs/:id/members',
    {
      schema: {
        tags,
        summary: 'The members and their roles (any member)',
        security: bearerSecurity,
        params: OrgParams,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            members: Type.Array(
              Type.Object({
                user_id: Type.String(),
                role: Role,
                email: Type.Optional(Type.String()),
                nickname: Type.Optional(Type.String()),
                joined_at: Iso,
              }),
            ),
          }),
          ...errorResponses(401, 404),
        },
      },
      preHandler: login,
    },
    async (request) => ({
      success: true,
      members: (await orgs.members(actor(request), request.params.id)).map((m) => ({
        user_id: String(m.userUuid),
        role: m.role,
        ...(m.email ? { email: m.email } : {}),
        ...(m.nickname ? { nickname: m.nickname } : {}),
        joined_at: iso(m.createdAt),
      })),
    }),
  );

  const MemberParams = Type.Object({ id: OrgId, user_id: UserId });

  app.patch(
    '/v1/orgs/:id/members/:user_id',
    {
      schema: {
        tags,
        summary:
          "Change a member's role (admin or owner); the owner's role changes only by a transfer (409 owner_must_transfer)",
        security: bearerSecurity,
        params: MemberParams,
        body: Type.Object({ role: Role }),
        response: { 200: Success, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
      preHandler: login,
      config: manage,
    },
    async (request) => {
      await orgs.setRole(
        actor(request),
        request.params.id,
        Number(request.params.user_id),
        request.body.role,
      );
      return { success: true };
    },
  );

  app.delete(
    '/v1/orgs/:id/members/:user_id',
    {
      schema: {
        tags,
        summary: 'Remove a member (admin or owner), or leave (your own user_id, any role but owner)',
        security: bearerSecurity,
        params: MemberParams,
        response: { 200: Success, ...errorResponses(401, 403, 404, 409, 429) },
      },
      preHandler: login,
      config: manage,
    },
    async (request) => {
      await orgs.removeMember(actor(request), request.params.id, Number(request.params.user_id));
      return { success: true };
    },
  );

  // ---- invitations ----

  app.post(
    '/v1/orgs/:id/invitations',
    {
      schema: {
        tags,
        summary:
          'Invite someone by e-mail with a role (admin or owner; any role but owner): mails a link to {PUBLIC_URL}/console/invitations?token=… (7 days, single use)',
        security: bearerSecurity,
        params: OrgParams,
        body: Type.Object({ email: Type.String({ minLength: 3, maxLength: 320 }), role: Role }),
        response: {
          201: Type.Object({ success: Type.Boolean(), invitation: InvitationJson }),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
      preHandler: login,
      config: { rateLimit: routeLimit(services.config.rateLimits, 'org_invite') },
    },
    async (request, reply) => {
      const invitation = await orgs.invite(
        actor(request),
        request.params.id,
        request.body.email,
        request.body.role,
      );
      return reply.status(201).send({ success: true, invitation: invitationJson(invitation, Date.now()) });
    },
  );

  app.get(
    '/v1/orgs/:id/invitations',
    {
      schema: {
        tags,
        summary: "The organization's invitations, newest first (admin or owner)",
        security: bearerSecurity,
        params: OrgParams,
        response: {
          200: Type.Object({ success: Type.Boolean(), invitations: Type.Array(InvitationJson) }),
          ...errorResponses(401, 403, 404),
        },
      },
      preHandler: login,
    },
    async (request) => {
      const now = Date.now();
      return {
        success: true,
        invitations: (await orgs.invitations(actor(request), request.params.id)).map((i) =>
          invitationJson(i, now),
        ),
      };
    },
  );

  app.delete(
    '/v1/orgs/:id/invitations/:invitation_id',
    {
      schema: {
        tags,
        summary: 'Revoke a pending invitation (admin or owner)',
        security: bearerSecurity,
        params: Type.Object({ id: OrgId, invitation_id: Type.String({ minLength: 1, maxLength: 40 }) }),
        response: { 200: Success, ...errorResponses(401, 403, 404, 429) },
      },
      preHandler: login,
      config: manage,
    },
    async (request) => {
      await orgs.revokeInvitation(actor(request), request.params.id, request.params.invitation_id);
      return { success: true };
    },
  );

  app.post(
    '/v1/orgs/invitations/accept',
    {
      schema: {
        tags,
        summary:
          'Accept an invitation with the token from its mail, signed in with the invited e-mail address (single use; 410 invitation_expired / invitation_revoked, 409 invitation_used)',
        security: bearerSecurity,
        body: Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            org_id: Type.String(),
            name: Type.String(),
            role: Role,
          }),
          ...errorResponses(400, 401, 403, 404, 409, 410, 429),
        },
      },
      preHandler: login,
      config: manage,
    },
    async (request) => {
      const { org, role } = await orgs.accept(actor(request), request.body.token);
      return { success: true, org_id: org.id, name: org.name, role };
    },
  );

  // ---- audit ----

  app.get(
    '/v1/orgs/:id/audit',
    {
      schema: {
        tags,
        summary:
          "The organization's audit log, newest first (admin or owner): every change to the org, its members, invitations and apps",
        security: bearerSecurity,
        params: OrgParams,
        querystring: Type.Object({
          limit: Type.Optional(
            Type.String({ pattern: '^[1-9][0-9]{0,2}$', description: '1 to 200, default 50' }),
          ),
          cursor: Type.Optional(
            Type.String({ maxLength: 100, description: 'next_cursor of the previous page' }),
          ),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            entries: Type.Array(
              Type.Object({
                id: Type.String(),
                at: Iso,
                actor_user: Type.Optional(Type.String()),
                action: Type.String(),
                client_id: Type.Optional(Type.String()),
                details: Type.Record(Type.String(), Type.Unknown()),
              }),
            ),
            next_cursor: Type.Optional(Type.String()),
          }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
      preHandler: login,
    },
    async (request) => {
      const limit = Math.min(Number(request.query.limit ?? 50), 200);
      const before = decodeCursor(request.query.cursor);
      const entries = await orgs.audit(actor(request), request.params.id, { limit, before });
      const last = entries.at(-1);
      return {
        success: true,
        entries: entries.map((e) => ({
          id: e.id,
          at: iso(e.at),
          ...(e.actorUser !== undefined ? { actor_user: e.actorUser } : {}),
          action: e.action,
          ...(e.clientId !== undefined ? { client_id: e.clientId } : {}),
          details: e.details,
        })),
        ...(last && entries.length === limit ? { next_cursor: `${last.at}.${last.id}` } : {}),
      };
    },
  );
}

function decodeCursor(cursor: string | undefined): { at: number; id: string } | undefined {
  if (cursor === undefined) return undefined;
  const match = /^(\d{1,16})\.([0-9a-z]{1,60})$/.exec(cursor);
  if (!match) throw invalidField('cursor', 'cursor must be the next_cursor of a previous page');
  return { at: Number(match[1]), id: match[2]! };
}
