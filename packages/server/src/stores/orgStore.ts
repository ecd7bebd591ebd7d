import { type Generated, sql } from 'kysely';
import type { Db } from '../db/database.js';
import { affected } from './kyselyResults.js';

export type OrgRole = 'owner' | 'admin' | 'developer' | 'viewer';

export interface OrganizationsTable {
  id: string;
  name: string;
  personal: Generated<number>;
  created_at: number;
  deleted_at: number | null;
}

export interface OrgMembersTable {
  org_id: string;
  user_uuid: number;
  role: OrgRole;
  created_at: number;
}

export interface OrgInvitationsTable {
  id: string;
  org_id: string;
  token_hash: string;
  email: string;
  role: OrgRole;
  invited_by: number;
  created_at: number;
  expires_at: number;
  accepted_at: number | null;
  accepted_by: number | null;
  revoked_at: number | null;
}

export interface OrgAuditTable {
  id: string;
  org_id: string;
  at: number;
  actor_user: string | null;
  action: string;
  client_id: string | null;
  details: string;
}

declare module '../db/database.js' {
  interface Database {
    organizations: OrganizationsTable;
    org_members: OrgMembersTable;
    org_invitations: OrgInvitationsTable;
    org_audit: OrgAuditTable;
  }
}

export interface Organization {
  id: string;
  name: string;
  /** An account's own organization: where its apps go when none is named (it cannot be deleted or transferred). */
  personal: boolean;
  createdAt: number;
}

export interface OrgMember {
  userUuid: number;
  role: OrgRole;
  createdAt: number;
  email: string | undefined;
  nickname: string | undefined;
}

export interface OrgInvitation {
  id: string;
  orgId: string;
  email: string;
  role: OrgRole;
  invitedBy: number;
  createdAt: number;
  expiresAt: number;
  acceptedAt: number | undefined;
  acceptedBy: number | undefined;
  revokedAt: number | undefined;
}

export interface OrgAuditEntry {
  id: string;
  orgId: string;
  at: number;
  actorUser: string | undefined;
  action: string;
  clientId: string | undefined;
  details: Record<string, unknown>;
}

const toOrg = (r: { id: string; name: string; personal: number; created_at: number }): Organization => ({
  id: r.id,
  name: r.name,
  personal: Number(r.personal) === 1,
  createdAt: Number(r.created_at),
});

const toInvitation = (r: OrgInvitationsTable): OrgInvitation => ({
  id: r.id,
  orgId: r.org_id,
  email: r.email,
  role: r.role,
  invitedBy: Number(r.invited_by),
  createdAt: Number(r.created_at),
  expiresAt: Number(r.expires_at),
  acceptedAt: r.accepted_at === null ? undefined : Number(r.accepted_at),
  acceptedBy: r.accepted_by === null ? undefined : Number(r.accepted_by),
  revokedAt: r.revoked_at === null ? undefined : Number(r.revoked_at),
});

/** The personal organization's id of an account: fixed, so creating it on demand is idempotent. */
export const personalOrgId = (userUuid: number): string => `org_u${userUuid}`;

/** Organizations, their members, invitations and audit log (migration 0270, docs/orgs.md). */
export class OrgStore {
  constructor(private readonly db: Db) {}

