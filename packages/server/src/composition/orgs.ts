import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Mailer } from '../services/mail/mailer.js';
import { AppAccess } from '../services/orgs/appAccess.js';
import { OrgService } from '../services/orgs/orgService.js';
import { ClientStore } from '../stores/clientStore.js';
import { OrgStore } from '../stores/orgStore.js';
import { UserStore } from '../stores/userStore.js';

export interface OrgDomain {
  /** Organizations, members, invitations and the org audit log (docs/orgs.md). */
  orgs: OrgService;
  /** The check of every app management route: the caller's role in the app's organization. */
  appAccess: AppAccess;
}

/**
 * Wires organizations (decisions §9 "Studios", docs/orgs.md). Built before the OAuth domain: the apps'
 * management checks (`AppAccess`) read the organization tables only, so every domain that manages an app
 * (clients, webhooks, wallet policies, activity, content providers) takes it.
 */
export function createOrgDomain(deps: {
  config: Pick<Config, 'publicUrl'>;
  db: Db;
  mailer: Mailer;
  masterKey: Buffer;
}): OrgDomain {
  const store = new OrgStore(deps.db);
  const orgs = new OrgService(
    { orgs: store, apps: new ClientStore(deps.db), users: new UserStore(deps.db) },
    deps.mailer,
    { publicUrl: deps.config.publicUrl, masterKey: deps.masterKey },
  );
  return { orgs, appAccess: new AppAccess(store) };
}
