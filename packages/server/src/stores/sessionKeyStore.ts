import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { affected } from './kyselyResults.js';
import type { OutboxEvent, WebhookOutbox } from './webhookStore.js';

export interface WalletPoliciesTable {
  client_id: string;
  policy: string;
  updated_at: number;
}

export interface SessionAccountsTable {
  wallet_address: string;
  user_uuid: number;
  account_address: string;
  state: string;
  tx_hash: string | null;
  created_at: number;
}

export interface SessionKeysTable {
  key_address: string;
  user_uuid: number;
  client_id: string;
  wallet_address: string;
  account_address: string;
  key_sealed: string;
  policy: string;
  valid_until: number;
  state: string;
  tx_hash: string | null;
  created_at: number;
  revoked_at: number | null;
  revoke_reason: string | null;
  revoke_tx_hash: string | null;
}

declare module '../db/database.js' {
  interface Database {
    wallet_policies: WalletPoliciesTable;
    session_accounts: SessionAccountsTable;
    session_keys: SessionKeysTable;
  }
}

/** An app's wallet policy as the API shows it (addresses checksummed, amounts decimal strings). */
export interface WalletPolicy {
  calls: { to: string; selectors: string[] }[];
  max_value_per_call_wei: string;
  max_value_per_day_wei: string;
  token_limits: { token: string; per_day: string }[];
  valid_for_seconds: number;
}

export interface StoredWalletPolicy {
  clientId: string;
  policy: WalletPolicy;
  updatedAt: number;
}

export type SessionAccountState = 'pending' | 'active';

export interface SessionAccountRecord {
  walletAddress: string;
  userUuid: number;
  accountAddress: string;
  state: SessionAccountState;
  txHash: string | undefined;
  createdAt: number;
}

export type SessionKeyState = 'pending' | 'active' | 'revoking' | 'revoked' | 'failed';

export interface SessionKeyRecord {
  keyAddress: string;
  userUuid: number;
  clientId: string;
  walletAddress: string;
  accountAddress: string;
  keySealed: string;
  policy: WalletPolicy;
  /** Unix seconds. */
  validUntil: number;
  state: SessionKeyState;
  txHash: string | undefined;
  createdAt: number;
  revokedAt: number | undefined;
  revokeReason: string | undefined;
  revokeTxHash: string | undefined;
}

const toAccount = (r: SessionAccountsTable): SessionAccountRecord => ({
  walletAddress: r.wallet_address,
  userUuid: Number(r.user_uuid),
  accountAddress: r.account_address,
  state: r.state as SessionAccountState,
  txHash: r.tx_hash ?? undefined,
  createdAt: Number(r.created_at),
});

const toKey = (r: SessionKeysTable): SessionKeyRecord => ({
  keyAddress: r.key_address,
  userUuid: Number(r.user_uuid),
  clientId: r.client_id,
  walletAddress: r.wallet_address,
  accountAddress: r.account_address,
  keySealed: r.key_sealed,
  policy: JSON.parse(r.policy) as WalletPolicy,
  validUntil: Number(r.valid_until),
  state: r.state as SessionKeyState,
  txHash: r.tx_hash ?? undefined,
  createdAt: Number(r.created_at),
  revokedAt: r.revoked_at == null ? undefined : Number(r.revoked_at),
  revokeReason: r.revoke_reason ?? undefined,
  revokeTxHash: r.revoke_tx_hash ?? undefined,
});

const lower = (a: string) => a.toLowerCase();

/**
 * The webhook data of `session_key.granted` / `session_key.revoked` (docs/webhooks.md). `checksum` gives the
 * key's address the form `/v1/wallet/session-keys` returns (the table keeps it lowercase for lookups).
 */
export const sessionKeyEvent = (
  type: 'session_key.granted' | 'session_key.revoked',
  key: Pick<SessionKeyRecord, 'clientId' | 'userUuid' | 'keyAddress' | 'validUntil'>,
  txHash: string | undefined,
  at: number,
  checksum: (address: string) => string,
): OutboxEvent => ({
  type,
  clientId: key.clientId,
  data: {
    user_uuid: String(key.userUuid),
    session_key: checksum(key.keyAddress),
    valid_until: new Date(key.validUntil * 1000).toISOString(),
    tx_hash: txHash ?? null,
  },
  orderKey: `session_key:${key.userUuid}:${key.clientId}`,
  at,
});

/**
 * Wallet policies, session accounts and session keys (docs/session-keys.md). Every state change of a key
 * writes its webhook event in the same transaction (`outbox`).
 */
export class SessionKeyStore {
  constructor(
    private readonly db: Db,
    private readonly outbox?: WebhookOutbox,
    /** EIP-55 for the addresses in webhook events (chain/address.ts, given by the composition root). */
    private readonly checksum: (address: string) => string = (address) => address,
  ) {}

