import type { Db } from '../db/database.js';
import { affected } from './kyselyResults.js';

export interface ServiceAccountsTable {
  client_id: string;
  org_id: string;
  name: string;
  /** Space-separated management scopes. */
  scopes: string;
  secret_hash: string;
  previous_secret_hash: string | null;
  previous_secret_expires_at: number | null;
  created_by: number;
  created_at: number;
  last_used_at: number | null;
  deleted_at: number | null;
}

declare module '../db/database.js' {
  interface Database {
    service_accounts: ServiceAccountsTable;
  }
}

/** An organization's machine client (docs/machines.md); the secret only as its keyed hash. */
export interface ServiceAccount {
  clientId: string;
  orgId: string;
  name: string;
  scopes: string[];
  secretHash: string;
  /** After a rotation: the old secret's hash and until when (ms) it is still accepted. */
  previousSecret?: { hash: string; expiresAt: number } | undefined;
  createdBy: number;
  createdAt: number;
  lastUsedAt: number | undefined;
}

const toAccount = (r: ServiceAccountsTable): ServiceAccount => ({
  clientId: r.client_id,
  orgId: r.org_id,
  name: r.name,
  scopes: r.scopes.split(' ').filter((s) => s.length > 0),
  secretHash: r.secret_hash,
  previousSecret:
    r.previous_secret_hash !== null && r.previous_secret_expires_at !== null
      ? { hash: r.previous_secret_hash, expiresAt: Number(r.previous_secret_expires_at) }
      : undefined,
  createdBy: Number(r.created_by),
  createdAt: Number(r.created_at),
  lastUsedAt: r.last_used_at === null ? undefined : Number(r.last_used_at),
});

export class ServiceAccountStore {
  constructor(private readonly db: Db) {}

  async insert(account: ServiceAccount): Promise<void> {
    await this.db
      .insertInto('service_accounts')
      .values({
        client_id: account.clientId,
        org_id: account.orgId,
        name: account.name,
        scopes: account.scopes.join(' '),
        secret_hash: account.secretHash,
        created_by: account.createdBy,
        created_at: account.createdAt,
      })
      .execute();
  }

  /** A live (not deleted) service account. */
  async findById(clientId: string): Promise<ServiceAccount | undefined> {
    const row = await this.db
      .selectFrom('service_accounts')
      .selectAll()
      .where('client_id', '=', clientId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return row ? toAccount(row) : undefined;
  }

  async listByOrg(orgId: string): Promise<ServiceAccount[]> {
    const rows = await this.db
      .selectFrom('service_accounts')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('deleted_at', 'is', null)
      .orderBy('created_at')
      .orderBy('client_id')
      .execute();
    return rows.map(toAccount);
  }

  /** Replaces the secret of a live account of the org, keeping the old one until `previousExpiresAt`. */
  async rotateSecret(
    orgId: string,
    clientId: string,
    secretHash: string,
    previousExpiresAt: number,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('service_accounts')
      .set((eb) => ({
        previous_secret_hash: eb.ref('secret_hash'),
        previous_secret_expires_at: previousExpiresAt,
        secret_hash: secretHash,
      }))
      .where('client_id', '=', clientId)
      .where('org_id', '=', orgId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** Marks a live account of the org deleted (the row stays for the audit log); false when there is none. */
  async markDeleted(orgId: string, clientId: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('service_accounts')
      .set({ deleted_at: now })
      .where('client_id', '=', clientId)
      .where('org_id', '=', orgId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** Records a token issue; at most one write a minute per account. */
  async noteUse(clientId: string, now: number): Promise<void> {
    await this.db
      .updateTable('service_accounts')
      .set({ last_used_at: now })
      .where('client_id', '=', clientId)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', now - 60_000)]))
      .execute();
  }
}
