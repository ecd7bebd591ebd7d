import { sql, SqliteAdapter } from 'kysely';
import type { Db } from '../db/database.js';
import { affected } from './kyselyResults.js';
import type {
  JournalEntry,
  JournalInclusion,
  NewJournalEntry,
  TransactionJournal,
} from '../chain/journal/transactionJournal.js';

type Hex = `0x${string}`;

export interface ChainJournalTable {
  tx_hash: string;
  chain_id: number;
  seq: number;
  sender: string;
  nonce: number;
  raw: string;
  state: 'sent' | 'mined' | 'dropped' | 'lost';
  block_number: number | null;
  block_hash: string | null;
  block_timestamp: number | null;
  tx_index: number | null;
  created_at: number;
}

declare module '../db/database.js' {
  interface Database {
    chain_journal: ChainJournalTable;
  }
}

const toEntry = (r: ChainJournalTable): JournalEntry => ({
  hash: r.tx_hash as Hex,
  chainId: Number(r.chain_id),
  seq: Number(r.seq),
  sender: r.sender as Hex,
  nonce: Number(r.nonce),
  raw: r.raw as Hex,
  state: r.state,
  inclusion:
    r.block_number === null || r.block_hash === null || r.block_timestamp === null
      ? undefined
      : {
          blockNumber: BigInt(r.block_number),
          blockHash: r.block_hash as Hex,
          blockTimestamp: BigInt(r.block_timestamp),
          txIndex: Number(r.tx_index ?? 0),
        },
  createdAt: Number(r.created_at),
});

/**
 * The chain journal in the service's database. On SQLite (WAL, `synchronous = NORMAL` for everything else)
 * the insert of a journal entry commits with `synchronous = FULL`: the WAL is fsynced before the
 * transaction goes out, so even a power loss cannot forget a transaction the chain may have. PostgreSQL
 * commits durably by default.
 */
export class ChainJournalStore implements TransactionJournal {
  readonly #sqlite: boolean;

  constructor(private readonly db: Db) {
    this.#sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  }

  async record(e: NewJournalEntry): Promise<void> {
    const row: ChainJournalTable = {
      tx_hash: e.hash,
      chain_id: e.chainId,
      seq: e.seq,
      sender: e.sender,
      nonce: e.nonce,
      raw: e.raw,
      state: 'sent',
      block_number: null,
      block_hash: null,
      block_timestamp: null,
      tx_index: null,
      created_at: Date.now(),
    };
    const insert = (db: Db) =>
      db
        .insertInto('chain_journal')
        .values(row)
        .onConflict((oc) => oc.column('tx_hash').doNothing())
        .execute();
    if (!this.#sqlite) {
      await insert(this.db);
      return;
    }
    // One connection for the three statements, so no other commit runs between them with the wrong setting.
    await this.db.connection().execute(async (db) => {
      await sql`pragma synchronous = FULL`.execute(db);
      try {
        await insert(db);
      } finally {
        await sql`pragma synchronous = NORMAL`.execute(db);
      }
    });
  }

  async markMined(hash: Hex, i: JournalInclusion): Promise<void> {
    await this.db
      .updateTable('chain_journal')
      .set({
        state: 'mined',
        block_number: Number(i.blockNumber),
        block_hash: i.blockHash,
        block_timestamp: Number(i.blockTimestamp),
        tx_index: i.txIndex,
      })
      .where('tx_hash', '=', hash)
      .execute();
  }

  async markDropped(hashes: readonly Hex[]): Promise<void> {
    if (hashes.length === 0) return;
    await this.db
      .updateTable('chain_journal')
      .set({ state: 'dropped' })
      .where('tx_hash', 'in', [...hashes])
      .where('state', 'in', ['sent', 'lost'])
      .execute();
  }

  async markLost(hashes: readonly Hex[]): Promise<void> {
    if (hashes.length === 0) return;
    await this.db
      .updateTable('chain_journal')
      .set({ state: 'lost', block_number: null, block_hash: null, block_timestamp: null, tx_index: null })
      .where('tx_hash', 'in', [...hashes])
      .where('state', '=', 'mined')
      .execute();
  }

  async entries(chainId: number): Promise<JournalEntry[]> {
    const rows = await this.db
      .selectFrom('chain_journal')
      .selectAll()
      .where('chain_id', '=', chainId)
      .where('state', '!=', 'dropped')
      .orderBy('seq')
      .execute();
    return rows.map(toEntry);
  }

  async unsettled(chainId: number): Promise<JournalEntry[]> {
    const rows = await this.db
      .selectFrom('chain_journal')
      .selectAll()
      .where('chain_id', '=', chainId)
      .where('state', 'in', ['sent', 'lost'])
      .orderBy('seq')
      .execute();
    return rows.map(toEntry);
  }

  async compact(chainId: number, blockNumber: bigint, createdBefore: number): Promise<number> {
    const result = await this.db
      .deleteFrom('chain_journal')
      .where('chain_id', '=', chainId)
      .where('created_at', '<', createdBefore)
      .where((eb) =>
        eb.or([
          eb.and([eb('state', '=', 'mined'), eb('block_number', '<=', Number(blockNumber))]),
          eb('state', '=', 'dropped'),
        ]),
      )
      .executeTakeFirst();
    return affected(result);
  }
}
