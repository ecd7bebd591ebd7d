import type { Db } from '../db/database.js';

export interface OAuthClientsTable {
  client_id: string;
  owner_uuid: number;
  name: string;
  redirect_uris: string;
  dapp: number;
  secret_hash: string;
  created_at: number;
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
}

const toClient = (r: OAuthClientsTable): OAuthClient => ({
  clientId: r.client_id,
  ownerUuid: Number(r.owner_uuid),
  name: r.name,
  redirectUris: JSON.parse(r.redirect_uris) as string[],
  dapp: Number(r.dapp) === 1,
  secretHash: r.secret_hash,
  createdAt: Number(r.created_at),
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
      })
      .execute();
  }

  async findById(clientId: string): Promise<OAuthClient | undefined> {
    const row = await this.db
      .selectFrom('oauth_clients')
      .selectAll()
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return row ? toClient(row) : undefined;
  }

  async listByOwner(ownerUuid: number): Promise<OAuthClient[]> {
    const rows = await this.db
      .selectFrom('oauth_clients')
      .selectAll()
      .where('owner_uuid', '=', ownerUuid)
      .orderBy('created_at')
      .orderBy('client_id')
      .execute();
    return rows.map(toClient);
  }
}
