import { AppError, insufficientScope } from '../../errors.js';
import type { ServiceActor } from '../serviceAccounts/serviceAccountService.js';
import type { ManagementScope } from '../serviceAccounts/scopes.js';

export type StudioRole = 'owner' | 'admin' | 'developer' | 'viewer';

const RANK: Record<StudioRole, number> = { viewer: 1, developer: 2, admin: 3, owner: 4 };

/** Who calls a studio route: a member (their login JWT) or a service account (its client_credentials token). */
export type StudioCaller = { kind: 'user'; userId: number } | ServiceActor;

/**
 * What a studio route needs: a member's `role` at least, or, from a service account, `scope`. Without a
 * scope, no service account may call it (managing service accounts themselves is for people).
 */
export interface StudioNeed {
  role: StudioRole;
  scope?: ManagementScope | undefined;
}

/** The organizations as the studio routes see them (docs/orgs.md owns them). */
export interface OrgDirectory {
  /** The person's role in the live organization, undefined when not a member (or no such organization). */
  roleOf(orgId: string, userUuid: number): Promise<StudioRole | undefined>;
  /** The organization of a live app, undefined when there is no such app. */
  orgOfApp(clientId: string): Promise<string | undefined>;
}

export const orgNotFound = () =>
  new AppError(404, 'org_not_found', 'You are not a member of an organization with this id');
const appNotFound = () => new AppError(404, 'client_not_found', 'You have no app with this client_id');
const forbiddenRole = (needed: StudioRole) =>
  new AppError(403, 'forbidden_role', `This needs the ${needed} role (or higher) in the app's organization`, {
    required_role: needed,
  });

/**
 * The access check of the studio routes (service accounts, the players directory, pre-generation):
 * a member by role as every org management route checks it (404 for another org, 403 `forbidden_role`
 * for a role too low), or a service account of that same organization by scope (404 for another org's,
 * 403 `insufficient_scope` for a scope it lacks), as decisions §9 "Machines" says.
 */
export class StudioAccess {
  constructor(private readonly orgs: OrgDirectory) {}

  async requireOrg(orgId: string, caller: StudioCaller, need: StudioNeed): Promise<void> {
    if (orgId.length === 0 || orgId.length > 40) throw orgNotFound();
    if (caller.kind === 'service') {
      if (caller.orgId !== orgId) throw orgNotFound();
      if (need.scope === undefined) {
        throw insufficientScope('Service accounts cannot do this: it needs a member of the organization');
      }
      if (!caller.scopes.includes(need.scope)) {
        throw insufficientScope(`This service account's token lacks the ${need.scope} scope`);
      }
      return;
    }
    const role = await this.orgs.roleOf(orgId, caller.userId);
    if (role === undefined) throw orgNotFound();
    if (RANK[role] < RANK[need.role]) throw forbiddenRole(need.role);
  }

  /** `requireOrg`, and the app must be one of the organization's (else 404 `client_not_found`). */
  async requireApp(orgId: string, clientId: string, caller: StudioCaller, need: StudioNeed): Promise<void> {
    await this.requireOrg(orgId, caller, need);
    if (clientId.length === 0 || clientId.length > 64 || (await this.orgs.orgOfApp(clientId)) !== orgId) {
      throw appNotFound();
    }
  }
}
