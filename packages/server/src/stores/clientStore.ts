import { type Generated, sql } from 'kysely';
import type { Db } from '../db/database.js';
import { affected } from './kyselyResults.js';

export interface OAuthClientsTable {
  client_id: string;
  owner_uuid: number;
  name: string;
  redirect_uris: string;
  dapp: number;
  secret_hash: string;
  created_at: number;
  /** JSON array (migration 0060); `[]` for apps registered before. */
  post_logout_redirect_uris: string;
  /** The secret a rotation replaced, accepted until `previous_secret_expires_at` (migration 0120). */
  previous_secret_hash: string | null;
  previous_secret_expires_at: number | null;
  /** Set when the owner deleted the app: it then no longer exists for any lookup. */
  deleted_at: number | null;
  /** 1: every sign-in to the app on the login page needs two factors (migration 0250). */
  require_mfa: Generated<number>;
  /** The organization the app belongs to (migration 0270); null only for rows the migration has not seen. */
  org_id: string | null;
}

declare module '../db/database.js' {
  interface Database {
    oauth_clients: OAuthClientsTable;
  }
}

/** An app registered by a developer (an OAuth client). The secret is only ever held as its hash. */
export interface OAuthClient {
  clientId: string;
  ownerUuid: number;
  name: string;
  redirectUris: string[];
  /** Registered with `dapp: true`: token responses carry `content_address`. */
  dapp: boolean;
  secretHash: string;
  createdAt: number;
  /** Where OpenID Connect RP-initiated logout may send the browser back to (exact match). */
  postLogoutRedirectUris: string[];
  /** After a rotation: the old secret's hash and until when (ms) it is still accepted. */
  previousSecret?: { hash: string; expiresAt: number } | undefined;
  /** The owner requires two factors on every sign-in to the app through the login page (docs/oidc.md). */
  requireMfa?: boolean | undefined;
  /** The organization the app belongs to (docs/orgs.md); its members manage the app by role. */
  orgId?: string | undefined;
}

const toClient = (r: Omit<OAuthClientsTable, 'require_mfa'> & { require_mfa: number }): OAuthClient => ({
  clientId: r.client_id,
  ownerUuid: Number(r.owner_uuid),
  name: r.name,
  redirectUris: JSON.parse(r.redirect_uris) as string[],
  dapp: Number(r.dapp) === 1,
  secretHash: r.secret_hash,
  createdAt: Number(r.created_at),
  postLogoutRedirectUris: JSON.parse(r.post_logout_redirect_uris) as string[],
  previousSecret:
    r.previous_secret_hash !== null && r.previous_secret_expires_at !== null
      ? { hash: r.previous_secret_hash, expiresAt: Number(r.previous_secret_expires_at) }
      : undefined,
  requireMfa: Number(r.require_mfa) === 1,
  orgId: r.org_id ?? undefined,
});

export class ClientStore {
  constructor(private readonly db: Db) {}

  async insert(client: OAuthClient): Promise<void> {
    await this.db
      .insertInto('oauth_clients')
      .values({
        client_id: client.clientId,
        owner_uuid: client.ownerUuid,
        name: client.name,
        redirect_uris: JSON.stringify(client.redirectUris),
        dapp: client.dapp ? 1 : 0,
        secret_hash: client.secretHash,
        created_at: client.createdAt,
        post_logout_redirect_uris: JSON.stringify(client.postLogoutRedirectUris),
        org_id: client.orgId ?? null,
      })
      .execute();
  }

  /** Every client-authenticated call reads this: hand-written SQL, since building the query costs as much as running it. */
  async findById(clientId: string): Promise<OAuthClient | undefined> {
    const { rows } = await sql<
      Omit<OAuthClientsTable, 'require_mfa'> & { require_mfa: number }
    >`select * from oauth_clients
      where client_id = ${clientId} and deleted_at is null`.execute(this.db);
    return rows[0] ? toClient(rows[0]) : undefined;
  }

  async listByOwner(ownerUuid: number): Promise<OAuthClient[]> {
    const rows = await this.db
      .selectFrom('oauth_clients')
      .selectAll()
      .where('owner_uuid', '=', ownerUuid)
      .where('deleted_at', 'is', null)
      .orderBy('created_at')
      .orderBy('client_id')
      .execute();
    return rows.map(toClient);
  }

  /** The live apps of these organizations, oldest first. */
  async listByOrgs(orgIds: readonly string[]): Promise<OAuthClient[]> {
    if (orgIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('oauth_clients')
      .selectAll()
      .where('org_id', 'in', orgIds)
      .where('deleted_at', 'is', null)
      .orderBy('created_at')
      .orderBy('client_id')
      .execute();
    return rows.map(toClient);
  }

  /**
   * Changes name, redirect URIs and the MFA requirement of a live app; false when there is none. Who may
   * is the caller's check (`AppAccess`, docs/orgs.md).
   */
  async update(
    clientId: string,
    changes: {
      name?: string | undefined;
      redirectUris?: string[] | undefined;
      requireMfa?: boolean | undefined;
    },
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('oauth_clients')
      .set({
        ...(changes.name !== undefined ? { name: changes.name } : {}),
        ...(changes.redirectUris !== undefined
          ? { redirect_uris: JSON.stringify(changes.redirectUris) }
          : {}),
        ...(changes.requireMfa !== undefined ? { require_mfa: changes.requireMfa ? 1 : 0 } : {}),
      })
      .where('client_id', '=', clientId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /**
   * Replaces the secret of a live app, keeping the current one as the previous secret
   * until `previousExpiresAt`; false when there is no such app.
   */
  async rotateSecret(clientId: string, secretHash: string, previousExpiresAt: number): Promise<boolean> {
    const result = await this.db
      .updateTable('oauth_clients')
      .set((eb) => ({
        previous_secret_hash: eb.ref('secret_hash'),
        previous_secret_expires_at: previousExpiresAt,
        secret_hash: secretHash,
      }))
      .where('client_id', '=', clientId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** Marks a live app deleted; false when there is none. */
  async markDeleted(clientId: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('oauth_clients')
      .set({ deleted_at: now })
      .where('client_id', '=', clientId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return affected(result) === 1;
  }
}
