import { PostgresAdapter, sql } from 'kysely';
import type SQLite from 'better-sqlite3';
import { type Db, nativeSqlite } from '../db/database.js';
import { GroupCommit } from '../db/groupCommit.js';
import { affected } from './kyselyResults.js';

export interface BackendCodesTable {
  code_hash: string;
  client_id: string;
  user_uuid: number;
  slot_id: string;
  redirect_uri: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  grant_id: string | null;
}

declare module '../db/database.js' {
  interface Database {
    backend_codes: BackendCodesTable;
  }
}

/** A backend-integration authorization code as stored: only its hash, never the code itself. */
export interface BackendCode {
  codeHash: string;
  clientId: string;
  userUuid: number;
  slotId: string;
  redirectUri: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | undefined;
  grantId: string | undefined;
}

const toCode = (r: BackendCodesTable): BackendCode => ({
  codeHash: r.code_hash,
  clientId: r.client_id,
  userUuid: Number(r.user_uuid),
  slotId: r.slot_id,
  redirectUri: r.redirect_uri,
  createdAt: Number(r.created_at),
  expiresAt: Number(r.expires_at),
  usedAt: r.used_at === null ? undefined : Number(r.used_at),
  grantId: r.grant_id ?? undefined,
});

const PLAIN_INSERT = `insert into backend_codes
  (code_hash, client_id, user_uuid, slot_id, redirect_uri, created_at, expires_at) values (?, ?, ?, ?, ?, ?, ?)`;
const CHECKED_INSERT = `insert into backend_codes
  (code_hash, client_id, user_uuid, slot_id, redirect_uri, created_at, expires_at)
  select ?, ?, ?, ?, ?, ?, ?
  where exists (select 1 from oauth_clients c where c.client_id = ? and c.deleted_at is null and c.redirect_uris = ?)`;

type NewBackendCode = Omit<BackendCode, 'usedAt' | 'grantId'>;

interface CodeInsert {
  code: NewBackendCode;
  /** The held `redirect_uris` as JSON, when the insert must check them. */
  held: string | undefined;
}

export class BackendCodeStore {
  /** SQLite's better-sqlite3 handle (`nativeSqlite`); undefined on PostgreSQL. */
  readonly #native: SQLite.Database | undefined;
  #plain: SQLite.Statement | undefined;
  #checked: SQLite.Statement | undefined;
  /** The inserts of one event-loop turn in one commit; undefined on a traced SQLite (each commits alone). */
  readonly #inserts: GroupCommit<CodeInsert, boolean> | undefined;

