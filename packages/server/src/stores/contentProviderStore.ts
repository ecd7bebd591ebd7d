import type { Db } from '../db/database.js';
import { affected } from './kyselyResults.js';

/** Which payload forms a provider's consumption calls may use. */
export type PayloadMode = 'ctr' | 'ctr+gcm' | 'gcm';
/** How a consumption call proves its sender: `none` (spec: the payload alone) or the app's HTTP Basic credentials. */
export type ConsumeAuth = 'none' | 'client_secret';
export type ProviderState = 'registering' | 'registered';

export interface ContentClientKeysTable {
  client_id: string;
  ctr_secret_sealed: string;
  gcm_key_sealed: string | null;
  payload_mode: PayloadMode;
  consume_auth: ConsumeAuth;
  created_at: number;
  updated_at: number;
}

export interface ContentProvidersTable {
  cuid: string;
  client_id: string;
  release_per: number;
  owner_addr: string;
  state: ProviderState;
  tx_hash: string | null;
  /** 1 once the platform enabled release: `release_per` / `owner_addr` change only by admin approval. */
  terms_frozen: number;
  created_at: number;
  updated_at: number;
}

/** One admin-approved change of settlement terms (usage before it was paid at the previous terms). */
export interface ContentTermsChangesTable {
  id: string;
  cuid: string;
  previous_release_per: number;
  previous_owner_addr: string;
  release_per: number;
  owner_addr: string;
  tx_hash: string;
  applied_at: number;
}

declare module '../db/database.js' {
  interface Database {
    content_client_keys: ContentClientKeysTable;
    content_providers: ContentProvidersTable;
    content_terms_changes: ContentTermsChangesTable;
  }
}

/** One OAuth client's payload secrets, still sealed under MASTER_KEY. */
export interface SealedClientKeys {
  clientId: string;
  ctrSecretSealed: string;
  gcmKeySealed: string | undefined;
  payloadMode: PayloadMode;
  consumeAuth: ConsumeAuth;
  createdAt: number;
  updatedAt: number;
}

export interface ProviderRecord {
  cuid: string;
  clientId: string;
  releasePer: number;
  ownerAddr: `0x${string}`;
  state: ProviderState;
  txHash: string | undefined;
  termsFrozen: boolean;
  createdAt: number;
  updatedAt: number;
}

