import type { OrgRole } from '../../stores/orgStore.js';
import type { ManagementScope } from '../serviceAccounts/scopes.js';
import type { ServiceActor } from '../serviceAccounts/serviceAccountService.js';

export type { OrgRole } from '../../stores/orgStore.js';

export const ORG_ROLES: readonly OrgRole[] = ['owner', 'admin', 'developer', 'viewer'];

/** Higher is more: each role may do everything the ones below it may. */
const RANK: Record<OrgRole, number> = { viewer: 1, developer: 2, admin: 3, owner: 4 };

export const isOrgRole = (value: unknown): value is OrgRole =>
  typeof value === 'string' && (ORG_ROLES as readonly string[]).includes(value);

export const atLeast = (role: OrgRole, minimum: OrgRole): boolean => RANK[role] >= RANK[minimum];

/**
 * Who is calling a management route: a person (a login JWT), judged by their role, or one of the
 * organization's service accounts (its client_credentials token, docs/machines.md), judged by its scopes.
 */
export type UserActor = { kind: 'user'; userId: number };
export type Actor = UserActor | ServiceActor;

export const userActor = (userId: number | string): UserActor => ({ kind: 'user', userId: Number(userId) });

/** What the audit log records as the actor: a user id, or `service:<client_id>`. */
export const actorLabel = (actor: Actor): string =>
  actor.kind === 'user' ? String(actor.userId) : `service:${actor.clientId}`;

/**
 * What a management route does to an app (decisions §9 roles): `read` anything (viewer), `configure`
 * settings, redirect URIs, webhooks, wallet and sponsorship policies, providers (developer), `secrets`
 * rotation and `delete` (admin).
 */
export type AppAction = 'read' | 'configure' | 'secrets' | 'delete';

export const APP_ACTION_ROLE: Record<AppAction, OrgRole> = {
  read: 'viewer',
  configure: 'developer',
  secrets: 'admin',
  delete: 'admin',
};

/**
 * The scope a service account needs for each action, as a member needs `APP_ACTION_ROLE`: reads take
 * `apps:read`, configuration `apps:write` (webhook routes ask `webhooks:write` instead); secrets and
 * deletion are for people only.
 */
export const APP_ACTION_SCOPE: Record<AppAction, ManagementScope | undefined> = {
  read: 'apps:read',
  configure: 'apps:write',
  secrets: undefined,
  delete: undefined,
};

/** 403 `forbidden_role`: a member whose role is below what the route needs. */
export { forbiddenRole } from '../../errors.js';
