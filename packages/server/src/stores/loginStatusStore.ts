import type { Db } from '../db/database.js';
import type { WebhookOutbox } from './webhookStore.js';

export type LoginStatusValue = 'logged_in' | 'logged_out';

export interface OAuthLoginStatusTable {
  user_uuid: number;
  client_id: string;
  status: LoginStatusValue;
  updated_at: number;
}

declare module '../db/database.js' {
  interface Database {
    oauth_login_status: OAuthLoginStatusTable;
  }
}

export interface StoredLoginStatus {
  userUuid: number;
  clientId: string;
  status: LoginStatusValue;
  updatedAt: number;
}

/** The login status of a user's OAuth rights per app (one row per user and app once set). */
export class LoginStatusStore {
  /** `outbox`: a change of status writes `status.changed` for the app in the same transaction. */
  constructor(
    private readonly db: Db,
    private readonly outbox?: WebhookOutbox,
  ) {}

  async find(userUuid: number, clientId: string): Promise<StoredLoginStatus | undefined> {
    const row = await this.db
      .selectFrom('oauth_login_status')
      .selectAll()
      .where('user_uuid', '=', userUuid)
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return row
      ? {
          userUuid: Number(row.user_uuid),
          clientId: row.client_id,
          status: row.status,
          updatedAt: Number(row.updated_at),
        }
      : undefined;
  }

  /** Sets the status (insert or overwrite) and returns what is now stored. */
  async upsert(entry: StoredLoginStatus): Promise<StoredLoginStatus> {
    const outbox = this.outbox;
    if (!outbox) return this.#upsert(this.db, entry);
    return this.db.transaction().execute(async (trx) => {
      const before = await trx
        .selectFrom('oauth_login_status')
        .select('status')
        .where('user_uuid', '=', entry.userUuid)
        .where('client_id', '=', entry.clientId)
        .executeTakeFirst();
      await this.#upsert(trx, entry);
      if (before?.status !== entry.status) {
        await outbox.record(trx, {
          type: 'status.changed',
          clientId: entry.clientId,
          data: { user_id: String(entry.userUuid), status: entry.status, previous: before?.status ?? null },
          at: entry.updatedAt,
        });
      }
      return entry;
    });
  }

  async #upsert(db: Db, entry: StoredLoginStatus): Promise<StoredLoginStatus> {
    await db
      .insertInto('oauth_login_status')
      .values({
        user_uuid: entry.userUuid,
        client_id: entry.clientId,
        status: entry.status,
        updated_at: entry.updatedAt,
      })
      .onConflict((oc) =>
        oc
          .columns(['user_uuid', 'client_id'])
          .doUpdateSet({ status: entry.status, updated_at: entry.updatedAt }),
      )
      .execute();
    return entry;
  }
}