const toKeys = (r: ContentClientKeysTable): SealedClientKeys => ({
  clientId: r.client_id,
  ctrSecretSealed: r.ctr_secret_sealed,
  gcmKeySealed: r.gcm_key_sealed ?? undefined,
  payloadMode: r.payload_mode,
  consumeAuth: r.consume_auth === 'client_secret' ? 'client_secret' : 'none',
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

const toProvider = (r: ContentProvidersTable): ProviderRecord => ({
  cuid: r.cuid,
  clientId: r.client_id,
  releasePer: Number(r.release_per),
  ownerAddr: r.owner_addr as `0x${string}`,
  state: r.state,
  txHash: r.tx_hash ?? undefined,
  termsFrozen: Number(r.terms_frozen ?? 0) === 1,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

/**
 * Content-token providers: the sealed payload secrets of each OAuth client (one pair per client) and the
 * cuid registrations (one client per cuid, settled by the primary key).
 */
export class ContentProviderStore {
  constructor(private readonly db: Db) {}

  async findClientKeys(clientId: string): Promise<SealedClientKeys | undefined> {
    const row = await this.db
      .selectFrom('content_client_keys')
      .selectAll()
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return row ? toKeys(row) : undefined;
  }

  /** Every client's keys changed at or after `sinceMs` (all when 0), oldest change first. */
  async listClientKeys(sinceMs = 0): Promise<SealedClientKeys[]> {
    const rows = await this.db
      .selectFrom('content_client_keys')
      .selectAll()
      .where('updated_at', '>=', sinceMs)
      .orderBy('updated_at')
      .execute();
    return rows.map(toKeys);
  }

  /** Stores a client's first key pair; false when the client already has one (a concurrent first registration won). */
  async insertClientKeys(keys: SealedClientKeys): Promise<boolean> {
    const result = await this.db
      .insertInto('content_client_keys')
      .values({
        client_id: keys.clientId,
        ctr_secret_sealed: keys.ctrSecretSealed,
        gcm_key_sealed: keys.gcmKeySealed ?? null,
        payload_mode: keys.payloadMode,
        consume_auth: keys.consumeAuth,
        created_at: keys.createdAt,
        updated_at: keys.updatedAt,
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  /** Stores the GCM key if the client has none yet; false when one exists already. */
  async setGcmKeyIfAbsent(clientId: string, gcmKeySealed: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('content_client_keys')
      .set({ gcm_key_sealed: gcmKeySealed, updated_at: now })
      .where('client_id', '=', clientId)
      .where('gcm_key_sealed', 'is', null)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  async setPayloadMode(clientId: string, mode: PayloadMode, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('content_client_keys')
      .set({ payload_mode: mode, updated_at: now })
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  async setConsumeAuth(clientId: string, consumeAuth: ConsumeAuth, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('content_client_keys')
      .set({ consume_auth: consumeAuth, updated_at: now })
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  async findProvider(cuid: string): Promise<ProviderRecord | undefined> {
    const row = await this.db
      .selectFrom('content_providers')
      .selectAll()
      .where('cuid', '=', cuid)
      .executeTakeFirst();
    return row ? toProvider(row) : undefined;
  }

  async listProvidersByClient(clientId: string): Promise<ProviderRecord[]> {
    const rows = await this.db
      .selectFrom('content_providers')
      .selectAll()
      .where('client_id', '=', clientId)
      .orderBy('created_at')
      .orderBy('cuid')
      .execute();
    return rows.map(toProvider);
  }

  /** Claims a cuid for a client (state `registering`); false when any client holds it already. */
  async claim(provider: Omit<ProviderRecord, 'termsFrozen'>): Promise<boolean> {
    const result = await this.db
      .insertInto('content_providers')
      .values({
        cuid: provider.cuid,
        client_id: provider.clientId,
        release_per: provider.releasePer,
        owner_addr: provider.ownerAddr,
        state: provider.state,
        tx_hash: provider.txHash ?? null,
        terms_frozen: 0,
        created_at: provider.createdAt,
        updated_at: provider.updatedAt,
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  /** Takes over a claim another client left in `registering` since `since` (its chain step never completed). */
  async takeOverStaleClaim(cuid: string, since: number, clientId: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('content_providers')
      .set({ client_id: clientId, created_at: now, updated_at: now })
      .where('cuid', '=', cuid)
      .where('state', '=', 'registering')
      .where('updated_at', '=', since)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** Records a confirmed on-chain registration (first or updated terms) of a cuid its client holds. */
  async markRegistered(
    cuid: string,
    clientId: string,
    terms: { releasePer: number; ownerAddr: string; txHash: string },
    now: number,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('content_providers')
      .set({
        state: 'registered',
        release_per: terms.releasePer,
        owner_addr: terms.ownerAddr,
        tx_hash: terms.txHash,
        updated_at: now,
      })
      .where('cuid', '=', cuid)
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** Freezes the cuid's settlement terms (release was enabled); for good. */
  async freezeTerms(cuid: string, now: number): Promise<void> {
    await this.db
      .updateTable('content_providers')
      .set({ terms_frozen: 1, updated_at: now })
      .where('cuid', '=', cuid)
      .execute();
  }

  /** Records an admin-approved change of terms and the provider's new terms, in one transaction. */
  async recordTermsChange(change: {
    id: string;
    cuid: string;
    clientId: string;
    previous: { releasePer: number; ownerAddr: string };
    next: { releasePer: number; ownerAddr: string };
    txHash: string;
    appliedAt: number;
  }): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('content_terms_changes')
        .values({
          id: change.id,
          cuid: change.cuid,
          previous_release_per: change.previous.releasePer,
          previous_owner_addr: change.previous.ownerAddr,
          release_per: change.next.releasePer,
          owner_addr: change.next.ownerAddr,
          tx_hash: change.txHash,
          applied_at: change.appliedAt,
        })
        .execute();
      await trx
        .updateTable('content_providers')
        .set({
          release_per: change.next.releasePer,
          owner_addr: change.next.ownerAddr,
          tx_hash: change.txHash,
          updated_at: change.appliedAt,
        })
        .where('cuid', '=', change.cuid)
        .where('client_id', '=', change.clientId)
        .execute();
    });
  }

  /** Removes a claim that never reached the chain (created by this call at `createdAt`). */
  async releaseClaim(cuid: string, clientId: string, createdAt: number): Promise<void> {
    await this.db
      .deleteFrom('content_providers')
      .where('cuid', '=', cuid)
      .where('client_id', '=', clientId)
      .where('state', '=', 'registering')
      .where('created_at', '=', createdAt)
      .execute();
  }
}
