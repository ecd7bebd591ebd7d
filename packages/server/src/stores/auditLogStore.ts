import type SQLite from 'better-sqlite3';
import { type Db, nativeSqlite } from '../db/database.js';
import { GroupCommit } from '../db/groupCommit.js';

export type AuditOutcome = 'success' | 'denied' | 'failure';
export type AuditActorKind = 'user' | 'app' | 'admin' | 'anonymous';

export interface AuditLogTable {
  id: string;
  at: number;
  seq: number;
  action: string;
  outcome: AuditOutcome;
  status: number;
  error_code: string | null;
  actor_kind: AuditActorKind;
  actor_user: string | null;
  client_id: string | null;
  address: string;
  request_id: string;
  details: string;
}

declare module '../db/database.js' {
  interface Database {
    audit_log: AuditLogTable;
  }
}

export interface AuditEntry {
  id: string;
  at: number;
  action: string;
  outcome: AuditOutcome;
  status: number;
  errorCode: string | undefined;
  actorKind: AuditActorKind;
  actorUser: string | undefined;
  clientId: string | undefined;
  address: string;
  requestId: string;
  details: Record<string, unknown>;
}

export interface AuditFilter {
  action?: string;
  actorUser?: string;
  clientId?: string;
  outcome?: AuditOutcome;
  /** Inclusive bounds in ms. */
  from?: number;
  to?: number;
  /** Entries strictly older than this cursor (from a previous page). */
  before?: { at: number; seq: number };
  limit: number;
}

const COLUMNS = [
  'id',
  'at',
  'seq',
  'action',
  'outcome',
  'status',
  'error_code',
  'actor_kind',
  'actor_user',
  'client_id',
  'address',
  'request_id',
  'details',
] as const;

const NATIVE_INSERT = `insert into audit_log (${COLUMNS.join(', ')}) values (${COLUMNS.map(() => '?').join(', ')})`;

const rowOf = (entry: AuditEntry, seq: number): AuditLogTable => ({
  id: entry.id,
  at: entry.at,
  seq,
  action: entry.action,
  outcome: entry.outcome,
  status: entry.status,
  error_code: entry.errorCode ?? null,
  actor_kind: entry.actorKind,
  actor_user: entry.actorUser ?? null,
  client_id: entry.clientId ?? null,
  address: entry.address,
  request_id: entry.requestId,
  details: JSON.stringify(entry.details),
});

/**
 * The append-only `audit_log` table (the migration's triggers refuse UPDATE and DELETE).
 *
 * Entries are appended by group commit (`db/groupCommit.ts`): those of one event-loop turn in one
 * transaction. An entry is written after its request has answered (`http/auditRecorder.ts`), so batching
 * moves no answer later and loses nothing an answer promised. What it saves is the commit of each entry
 * (five B-trees: the table, its id and three indexes): an entry took 100–115 µs of an MFA step's ≈ 1.1 ms
 * under load, and in-process 78 µs alone against 38 µs each at four a turn (docs/mfa.md, round 4).
 */
export class AuditLogStore {
  readonly #appends: GroupCommit<AuditLogTable, void>;

  constructor(private readonly db: Db) {
    this.#appends = this.#groupCommit(nativeSqlite(db));
  }

  /** Resolves once the entry is committed (with the other entries of its turn). */
  append(entry: AuditEntry, seq: number): Promise<void> {
    return this.#appends.submit(rowOf(entry, seq));
  }

  /** Batches committed together and the entries in them, since the store was made (tests, benchmarks). */
  appendStats(): { batches: number; entries: number } {
    return { batches: this.#appends.batches, entries: this.#appends.inputs };
  }

  #groupCommit(native: SQLite.Database | undefined): GroupCommit<AuditLogTable, void> {
    const one = async (row: AuditLogTable) =>
      void (await this.db.insertInto('audit_log').values(row).execute());
    if (!native) {
      // PostgreSQL (and SQLite with traced statements): one multi-row INSERT, atomic as one statement.
      return new GroupCommit<AuditLogTable, void>({
        all: async (rows) => {
          await this.db
            .insertInto('audit_log')
            .values([...rows])
            .execute();
          return rows.map(() => undefined);
        },
        one,
      });
    }
    let insertAll: ((rows: readonly AuditLogTable[]) => void) | undefined;
    return new GroupCommit<AuditLogTable, void>({
      all: (rows) => {
        insertAll ??= native.transaction((all: readonly AuditLogTable[]) => {
          const insert = native.prepare(NATIVE_INSERT);
          for (const row of all) insert.run(COLUMNS.map((column) => row[column]));
        });
        insertAll(rows);
        return rows.map(() => undefined);
      },
      one,
      // A Kysely transaction holds SQLite's one connection across awaits: wait for it (`one`).
      ready: () => !native.inTransaction,
    });
  }

  /** Newest first. */
  async list(filter: AuditFilter): Promise<(AuditEntry & { seq: number })[]> {
    let query = this.db.selectFrom('audit_log').selectAll();
    if (filter.action) query = query.where('action', '=', filter.action);
    if (filter.actorUser) query = query.where('actor_user', '=', filter.actorUser);
    if (filter.clientId) query = query.where('client_id', '=', filter.clientId);
    if (filter.outcome) query = query.where('outcome', '=', filter.outcome);
    if (filter.from !== undefined) query = query.where('at', '>=', filter.from);
    if (filter.to !== undefined) query = query.where('at', '<=', filter.to);
    const before = filter.before;
    if (before) {
      query = query.where((eb) =>
        eb.or([eb('at', '<', before.at), eb.and([eb('at', '=', before.at), eb('seq', '<', before.seq)])]),
      );
    }
    const rows = await query.orderBy('at', 'desc').orderBy('seq', 'desc').limit(filter.limit).execute();
    return rows.map((r) => ({
      id: r.id,
      at: Number(r.at),
      seq: Number(r.seq),
      action: r.action,
      outcome: r.outcome,
      status: Number(r.status),
      errorCode: r.error_code ?? undefined,
      actorKind: r.actor_kind,
      actorUser: r.actor_user ?? undefined,
      clientId: r.client_id ?? undefined,
      address: r.address,
      requestId: r.request_id,
      details: JSON.parse(r.details) as Record<string, unknown>,
    }));
  }
}
