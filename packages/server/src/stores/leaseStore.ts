import type { Db } from '../db/database.js';
import { affected } from './kyselyResults.js';

/** The table keeps its first user's name; any named lease lives in it. */
export interface ContentLeasesTable {
  name: string;
  holder: string;
  expires_at: number;
}

declare module '../db/database.js' {
  interface Database {
    content_leases: ContentLeasesTable;
  }
}

/**
 * Named leases across replicas (the content usage batcher's leadership, each replica's chain lane). A lease is one row; taking
 * or renewing it is a conditional UPDATE (same holder, or expired) and, when no row exists, an insert
 * that ignores a conflict, so two replicas racing for a free lease never both win.
 */
export class LeaseStore {
  constructor(private readonly db: Db) {}

  /** Takes or renews the named lease for `holder` until `now + ttlMs`; false while another holder has it. */
  async acquire(name: string, holder: string, ttlMs: number, now = Date.now()): Promise<boolean> {
    const renewed = await this.db
      .updateTable('content_leases')
      .set({ holder, expires_at: now + ttlMs })
      .where('name', '=', name)
      .where((eb) => eb.or([eb('holder', '=', holder), eb('expires_at', '<', now)]))
      .executeTakeFirst();
    if (affected(renewed) === 1) return true;
    const inserted = await this.db
      .insertInto('content_leases')
      .values({ name, holder, expires_at: now + ttlMs })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  /**
   * Takes the lease whoever holds it. Only for a process that knows it is the only one on this database
   * (the embedded chain's DATA_DIR lock): a holder it finds was an earlier process of its own, killed.
   */
  async takeOver(name: string, holder: string, ttlMs: number, now = Date.now()): Promise<void> {
    const expiresAt = now + ttlMs;
    await this.db
      .insertInto('content_leases')
      .values({ name, holder, expires_at: expiresAt })
      .onConflict((oc) => oc.column('name').doUpdateSet({ holder, expires_at: expiresAt }))
      .execute();
  }

  /** The named lease's row as it stands (expired or not), or undefined when nobody took it. */
  async read(name: string): Promise<{ holder: string; expiresAt: number } | undefined> {
    const row = await this.db
      .selectFrom('content_leases')
      .select(['holder', 'expires_at'])
      .where('name', '=', name)
      .executeTakeFirst();
    return row && { holder: row.holder, expiresAt: Number(row.expires_at) };
  }

  /** Gives the lease up at once (a clean stop), so another replica need not wait for it to expire. */
  async release(name: string, holder: string): Promise<void> {
    await this.db
      .deleteFrom('content_leases')
      .where('name', '=', name)
      .where('holder', '=', holder)
      .execute();
  }
}