  // ---- wallet policies ----

  async putPolicy(clientId: string, policy: WalletPolicy, now: number): Promise<StoredWalletPolicy> {
    const text = JSON.stringify(policy);
    const updated = await this.db
      .updateTable('wallet_policies')
      .set({ policy: text, updated_at: now })
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    if (affected(updated) === 0) {
      await this.db
        .insertInto('wallet_policies')
        .values({ client_id: clientId, policy: text, updated_at: now })
        .onConflict((oc) => oc.column('client_id').doUpdateSet({ policy: text, updated_at: now }))
        .execute();
    }
    return { clientId, policy, updatedAt: now };
  }

  async findPolicy(clientId: string): Promise<StoredWalletPolicy | undefined> {
    const row = await this.db
      .selectFrom('wallet_policies')
      .selectAll()
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return row
      ? { clientId, policy: JSON.parse(row.policy) as WalletPolicy, updatedAt: Number(row.updated_at) }
      : undefined;
  }

  async deletePolicy(clientId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('wallet_policies')
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  // ---- session accounts ----

  async findAccount(walletAddress: string): Promise<SessionAccountRecord | undefined> {
    const row = await this.db
      .selectFrom('session_accounts')
      .selectAll()
      .where('wallet_address', '=', lower(walletAddress))
      .executeTakeFirst();
    return row ? toAccount(row) : undefined;
  }

  async findAccountByAddress(accountAddress: string): Promise<SessionAccountRecord | undefined> {
    const row = await this.db
      .selectFrom('session_accounts')
      .selectAll()
      .where('account_address', '=', lower(accountAddress))
      .executeTakeFirst();
    return row ? toAccount(row) : undefined;
  }

  /**
   * Records the intent to hand `walletAddress` to `accountAddress` before the operation that does it. A
   * pending record is replaced (the owner key changed in between, so the account's address did); an active
   * one is kept. Answers the record now stored.
   */
  async recordPendingAccount(
    walletAddress: string,
    userUuid: number,
    accountAddress: string,
    now: number,
  ): Promise<SessionAccountRecord> {
    await this.db
      .deleteFrom('session_accounts')
      .where('wallet_address', '=', lower(walletAddress))
      .where('state', '=', 'pending')
      .execute();
    await this.db
      .insertInto('session_accounts')
      .values({
        wallet_address: lower(walletAddress),
        user_uuid: userUuid,
        account_address: lower(accountAddress),
        state: 'pending',
        tx_hash: null,
        created_at: now,
      })
      .onConflict((oc) => oc.column('wallet_address').doNothing())
      .execute();
    return (await this.findAccount(walletAddress))!;
  }

  /** The wallet's on-chain owner is now the session account. */
  async activateAccount(walletAddress: string, txHash: string | undefined): Promise<void> {
    await this.db
      .updateTable('session_accounts')
      .set({ state: 'active', ...(txHash ? { tx_hash: txHash } : {}) })
      .where('wallet_address', '=', lower(walletAddress))
      .where('state', '=', 'pending')
      .execute();
  }

  // ---- session keys ----

  /** A fresh key, sealed, written before the operation that registers it on chain. */
  async insertPendingKey(
    key: Omit<SessionKeyRecord, 'state' | 'txHash' | 'revokedAt' | 'revokeReason' | 'revokeTxHash'>,
  ): Promise<void> {
    await this.db
      .insertInto('session_keys')
      .values({
        key_address: lower(key.keyAddress),
        user_uuid: key.userUuid,
        client_id: key.clientId,
        wallet_address: lower(key.walletAddress),
        account_address: lower(key.accountAddress),
        key_sealed: key.keySealed,
        policy: JSON.stringify(key.policy),
        valid_until: key.validUntil,
        state: 'pending',
        tx_hash: null,
        created_at: key.createdAt,
        revoked_at: null,
        revoke_reason: null,
        revoke_tx_hash: null,
      })
      .execute();
  }

  /**
   * The key is registered on chain: active, and `replaced` (revoked in the same operation) revoked, with
   * their `session_key.granted` / `session_key.revoked` events, in one transaction.
   */
  async activateKey(
    keyAddress: string,
    txHash: string | undefined,
    now: number,
    replaced: readonly string[] = [],
  ): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const row = await trx
        .updateTable('session_keys')
        .set({ state: 'active', tx_hash: txHash || null })
        .where('key_address', '=', lower(keyAddress))
        .where('state', '=', 'pending')
        .returningAll()
        .executeTakeFirst();
      if (!row) return;
      await this.outbox?.record(
        trx,
        sessionKeyEvent('session_key.granted', toKey(row), txHash, now, this.checksum),
      );
      for (const old of replaced) {
        const gone = await trx
          .updateTable('session_keys')
          .set({
            state: 'revoked',
            revoked_at: now,
            revoke_reason: 'replaced',
            revoke_tx_hash: txHash || null,
          })
          .where('key_address', '=', lower(old))
          .where('state', 'in', ['active', 'revoking'])
          .returningAll()
          .executeTakeFirst();
        if (gone)
          await this.outbox?.record(
            trx,
            sessionKeyEvent('session_key.revoked', toKey(gone), txHash, now, this.checksum),
          );
      }
    });
  }

  /** The registering operation never ran (nothing on chain): the sealed key is dropped. */
  async failKey(keyAddress: string): Promise<void> {
    await this.db
      .updateTable('session_keys')
      .set({ state: 'failed', key_sealed: '' })
      .where('key_address', '=', lower(keyAddress))
      .where('state', '=', 'pending')
      .execute();
  }

  async findKey(keyAddress: string): Promise<SessionKeyRecord | undefined> {
    const row = await this.db
      .selectFrom('session_keys')
      .selectAll()
      .where('key_address', '=', lower(keyAddress))
      .executeTakeFirst();
    return row ? toKey(row) : undefined;
  }

  /** The user's keys for `clientId` in `states` (newest first). */
  async keysOf(userUuid: number, clientId: string, states: SessionKeyState[]): Promise<SessionKeyRecord[]> {
    const rows = await this.db
      .selectFrom('session_keys')
      .selectAll()
      .where('user_uuid', '=', userUuid)
      .where('client_id', '=', clientId)
      .where('state', 'in', states)
      .orderBy('created_at', 'desc')
      .execute();
    return rows.map(toKey);
  }

  /** Every active key of the user (one per app at most). */
  async activeKeysOfUser(userUuid: number): Promise<SessionKeyRecord[]> {
    const rows = await this.db
      .selectFrom('session_keys')
      .selectAll()
      .where('user_uuid', '=', userUuid)
      .where('state', '=', 'active')
      .orderBy('created_at', 'asc')
      .execute();
    return rows.map(toKey);
  }

  /**
   * Marks active keys for revocation by the background sweep ('revoking'): the user's key for `clientId`,
   * or every key of the user. Answers the keys marked. Off chain they stop working at once.
   */
  async markRevoking(
    userUuid: number,
    clientId: string | undefined,
    reason: string,
  ): Promise<SessionKeyRecord[]> {
    let q = this.db
      .updateTable('session_keys')
      .set({ state: 'revoking', revoke_reason: reason.slice(0, 40) })
      .where('user_uuid', '=', userUuid)
      .where('state', '=', 'active');
    if (clientId !== undefined) q = q.where('client_id', '=', clientId);
    const rows = await q.returningAll().execute();
    return rows.map(toKey);
  }

  /** The key is revoked on chain (or was never usable again): revoked, with `session_key.revoked`. */
  async markRevoked(
    keyAddress: string,
    txHash: string | undefined,
    reason: string,
    now: number,
  ): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .updateTable('session_keys')
        .set({
          state: 'revoked',
          revoked_at: now,
          revoke_tx_hash: txHash ?? null,
          revoke_reason: sql<string>`coalesce(revoke_reason, ${reason.slice(0, 40)})`,
        })
        .where('key_address', '=', lower(keyAddress))
        .where('state', 'in', ['active', 'revoking'])
        .returningAll()
        .executeTakeFirst();
      if (!row) return false;
      await this.outbox?.record(
        trx,
        sessionKeyEvent('session_key.revoked', toKey(row), txHash, now, this.checksum),
      );
      return true;
    });
  }

  /**
   * What the background sweep must revoke on chain: keys marked 'revoking', and active keys whose app grant
   * is gone (the player revoked the app, a password reset ended the grants, the app was deleted) — read
   * from the grants themselves, so a crash between the grant's revocation and the mark loses nothing.
   */
  async keysToRevoke(limit = 200): Promise<SessionKeyRecord[]> {
    const rows = await this.db
      .selectFrom('session_keys as k')
      .selectAll('k')
      .where((eb) =>
        eb.or([
          eb('k.state', '=', 'revoking'),
          eb.and([
            eb('k.state', '=', 'active'),
            eb.not(
              eb.exists(
                eb
                  .selectFrom('oauth_grants as g')
                  .select('g.grant_id')
                  .whereRef('g.user_uuid', '=', 'k.user_uuid')
                  .whereRef('g.client_id', '=', 'k.client_id')
                  .where('g.revoked_at', 'is', null),
              ),
            ),
          ]),
        ]),
      )
      .limit(limit)
      .execute();
    return rows.map(toKey);
  }
}
