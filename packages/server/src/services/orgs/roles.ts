import type { OrgRole } from '../../stores/orgStore.js';

export type { OrgRole } from '../../stores/orgStore.js';

export const ORG_ROLES: readonly OrgRole[] = ['owner', 'admin', 'developer', 'viewer'];

/** Higher is more: each role may do everything the ones below it may. */
const RANK: Record<OrgRole, number> = { viewer: 1, developer: 2, admin: 3, owner: 4 };

export const isOrgRole = (value: unknown): value is OrgRole =>
  typeof value === 'string' && (ORG_ROLES as readonly string[]).includes(value);

export const atLeast = (role: OrgRole, minimum: OrgRole): boolean => RANK[role] >= RANK[minimum];

/**
 * Who is calling a management route. Today a person (a login JWT); the machines work adds service
 * accounts as another kind (decisions §9 "Machines"), resolved to a role in `AppAccess`/`OrgService`.
 */
export type Actor = { kind: 'user'; userId: number };

export const userActor = (userId: number | string): Actor => ({ kind: 'user', userId: Number(userId) });

/** What the audit log records as the actor. */
export const actorLabel = (actor: Actor): string => String(actor.userId);

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

/** 403 `forbidden_role`: a member whose role is below what the route needs. */
export { forbiddenRole } from '../../errors.js';
