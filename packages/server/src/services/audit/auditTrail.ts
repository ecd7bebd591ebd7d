import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { badRequest } from '../../errors.js';
import type { AuditEntry, AuditFilter, AuditLogStore } from '../../stores/auditLogStore.js';

export type { AuditActorKind, AuditEntry, AuditOutcome } from '../../stores/auditLogStore.js';
export type AuditRecord = Omit<AuditEntry, 'id' | 'at'>;

export interface AuditPage {
  entries: AuditEntry[];
  /** Pass back as `cursor` for the next (older) page; absent on the last page. */
  nextCursor: string | undefined;
}

/**
 * Who did what with users' keys, funds and apps. Writing an entry never fails the action it
 * describes (the answer has been sent by then); a write that fails is logged as an error, so a
 * gap in the trail is itself visible.
 */
export class AuditTrail {
  #seq = 0;

  constructor(
    private readonly store: AuditLogStore,
    private readonly logger: Logger,
  ) {}

  async record(record: AuditRecord): Promise<void> {
    const entry: AuditEntry = { ...record, id: randomUUID(), at: Date.now() };
    this.#seq = (this.#seq + 1) % 1_000_000_000;
    try {
      await this.store.append(entry, this.#seq);
    } catch (err) {
      this.logger.error({ err, action: entry.action, requestId: entry.requestId }, 'audit entry not written');
    }
  }

  async list(filter: Omit<AuditFilter, 'before'> & { cursor?: string }): Promise<AuditPage> {
    const { cursor, ...rest } = filter;
    const before = cursor ? decodeCursor(cursor) : undefined;
    if (cursor && !before)
      throw badRequest('invalid_request', 'cursor is not one this service issued', { field: 'cursor' });
    const rows = await this.store.list({ ...rest, ...(before ? { before } : {}), limit: rest.limit + 1 });
    const page = rows.slice(0, rest.limit);
    const last = page.at(-1);
    return {
      entries: page.map(({ seq: _seq, ...entry }) => entry),
      nextCursor: rows.length > rest.limit && last ? encodeCursor(last.at, last.seq) : undefined,
    };
  }
}

const encodeCursor = (at: number, seq: number) => Buffer.from(`${at}:${seq}`).toString('base64url');

function decodeCursor(cursor: string): { at: number; seq: number } | undefined {
  const match = /^(\d{1,16}):(\d{1,10})$/.exec(Buffer.from(cursor, 'base64url').toString());
  return match ? { at: Number(match[1]), seq: Number(match[2]) } : undefined;
}
