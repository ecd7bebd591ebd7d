import { AppError } from '../../errors.js';
import type { OrgStore } from '../../stores/orgStore.js';
import {
  type Actor,
  APP_ACTION_ROLE,
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

  async require(clientId: string, actor: Actor, action: AppAction): Promise<ManagedApp> {
    if (clientId.length === 0 || clientId.length > 64) throw clientNotFound();
    const found = await this.store.appRole(clientId, actor.userId);
    if (!found || found.role === undefined) throw clientNotFound();
    const needed = APP_ACTION_ROLE[action];
    if (!atLeast(found.role, needed)) throw forbiddenRole(needed);
    return { clientId: found.clientId, orgId: found.orgId, role: found.role };
  }
}
