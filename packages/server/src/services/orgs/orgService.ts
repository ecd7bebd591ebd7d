import { type KeyObject, randomBytes } from 'node:crypto';
import { deriveHmacKey } from '../../crypto/derivedKey.js';
import { AppError, conflict, insufficientScope, invalidField } from '../../errors.js';
import type { ManagementScope } from '../serviceAccounts/scopes.js';
import type { OAuthClient } from '../../stores/clientStore.js';
import type {
  Organization,
  OrgAuditEntry,
  OrgInvitation,
  OrgMember,
  OrgStore,
} from '../../stores/orgStore.js';
import { normaliseEmail } from '../accounts/accountService.js';
import type { Locale } from '../../i18n/locales.js';
import type { Mailer } from '../mail/mailer.js';
import { mailBody, mailTranslator } from '../mail/mailText.js';
import { type ClientView, viewOf } from '../oauth/clientService.js';
import { hmacHex, newOpaqueToken } from '../oauth/opaqueToken.js';
import { clientNotFound } from './appAccess.js';
import { type Actor, actorLabel, atLeast, forbiddenRole, type OrgRole, type UserActor } from './roles.js';

/** Invitations expire after 7 days (decisions §9). */
export const INVITATION_TTL_MS = 7 * 24 * 3600_000;
export const MAX_AUDIT_PAGE = 200;

export const orgNotFound = () =>
  new AppError(404, 'org_not_found', 'You are not a member of an organization with this id');
const memberNotFound = () =>
  new AppError(404, 'member_not_found', 'No member of this organization has this user_id');
const personalOrg = () =>
  conflict('personal_org', 'A personal organization cannot be transferred or deleted');
const ownerMustTransfer = () =>
  conflict('owner_must_transfer', 'The owner cannot be removed or demoted: transfer the ownership first');

export interface OrgStores {
  orgs: OrgStore;
  /** The apps of organizations (a read of `oauth_clients`). */
  apps: {
    listByOrgs(orgIds: readonly string[]): Promise<OAuthClient[]>;
    findById(id: string): Promise<OAuthClient | undefined>;
  };
  users: {
    findById(userUuid: number): Promise<{ email: string | null; locale?: Locale | undefined } | undefined>;
    findByEmail(email: string): Promise<{ locale?: Locale | undefined } | undefined>;
  };
}

export interface OrgSettings {
  /** Links in mail start here (PUBLIC_URL). */
  publicUrl: string;
  masterKey: Buffer;
}

const normaliseName = (name: string): string => {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > 200)
    throw invalidField('name', 'name must be 1 to 200 characters');
  return trimmed;
};

/**
 * Organizations (decisions §9 "Studios", docs/orgs.md): create, list, rename, transfer, delete (only
 * without apps); members by role; invitations by e-mail (single use, 7 days, revocable); the org's apps;
 * and its audit log, which every change here (and every app change, `recordAppChange`) writes to.
 * A caller who is not a member gets 404 `org_not_found`; a role too low 403 `forbidden_role`.
 */
export class OrgService {
  readonly #tokenKey: KeyObject;

  constructor(
    private readonly stores: OrgStores,
    private readonly mailer: Mailer,
    private readonly settings: OrgSettings,
    private readonly now: () => number = Date.now,
  ) {
    this.#tokenKey = deriveHmacKey(settings.masterKey, 'org-invitation/v1');
  }

