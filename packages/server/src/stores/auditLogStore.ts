import type { Db } from '../db/database.js';

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

/** The append-only `audit_log` table (the migration's triggers refuse UPDATE and DELETE). */
export class AuditLogStore {
  constructor(private readonly db: Db) {}

  async append(entry: AuditEntry, seq: number): Promise<void> {
    await this.db
      .insertInto('audit_log')
      .values({
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
      })
      .execute();
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