  /** A new organization with its owner, in one transaction. */
  async create(org: Organization, ownerUuid: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('organizations')
        .values({
          id: org.id,
          name: org.name,
          personal: org.personal ? 1 : 0,
          created_at: org.createdAt,
          deleted_at: null,
        })
        .execute();
      await trx
        .insertInto('org_members')
        .values({ org_id: org.id, user_uuid: ownerUuid, role: 'owner', created_at: org.createdAt })
        .execute();
    });
  }

  /** The account's personal organization, created (with the account as owner) when it has none yet. */
  async ensurePersonal(userUuid: number, now: number): Promise<Organization> {
    const id = personalOrgId(userUuid);
    const existing = await this.find(id);
    if (existing) return existing;
    await this.db
      .insertInto('organizations')
      .values({ id, name: 'Personal', personal: 1, created_at: now, deleted_at: null })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    await this.db
      .insertInto('org_members')
      .values({ org_id: id, user_uuid: userUuid, role: 'owner', created_at: now })
      .onConflict((oc) => oc.columns(['org_id', 'user_uuid']).doNothing())
      .execute();
    const org = await this.find(id);
    if (!org) throw new Error(`personal organization ${id} vanished`);
    return org;
  }

  /** A live (not deleted) organization. */
  async find(id: string): Promise<Organization | undefined> {
    const row = await this.db
      .selectFrom('organizations')
      .select(['id', 'name', 'personal', 'created_at'])
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return row ? toOrg(row) : undefined;
  }

  /** The live organizations the account belongs to, with its role in each; oldest first. */
  async listForUser(userUuid: number): Promise<(Organization & { role: OrgRole })[]> {
    const rows = await this.db
      .selectFrom('org_members as m')
      .innerJoin('organizations as o', 'o.id', 'm.org_id')
      .select(['o.id', 'o.name', 'o.personal', 'o.created_at', 'm.role'])
      .where('m.user_uuid', '=', userUuid)
      .where('o.deleted_at', 'is', null)
      .orderBy('o.created_at')
      .orderBy('o.id')
      .execute();
    return rows.map((r) => ({ ...toOrg(r), role: r.role }));
  }

  /** The account's role in a live organization; undefined when it is not a member (or the org is gone). */
  async roleOf(orgId: string, userUuid: number): Promise<OrgRole | undefined> {
    const row = await this.db
      .selectFrom('org_members as m')
      .innerJoin('organizations as o', 'o.id', 'm.org_id')
      .select('m.role')
      .where('m.org_id', '=', orgId)
      .where('m.user_uuid', '=', userUuid)
      .where('o.deleted_at', 'is', null)
      .executeTakeFirst();
    return row?.role;
  }

  async rename(id: string, name: string): Promise<boolean> {
    const result = await this.db
      .updateTable('organizations')
      .set({ name })
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /**
   * Marks a live organization deleted when it holds no live app (one statement, so an app created at
   * the same moment cannot be left in a deleted org); its pending invitations are revoked.
   */
  async markDeleted(id: string, now: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('organizations')
        .set({ deleted_at: now })
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('oauth_clients')
                .select(sql<number>`1`.as('one'))
                .where('oauth_clients.org_id', '=', id)
                .where('oauth_clients.deleted_at', 'is', null),
            ),
          ),
        )
        .executeTakeFirst();
      if (affected(result) !== 1) return false;
      await trx
        .updateTable('org_invitations')
        .set({ revoked_at: now })
        .where('org_id', '=', id)
        .where('accepted_at', 'is', null)
        .where('revoked_at', 'is', null)
        .execute();
      return true;
    });
  }

  /**
   * A live app, its organization and the account's role there (undefined when not a member): the one
   * read behind every management route's check (`AppAccess`). An app the migration has not placed in an
   * organization (org_id null) is its owner's alone.
   */
  async appRole(
    clientId: string,
    userUuid: number,
  ): Promise<{ clientId: string; orgId: string | undefined; role: OrgRole | undefined } | undefined> {
    const row = await this.db
      .selectFrom('oauth_clients as c')
      .leftJoin('org_members as m', (join) =>
        join.onRef('m.org_id', '=', 'c.org_id').on('m.user_uuid', '=', userUuid),
      )
      .leftJoin('organizations as o', 'o.id', 'c.org_id')
      .select(['c.client_id', 'c.org_id', 'c.owner_uuid', 'm.role', 'o.deleted_at'])
      .where('c.client_id', '=', clientId)
      .where('c.deleted_at', 'is', null)
      .executeTakeFirst();
    if (!row) return undefined;
    if (row.org_id === null) {
      return {
        clientId: row.client_id,
        orgId: undefined,
        role: Number(row.owner_uuid) === userUuid ? 'owner' : undefined,
      };
    }
    const live = row.deleted_at === null;
    return { clientId: row.client_id, orgId: row.org_id, role: live ? (row.role ?? undefined) : undefined };
  }

  /** The organization of an app, deleted apps included (their deletion is recorded in its log). */
  async orgOfClient(clientId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('oauth_clients')
      .select('org_id')
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return row?.org_id ?? undefined;
  }

  // ---- members ----

  async members(orgId: string): Promise<OrgMember[]> {
    const rows = await this.db
      .selectFrom('org_members as m')
      .leftJoin('users as u', 'u.user_uuid', 'm.user_uuid')
      .select(['m.user_uuid', 'm.role', 'm.created_at', 'u.email', 'u.nickname'])
      .where('m.org_id', '=', orgId)
      .orderBy('m.created_at')
      .orderBy('m.user_uuid')
      .execute();
    return rows.map((r) => ({
      userUuid: Number(r.user_uuid),
      role: r.role,
      createdAt: Number(r.created_at),
      email: r.email ?? undefined,
      nickname: r.nickname ?? undefined,
    }));
  }

  /** Changes a member's role, never the owner's (transfer does that); false when there is no such member. */
  async setRole(orgId: string, userUuid: number, role: Exclude<OrgRole, 'owner'>): Promise<boolean> {
    const result = await this.db
      .updateTable('org_members')
      .set({ role })
      .where('org_id', '=', orgId)
      .where('user_uuid', '=', userUuid)
      .where('role', '!=', 'owner')
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** Removes a member other than the owner; false when there is no such member. */
  async removeMember(orgId: string, userUuid: number): Promise<boolean> {
    const result = await this.db
      .deleteFrom('org_members')
      .where('org_id', '=', orgId)
      .where('user_uuid', '=', userUuid)
      .where('role', '!=', 'owner')
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** The owner hands the org to another member, who becomes `owner`; the old owner becomes `admin`. */
  async transferOwnership(orgId: string, fromUuid: number, toUuid: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const promoted = await trx
        .updateTable('org_members')
        .set({ role: 'owner' })
        .where('org_id', '=', orgId)
        .where('user_uuid', '=', toUuid)
        .where('role', '!=', 'owner')
        .executeTakeFirst();
      if (affected(promoted) !== 1) return false;
      const demoted = await trx
        .updateTable('org_members')
        .set({ role: 'admin' })
        .where('org_id', '=', orgId)
        .where('user_uuid', '=', fromUuid)
        .where('role', '=', 'owner')
        .executeTakeFirst();
      if (affected(demoted) !== 1) throw new Error('the owner changed during the transfer');
      return true;
    });
  }

  // ---- invitations ----

  async insertInvitation(invitation: OrgInvitation, tokenHash: string): Promise<void> {
    await this.db
      .insertInto('org_invitations')
      .values({
        id: invitation.id,
        org_id: invitation.orgId,
        token_hash: tokenHash,
        email: invitation.email,
        role: invitation.role,
        invited_by: invitation.invitedBy,
        created_at: invitation.createdAt,
        expires_at: invitation.expiresAt,
        accepted_at: null,
        accepted_by: null,
        revoked_at: null,
      })
      .execute();
  }

  /** An organization's invitations, newest first. */
  async invitations(orgId: string): Promise<OrgInvitation[]> {
    const rows = await this.db
      .selectFrom('org_invitations')
      .selectAll()
      .where('org_id', '=', orgId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toInvitation);
  }

  async findInvitationByHash(tokenHash: string): Promise<OrgInvitation | undefined> {
    const row = await this.db
      .selectFrom('org_invitations')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    return row ? toInvitation(row) : undefined;
  }

  /** Revokes a pending invitation of the org; false when there is none (unknown, accepted or revoked). */
  async revokeInvitation(orgId: string, id: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('org_invitations')
      .set({ revoked_at: now })
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .where('accepted_at', 'is', null)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /**
   * Spends a pending, unexpired invitation and makes the account a member with its role, in one
   * transaction: of two concurrent acceptances one wins. False when the invitation was no longer pending.
   */
  async acceptInvitation(invitation: OrgInvitation, userUuid: number, now: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const spent = await trx
        .updateTable('org_invitations')
        .set({ accepted_at: now, accepted_by: userUuid })
        .where('id', '=', invitation.id)
        .where('accepted_at', 'is', null)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      if (affected(spent) !== 1) return false;
      await trx
        .insertInto('org_members')
        .values({ org_id: invitation.orgId, user_uuid: userUuid, role: invitation.role, created_at: now })
        .execute();
      return true;
    });
  }

  // ---- audit ----

  async appendAudit(entry: OrgAuditEntry): Promise<void> {
    await this.db
      .insertInto('org_audit')
      .values({
        id: entry.id,
        org_id: entry.orgId,
        at: entry.at,
        actor_user: entry.actorUser ?? null,
        action: entry.action,
        client_id: entry.clientId ?? null,
        details: JSON.stringify(entry.details),
      })
      .execute();
  }

  /** Newest first; `before` is the last entry of the previous page. */
  async audit(
    orgId: string,
    options: { limit: number; before?: { at: number; id: string } | undefined },
  ): Promise<OrgAuditEntry[]> {
    let query = this.db.selectFrom('org_audit').selectAll().where('org_id', '=', orgId);
    const before = options.before;
    if (before) {
      query = query.where((eb) =>
        eb.or([eb('at', '<', before.at), eb.and([eb('at', '=', before.at), eb('id', '<', before.id)])]),
      );
    }
    const rows = await query.orderBy('at', 'desc').orderBy('id', 'desc').limit(options.limit).execute();
    return rows.map((r) => ({
      id: r.id,
      orgId: r.org_id,
      at: Number(r.at),
      actorUser: r.actor_user ?? undefined,
      action: r.action,
      clientId: r.client_id ?? undefined,
      details: JSON.parse(r.details) as Record<string, unknown>,
    }));
  }
}
