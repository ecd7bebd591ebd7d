import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { type ContentPurchase, contentPurchasesOf, exactAmountSum } from './contentPurchases.js';

/** One player of an app, as the directory lists them: from the app's live grants. */
export interface PlayerRow {
  userUuid: number;
  /** The player's first live grant to the app (ms). */
  createdAt: number;
  /** The last use of any of those grants (a refresh), else their newest issue (ms). */
  lastSeenAt: number;
  /** One of the grants has the `email` scope: the directory may show the address. */
  emailScope: boolean;
}

/** What the directory adds to a player from their account. */
export interface PlayerProfile {
  userUuid: number;
  email: string | null;
  guest: boolean;
  walletAddress: string | null;
}

export type PlayerPurchase = ContentPurchase;

export interface PlayerConsumption {
  cuid: string;
  records: number;
  /** Content-token units, a decimal string. */
  amount: string;
}

/**
 * The players directory (decisions §9, docs/players.md): a read-only view of an app's players over
 * `oauth_grants` (who granted the app, walked by the `(client_id, user_uuid)` index in uuid order, so a
 * page is an index range and the cursor is the last uuid), `users`, `guest_accounts` and `wallets`
 * (the profile), `audit_log` and `content_usage` (a player's purchases and consumption). It owns no table.
 */
export class PlayerDirectoryStore {
  constructor(private readonly db: Db) {}

  /**
   * The app's players with a live grant, in uuid order after `afterUuid`, at most `limit`; with
   * `userUuid` only that player (when they have one).
   */
  async players(
    clientId: string,
    page: { afterUuid?: number | undefined; limit: number; userUuid?: number | undefined },
  ): Promise<PlayerRow[]> {
    let query = this.db
      .selectFrom('oauth_grants')
      .select((eb) => [
        'user_uuid',
        eb.fn.min('created_at').as('created_at'),
        eb.fn.max(eb.fn.coalesce('last_used_at', 'created_at')).as('last_seen_at'),
        eb.fn
          .max(sql<number>`case when (' ' || coalesce(scope, '') || ' ') like '% email %' then 1 else 0 end`)
          .as('email_scope'),
      ])
      .where('client_id', '=', clientId)
      .where('revoked_at', 'is', null);
    if (page.userUuid !== undefined) query = query.where('user_uuid', '=', page.userUuid);
    if (page.afterUuid !== undefined) query = query.where('user_uuid', '>', page.afterUuid);
    const rows = await query.groupBy('user_uuid').orderBy('user_uuid').limit(page.limit).execute();
    return rows.map((r) => ({
      userUuid: Number(r.user_uuid),
      createdAt: Number(r.created_at),
      lastSeenAt: Number(r.last_seen_at),
      emailScope: Number(r.email_scope) === 1,
    }));
  }

  /** E-mail, guest flag and main wallet of each of `uuids` (absent when the account is gone). */
  async profiles(uuids: readonly number[]): Promise<Map<number, PlayerProfile>> {
    const found = new Map<number, PlayerProfile>();
    if (uuids.length === 0) return found;
    const rows = await this.db
      .selectFrom('users')
      .leftJoin('guest_accounts', 'guest_accounts.user_uuid', 'users.user_uuid')
      .leftJoin('wallets', (join) =>
        join.onRef('wallets.user_uuid', '=', 'users.user_uuid').on('wallets.kind', '=', 'main'),
      )
      .select([
        'users.user_uuid as user_uuid',
        'users.email as email',
        'guest_accounts.user_uuid as guest_uuid',
        'wallets.address as wallet_address',
      ])
      .where('users.user_uuid', 'in', [...uuids])
      .execute();
    for (const r of rows) {
      const userUuid = Number(r.user_uuid);
      found.set(userUuid, {
        userUuid,
        email: r.email,
        guest: r.guest_uuid !== null,
        walletAddress: r.wallet_address ?? null,
      });
    }
    return found;
  }

  /** The account registered with this (normalised) e-mail. */
  async userByEmail(email: string): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('users')
      .select('user_uuid')
      .where('email', '=', email)
      .executeTakeFirst();
    return row ? Number(row.user_uuid) : undefined;
  }

  /** The owner of this main wallet (the address as stored: EIP-55). */
  async userByWallet(address: string): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('wallets')
      .select('user_uuid')
      .where('address', '=', address)
      .where('kind', '=', 'main')
      .executeTakeFirst();
    return row ? Number(row.user_uuid) : undefined;
  }

  /** The player's successful content purchases in the app, newest first (at most `limit`). */
  async purchases(clientId: string, userUuid: number, limit: number): Promise<PlayerPurchase[]> {
    const rows = await this.db
      .selectFrom('audit_log')
      .select(['at', 'details'])
      .where('actor_user', '=', String(userUuid))
      .where('action', '=', 'content.purchase')
      .where('outcome', '=', 'success')
      .where('client_id', '=', clientId)
      .orderBy('at', 'desc')
      .limit(limit)
      .execute();
    return contentPurchasesOf(rows);
  }

  /** The player's accepted consumptions in the app per cuid (over the slots they own), summed exactly. */
  async consumption(clientId: string, userUuid: number): Promise<PlayerConsumption[]> {
    const total = exactAmountSum(this.db, 'u.amount');
    const { rows } = await sql<{ cuid: string; n: number | string; total: string | null }>`
      select u.cuid as cuid, count(*) as n, ${total} as total
      from content_usage u join slots s on s.id = u.slot_id
      where u.client_id = ${clientId} and s.owner_uuid = ${userUuid} and u.state <> 'failed'
      group by u.cuid order by u.cuid`.execute(this.db);
    return rows.map((r) => ({ cuid: r.cuid, records: Number(r.n), amount: String(r.total ?? '0') }));
  }
}