  get #orgs(): OrgStore {
    return this.stores.orgs;
  }

  /**
   * The caller's role in a live organization, at least `minimum`; else 404 / 403. A service account
   * (docs/machines.md) passes only in its own organization (else 404) and only where the route names the
   * `scope` it accepts and the token holds it (else 403 `insufficient_scope`); it then counts as a
   * `viewer` (a read) or a `developer`.
   */
  async require(orgId: string, actor: Actor, minimum: OrgRole, scope?: ManagementScope): Promise<OrgRole> {
    if (orgId.length === 0 || orgId.length > 40) throw orgNotFound();
    if (actor.kind === 'service') {
      if (actor.orgId !== orgId || (await this.#orgs.find(orgId)) === undefined) throw orgNotFound();
      if (scope === undefined || !atLeast('developer', minimum)) {
        throw insufficientScope(`A service account cannot do this (it needs the ${minimum} role)`);
      }
      if (!actor.scopes.includes(scope)) {
        throw insufficientScope(`This service account's token lacks the ${scope} scope`);
      }
      return minimum === 'viewer' ? 'viewer' : 'developer';
    }
    const role = await this.#orgs.roleOf(orgId, actor.userId);
    if (role === undefined) throw orgNotFound();
    if (!atLeast(role, minimum)) throw forbiddenRole(minimum);
    return role;
  }

  async create(actor: UserActor, name: string): Promise<Organization> {
    const org: Organization = {
      id: `org_${randomBytes(12).toString('hex')}`,
      name: normaliseName(name),
      personal: false,
      createdAt: this.now(),
    };
    await this.#orgs.create(org, actor.userId);
    await this.record(org.id, actor, 'org.create', { name: org.name });
    return org;
  }

  async list(actor: UserActor): Promise<(Organization & { role: OrgRole })[]> {
    return this.#orgs.listForUser(actor.userId);
  }

  async get(actor: UserActor, orgId: string): Promise<Organization & { role: OrgRole }> {
    const role = await this.require(orgId, actor, 'viewer');
    const org = await this.#orgs.find(orgId);
    if (!org) throw orgNotFound();
    return { ...org, role };
  }

  async rename(actor: UserActor, orgId: string, name: string): Promise<Organization> {
    await this.require(orgId, actor, 'admin');
    const trimmed = normaliseName(name);
    if (!(await this.#orgs.rename(orgId, trimmed))) throw orgNotFound();
    await this.record(orgId, actor, 'org.rename', { name: trimmed });
    const org = await this.#orgs.find(orgId);
    if (!org) throw orgNotFound();
    return org;
  }

  /** The owner hands the organization to another member (who becomes `owner`; the old owner `admin`). */
  async transfer(actor: UserActor, orgId: string, toUserId: number): Promise<void> {
    await this.require(orgId, actor, 'owner');
    const org = await this.#orgs.find(orgId);
    if (!org) throw orgNotFound();
    if (org.personal) throw personalOrg();
    if (toUserId === actor.userId) throw invalidField('user_id', 'user_id is already the owner');
    if (!(await this.#orgs.transferOwnership(orgId, actor.userId, toUserId))) throw memberNotFound();
    await this.record(orgId, actor, 'org.transfer', { user_id: String(toUserId) });
  }

  /** Deletes an organization that holds no app (409 `org_has_apps` otherwise); its pending invitations end. */
  async delete(actor: UserActor, orgId: string): Promise<void> {
    await this.require(orgId, actor, 'owner');
    const org = await this.#orgs.find(orgId);
    if (!org) throw orgNotFound();
    if (org.personal) throw personalOrg();
    if (!(await this.#orgs.markDeleted(orgId, this.now()))) {
      throw conflict('org_has_apps', 'Delete or move the organization’s apps first');
    }
    await this.record(orgId, actor, 'org.delete', {});
  }

  // ---- apps ----

  /**
   * The organization a new app goes into: the named one (the caller `developer` or higher there), else
   * the caller's personal organization, created on demand.
   */
  async orgForNewApp(actor: UserActor, orgId: string | undefined): Promise<string> {
    if (orgId !== undefined) {
      await this.require(orgId, actor, 'developer');
      return orgId;
    }
    return (await this.#orgs.ensurePersonal(actor.userId, this.now())).id;
  }

  async apps(actor: Actor, orgId: string): Promise<ClientView[]> {
    await this.require(orgId, actor, 'viewer', 'apps:read');
    return (await this.stores.apps.listByOrgs([orgId])).map(viewOf);
  }

  async app(actor: Actor, orgId: string, clientId: string): Promise<ClientView> {
    await this.require(orgId, actor, 'viewer', 'apps:read');
    const client = clientId.length > 64 ? undefined : await this.stores.apps.findById(clientId);
    if (!client || client.orgId !== orgId) throw clientNotFound();
    return viewOf(client);
  }

  /** Every app of every organization the caller belongs to (`GET /v1/dev-user/clients`). */
  async appsOf(actor: UserActor): Promise<ClientView[]> {
    const orgs = await this.#orgs.listForUser(actor.userId);
    return (await this.stores.apps.listByOrgs(orgs.map((o) => o.id))).map(viewOf);
  }

  // ---- members ----

  async members(actor: UserActor, orgId: string): Promise<OrgMember[]> {
    await this.require(orgId, actor, 'viewer');
    return this.#orgs.members(orgId);
  }

  async setRole(actor: UserActor, orgId: string, userId: number, role: OrgRole): Promise<void> {
    await this.require(orgId, actor, 'admin');
    if (role === 'owner') {
      throw invalidField('role', 'role owner is given by transferring the ownership (docs/orgs.md)');
    }
    const current = (await this.#orgs.roleOf(orgId, userId)) ?? memberNotFoundThrow();
    if (current === 'owner') throw ownerMustTransfer();
    if (!(await this.#orgs.setRole(orgId, userId, role))) throw memberNotFound();
    await this.record(orgId, actor, 'member.role', { user_id: String(userId), role, previous_role: current });
  }

  /** Removes a member (admin or higher), or the caller leaves (any role but owner). */
  async removeMember(actor: UserActor, orgId: string, userId: number): Promise<void> {
    await this.require(orgId, actor, userId === actor.userId ? 'viewer' : 'admin');
    const current = (await this.#orgs.roleOf(orgId, userId)) ?? memberNotFoundThrow();
    if (current === 'owner') throw ownerMustTransfer();
    if (!(await this.#orgs.removeMember(orgId, userId))) throw memberNotFound();
    await this.record(orgId, actor, userId === actor.userId ? 'member.leave' : 'member.remove', {
      user_id: String(userId),
      role: current,
    });
  }

  // ---- invitations ----

  /**
   * Mails an invitation (admin or higher; any role but owner): the link
   * `{PUBLIC_URL}/console/invitations?token=…` and the token alone on its own line. Only the token's keyed
   * HMAC is stored; it expires in 7 days, is single use and revocable.
   */
  async invite(actor: UserActor, orgId: string, emailInput: string, role: OrgRole): Promise<OrgInvitation> {
    await this.require(orgId, actor, 'admin');
    if (role === 'owner') {
      throw invalidField('role', 'role owner is given by transferring the ownership (docs/orgs.md)');
    }
    const email = normaliseEmail(emailInput);
    if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 320) throw invalidField('email');
    const org = await this.#orgs.find(orgId);
    if (!org) throw orgNotFound();
    const token = newOpaqueToken();
    const now = this.now();
    const invitation: OrgInvitation = {
      id: `inv_${randomBytes(12).toString('hex')}`,
      orgId,
      email,
      role,
      invitedBy: actor.userId,
      createdAt: now,
      expiresAt: now + INVITATION_TTL_MS,
      acceptedAt: undefined,
      acceptedBy: undefined,
      revokedAt: undefined,
    };
    await this.#orgs.insertInvitation(invitation, hmacHex(this.#tokenKey, token));
    const link = `${this.settings.publicUrl}/console/invitations?token=${encodeURIComponent(token)}`;
    // In the invitee's language when the address has an account that has one, else in the inviter's.
    const invitee = await this.stores.users.findByEmail(email);
    const tr = mailTranslator(invitee?.locale ?? (await this.stores.users.findById(actor.userId))?.locale);
    await this.mailer.send({
      to: email,
      language: tr.locale,
      subject: tr.t('mail.invite.subject', { org: org.name }),
      text: mailBody([
        tr.t('mail.invite.body', { org: org.name, role }),
        '',
        tr.t('mail.invite.accept'),
        link,
        '',
        tr.t('mail.invite.token'),
        token,
        '',
        tr.t('mail.invite.expires', { expires: new Date(invitation.expiresAt) }),
        tr.t('mail.invite.notYou'),
      ]),
    });
    await this.record(orgId, actor, 'invitation.create', { invitation_id: invitation.id, email, role });
    return invitation;
  }

  async invitations(actor: UserActor, orgId: string): Promise<OrgInvitation[]> {
    await this.require(orgId, actor, 'admin');
    return this.#orgs.invitations(orgId);
  }

  async revokeInvitation(actor: UserActor, orgId: string, invitationId: string): Promise<void> {
    await this.require(orgId, actor, 'admin');
    if (!(await this.#orgs.revokeInvitation(orgId, invitationId, this.now()))) {
      throw new AppError(
        404,
        'invitation_not_found',
        'This organization has no pending invitation with this id',
      );
    }
    await this.record(orgId, actor, 'invitation.revoke', { invitation_id: invitationId });
  }

  /**
   * The invitee (signed in with the invited e-mail address) joins with the invitation's role. Single use:
   * 409 `invitation_used`; 410 `invitation_expired` / `invitation_revoked`; 404 `invitation_not_found`
   * for an unknown token; 403 `invitation_email_mismatch` for another account; 409 `already_member`.
   */
  async accept(actor: UserActor, token: string): Promise<{ org: Organization; role: OrgRole }> {
    const invitation = await this.#orgs.findInvitationByHash(hmacHex(this.#tokenKey, token));
    const org = invitation ? await this.#orgs.find(invitation.orgId) : undefined;
    if (!invitation || !org) {
      throw new AppError(404, 'invitation_not_found', 'This invitation token is unknown');
    }
    this.#checkPending(invitation);
    const user = await this.stores.users.findById(actor.userId);
    if (!user?.email || normaliseEmail(user.email) !== invitation.email) {
      throw new AppError(
        403,
        'invitation_email_mismatch',
        'This invitation was sent to another e-mail address: sign in with that address to accept it',
      );
    }
    if ((await this.#orgs.roleOf(org.id, actor.userId)) !== undefined) {
      throw conflict('already_member', 'You are already a member of this organization');
    }
    if (!(await this.#orgs.acceptInvitation(invitation, actor.userId, this.now()))) {
      const again = await this.#orgs.findInvitationByHash(hmacHex(this.#tokenKey, token));
      if (again) this.#checkPending(again);
      throw conflict('invitation_used', 'This invitation was already accepted');
    }
    await this.record(org.id, actor, 'invitation.accept', {
      invitation_id: invitation.id,
      user_id: String(actor.userId),
      role: invitation.role,
    });
    return { org, role: invitation.role };
  }

  #checkPending(invitation: OrgInvitation): void {
    if (invitation.acceptedAt !== undefined) {
      throw conflict('invitation_used', 'This invitation was already accepted');
    }
    if (invitation.revokedAt !== undefined) {
      throw new AppError(410, 'invitation_revoked', 'This invitation was revoked');
    }
    if (invitation.expiresAt <= this.now()) {
      throw new AppError(410, 'invitation_expired', 'This invitation has expired: ask for a new one');
    }
  }

  // ---- audit ----

  async audit(
    actor: UserActor,
    orgId: string,
    options: { limit: number; before?: { at: number; id: string } | undefined },
  ): Promise<OrgAuditEntry[]> {
    await this.require(orgId, actor, 'admin');
    return this.#orgs.audit(orgId, {
      ...options,
      limit: Math.min(Math.max(options.limit, 1), MAX_AUDIT_PAGE),
    });
  }

  /** Appends to the organization's audit log. */
  async record(
    orgId: string,
    actor: Actor | undefined,
    action: string,
    details: Record<string, unknown>,
    clientId?: string,
  ): Promise<void> {
    await this.#orgs.appendAudit({
      id: `${this.now().toString(36).padStart(9, '0')}${randomBytes(8).toString('hex')}`,
      orgId,
      at: this.now(),
      actorUser: actor ? actorLabel(actor) : undefined,
      action,
      clientId,
      details,
    });
  }

  /** A change to an app (a management route answered 2xx): recorded in its organization's log, deleted apps included. */
  async recordAppChange(
    clientId: string,
    actor: Actor,
    action: string,
    details: Record<string, unknown>,
  ): Promise<void> {
    const orgId = await this.#orgs.orgOfClient(clientId);
    if (orgId === undefined) return;
    await this.record(orgId, actor, action, details, clientId);
  }
}

function memberNotFoundThrow(): never {
  throw memberNotFound();
}

export type { Organization, OrgAuditEntry, OrgInvitation, OrgMember };