  constructor(private readonly db: Db) {
    const native = nativeSqlite(db);
    this.#native = native;
    if (native) {
      this.#inserts = new GroupCommit<CodeInsert, boolean>({
        all: native.transaction((inserts: readonly CodeInsert[]) => inserts.map((i) => this.#insertNow(i))),
        one: (insert) => (native.inTransaction ? this.#insertWithKysely(insert) : this.#insertNow(insert)),
        ready: () => !native.inTransaction,
      });
    } else if (db.getExecutor().adapter instanceof PostgresAdapter) {
      this.#inserts = new GroupCommit<CodeInsert, boolean>({
        all: (inserts) => this.#insertAllOnPostgres(inserts),
        one: (insert) => this.#insertWithKysely(insert),
      });
    }
  }

  /** How many inserts the group commit has committed, in how many batches (tests, benchmarks). */
  insertBatches(): { batches: number; inserts: number } {
    return { batches: this.#inserts?.batches ?? 0, inserts: this.#inserts?.inputs ?? 0 };
  }

  /**
   * Every authorize writes one: hand-written SQL, since building the query costs about as much as running
   * it. The inserts of one event-loop turn share one commit (`GroupCommit`: each answered only after it):
   * on SQLite one transaction of native statements (no compilation, mutex or promise), on PostgreSQL one
   * statement.
   *
   * `heldRedirectUris`: the app's `redirect_uris` as a cached row said (docs/oauth.md, "The client cache"):
   * the code is written only if the app is live and its stored `redirect_uris` are still exactly those, so a
   * redirect URI removed, or the app deleted, on another replica a moment ago never gets a code. False when
   * that check refused (nothing written).
   */
  async insert(code: NewBackendCode, heldRedirectUris?: readonly string[] | undefined): Promise<boolean> {
    const insert = {
      code,
      held: heldRedirectUris === undefined ? undefined : JSON.stringify(heldRedirectUris),
    };
    return this.#inserts ? this.#inserts.submit(insert) : this.#insertWithKysely(insert);
  }

  /** On the native handle, synchronously: in the caller's transaction if one is open, else committed alone. */
  #insertNow({ code, held }: CodeInsert): boolean {
    const native = this.#native!;
    const args = [code.codeHash, code.clientId, code.userUuid, code.slotId, code.redirectUri];
    const times = [code.createdAt, code.expiresAt];
    if (held === undefined)
      return (this.#plain ??= native.prepare(PLAIN_INSERT)).run(...args, ...times).changes === 1;
    return (
      (this.#checked ??= native.prepare(CHECKED_INSERT)).run(...args, ...times, code.clientId, held)
        .changes === 1
    );
  }

  /**
   * A batch on PostgreSQL as one statement (one round trip, one WAL flush): the inputs as arrays,
   * `unnest`ed into rows, each checked against its held `redirect_uris` as `#insertWithKysely` does. A code
   * hash that exists fails the statement (and the batch is retried one by one).
   */
  async #insertAllOnPostgres(inserts: readonly CodeInsert[]): Promise<boolean[]> {
    const column = <T>(pick: (insert: CodeInsert) => T): T[] => inserts.map(pick);
    const { rows } = await sql<{ code_hash: string }>`insert into backend_codes
        (code_hash, client_id, user_uuid, slot_id, redirect_uri, created_at, expires_at)
      select i.code_hash, i.client_id, i.user_uuid, i.slot_id, i.redirect_uri, i.created_at, i.expires_at
      from unnest(${column((i) => i.code.codeHash)}::text[], ${column((i) => i.code.clientId)}::text[],
        ${column((i) => i.code.userUuid)}::bigint[], ${column((i) => i.code.slotId)}::text[],
        ${column((i) => i.code.redirectUri)}::text[], ${column((i) => i.code.createdAt)}::bigint[],
        ${column((i) => i.code.expiresAt)}::bigint[], ${column((i) => i.held ?? null)}::text[])
        as i(code_hash, client_id, user_uuid, slot_id, redirect_uri, created_at, expires_at, held)
      where i.held is null or exists (select 1 from oauth_clients c
        where c.client_id = i.client_id and c.deleted_at is null and c.redirect_uris = i.held)
      returning code_hash`.execute(this.db);
    const written = new Set(rows.map((row) => row.code_hash));
    return inserts.map((i) => written.has(i.code.codeHash));
  }

  async #insertWithKysely({ code, held }: CodeInsert): Promise<boolean> {
    if (held === undefined) {
      await sql`insert into backend_codes (code_hash, client_id, user_uuid, slot_id, redirect_uri, created_at, expires_at)
        values (${code.codeHash}, ${code.clientId}, ${code.userUuid}, ${code.slotId}, ${code.redirectUri},
          ${code.createdAt}, ${code.expiresAt})`.execute(this.db);
      return true;
    }
    // The casts type the SELECT's parameters for PostgreSQL (which would take them for text).
    const result =
      await sql`insert into backend_codes (code_hash, client_id, user_uuid, slot_id, redirect_uri, created_at, expires_at)
      select ${code.codeHash}, ${code.clientId}, cast(${code.userUuid} as bigint), ${code.slotId}, ${code.redirectUri},
        cast(${code.createdAt} as bigint), cast(${code.expiresAt} as bigint)
      where exists (select 1 from oauth_clients c
                    where c.client_id = ${code.clientId} and c.deleted_at is null and c.redirect_uris = ${held})`.execute(
        this.db,
      );
    return result.numAffectedRows === 1n;
  }

  /**
   * The code as stored. `grantId` (which grant the winning exchange opened, so a replay can revoke
   * it) is written by `OAuthGrantStore.exchangeBackendCode`, in the commit that opens the grant.
   */
  async find(codeHash: string): Promise<BackendCode | undefined> {
    const row = await this.db
      .selectFrom('backend_codes')
      .selectAll()
      .where('code_hash', '=', codeHash)
      .executeTakeFirst();
    return row ? toCode(row) : undefined;
  }

  /**
   * Marks the code used if it is unused and unexpired at `now`: exactly one of any number of
   * concurrent exchanges gets true.
   */
  async consume(codeHash: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('backend_codes')
      .set({ used_at: now })
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** Kills an unused code (its callback could not be delivered): it can never be exchanged. */
  async invalidate(codeHash: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('backend_codes')
      .set({ used_at: now })
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** Deletes codes that expired before `before`; returns how many. */
  async deleteExpired(before: number): Promise<number> {
    const result = await this.db
      .deleteFrom('backend_codes')
      .where('expires_at', '<', before)
      .executeTakeFirst();
    return affected(result);
  }
}
