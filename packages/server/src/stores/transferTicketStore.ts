import type { Db } from '../db/database.js';
import { affected } from './kyselyResults.js';

export type TicketOrigin = 'admin' | 'market';
/** `issued` → `consuming` (the chain step is in flight) → `used`; back to `issued` when the chain step failed. */
export type TicketStatus = 'issued' | 'consuming' | 'used';

export interface TransferTicketsTable {
  ticket_hash: string;
  cu_id: string;
  client_id: string;
  from_uuid: number;
  to_uuid: number;
  meta_idx: number;
  slot_id: string;
  origin: TicketOrigin;
  status: TicketStatus;
  created_at: number;
  expires_at: number;
  status_since: number;
  tx_hash: string | null;
  user_op_hash: string | null;
}

declare module '../db/database.js' {
  interface Database {
    transfer_tickets: TransferTicketsTable;
  }
}

export interface TransferTicket {
  /** SHA-256 of the ticket (`state`); the ticket itself is never stored. */
  ticketHash: string;
  cuId: string;
  clientId: string;
  fromUuid: number;
  toUuid: number;
  metaIdx: number;
  slotId: string;
  origin: TicketOrigin;
  status: TicketStatus;
  createdAt: number;
  expiresAt: number;
  statusSince: number;
  txHash: string | undefined;
  userOpHash: string | undefined;
}

const toTicket = (r: TransferTicketsTable): TransferTicket => ({
  ticketHash: r.ticket_hash,
  cuId: r.cu_id,
  clientId: r.client_id,
  fromUuid: Number(r.from_uuid),
  toUuid: Number(r.to_uuid),
  metaIdx: Number(r.meta_idx),
  slotId: r.slot_id,
  origin: r.origin,
  status: r.status,
  createdAt: Number(r.created_at),
  expiresAt: Number(r.expires_at),
  statusSince: Number(r.status_since),
  txHash: r.tx_hash ?? undefined,
  userOpHash: r.user_op_hash ?? undefined,
});

export class TransferTicketStore {
  constructor(private readonly db: Db) {}

  async insert(
    ticket: Omit<TransferTicket, 'status' | 'statusSince' | 'txHash' | 'userOpHash'>,
  ): Promise<void> {
    await this.db
      .insertInto('transfer_tickets')
      .values({
        ticket_hash: ticket.ticketHash,
        cu_id: ticket.cuId,
        client_id: ticket.clientId,
        from_uuid: ticket.fromUuid,
        to_uuid: ticket.toUuid,
        meta_idx: ticket.metaIdx,
        slot_id: ticket.slotId,
        origin: ticket.origin,
        status: 'issued',
        created_at: ticket.createdAt,
        expires_at: ticket.expiresAt,
        status_since: ticket.createdAt,
        tx_hash: null,
        user_op_hash: null,
      })
      .execute();
  }

  async find(ticketHash: string): Promise<TransferTicket | undefined> {
    const row = await this.db
      .selectFrom('transfer_tickets')
      .selectAll()
      .where('ticket_hash', '=', ticketHash)
      .executeTakeFirst();
    return row ? toTicket(row) : undefined;
  }

  /**
   * Claims an issued, unexpired ticket for one consumer: of any number of concurrent presentations,
   * exactly one gets true.
   */
  async claim(ticketHash: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('transfer_tickets')
      .set({ status: 'consuming', status_since: now })
      .where('ticket_hash', '=', ticketHash)
      .where('status', '=', 'issued')
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** Takes over a claim whose consumer stopped (crash) after `since`; true for exactly one caller. */
  async reclaim(ticketHash: string, since: number, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('transfer_tickets')
      .set({ status_since: now })
      .where('ticket_hash', '=', ticketHash)
      .where('status', '=', 'consuming')
      .where('status_since', '=', since)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** Gives a claimed ticket back (the chain step did not happen), so it can be presented again. */
  async release(ticketHash: string, since: number): Promise<void> {
    await this.db
      .updateTable('transfer_tickets')
      .set({ status: 'issued', status_since: Date.now() })
      .where('ticket_hash', '=', ticketHash)
      .where('status', '=', 'consuming')
      .where('status_since', '=', since)
      .execute();
  }

  async markUsed(ticketHash: string, result: { txHash: string; userOpHash: string }): Promise<void> {
    await this.db
      .updateTable('transfer_tickets')
      .set({
        status: 'used',
        status_since: Date.now(),
        tx_hash: result.txHash,
        user_op_hash: result.userOpHash,
      })
      .where('ticket_hash', '=', ticketHash)
      .where('status', '=', 'consuming')
      .execute();
  }
}
