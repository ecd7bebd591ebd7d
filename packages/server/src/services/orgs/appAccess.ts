import { AppError, insufficientScope } from '../../errors.js';
import type { ManagementScope } from '../serviceAccounts/scopes.js';
import type { OrgStore } from '../../stores/orgStore.js';
import {
  type Actor,
  APP_ACTION_ROLE,
  APP_ACTION_SCOPE,
  type AppAction,
  atLeast,
  forbiddenRole,
  type OrgRole,
} from './roles.js';

/** An app a caller may manage, as `AppAccess.require` found it. */
export interface ManagedApp {
  clientId: string;
  /** Undefined only for an app no migration placed in an organization (its owner's alone). */
  orgId: string | undefined;
  /** The caller's role in the app's organization. */
  role: OrgRole;
}

export const clientNotFound = () =>
  new AppError(404, 'client_not_found', 'You have no app with this client_id');

/**
 * The one check every management route of an app makes (decisions §9 "Organizations", docs/orgs.md):
 * the caller must be a member of the app's organization (else 404 `client_not_found`, as for a missing
 * app, so app ids cannot be probed) with a role at least the action's (else 403 `forbidden_role`).
 * `Actor` is a person today; service accounts will be another kind resolved to a role here.
 */
export class AppAccess {
  constructor(private readonly store: Pick<OrgStore, 'appRole'>) {}

  /**
   * `scope`: what a service account needs here when it is not the action's default (`APP_ACTION_SCOPE`):
   * the webhook routes ask `webhooks:write`, the players directory `players:read` / `players:write`. A service account of another organization → 404 as for a
   * non-member; a scope it lacks (or an action for people only) → 403 `insufficient_scope`.
   */
  async require(
    clientId: string,
    actor: Actor,
    action: AppAction,
    scope?: ManagementScope,
  ): Promise<ManagedApp> {
    if (clientId.length === 0 || clientId.length > 64) throw clientNotFound();
    if (actor.kind === 'service') {
      // The live app and its organization (uuid 0 is nobody's: no member role comes with it).
      const app = await this.store.appRole(clientId, 0);
      const orgId = app?.orgId;
      if (orgId === undefined || orgId !== actor.orgId) throw clientNotFound();
      const needed = scope ?? APP_ACTION_SCOPE[action];
      if (needed === undefined) {
        throw insufficientScope(
          `A service account cannot do this (it needs the ${APP_ACTION_ROLE[action]} role)`,
        );
      }
      if (!actor.scopes.includes(needed)) {
        throw insufficientScope(`This service account's token lacks the ${needed} scope`);
      }
      return { clientId, orgId, role: action === 'read' ? 'viewer' : 'developer' };
    }
    const found = await this.store.appRole(clientId, actor.userId);
    if (!found || found.role === undefined) throw clientNotFound();
    const needed = APP_ACTION_ROLE[action];
    if (!atLeast(found.role, needed)) throw forbiddenRole(needed);
    return { clientId: found.clientId, orgId: found.orgId, role: found.role };
  }
}
