import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { affected } from './kyselyResults.js';

export type SpendScope = 'user' | 'app';

export interface SponsorshipSpendTable {
  day: string;
  scope: SpendScope;
  subject: string;
  gas: number;
  operations: number;
  updated_at: number;
}

declare module '../db/database.js' {
  interface Database {
    sponsorship_spend: SponsorshipSpendTable;
  }
}

export interface SpendRow {
  day: string;
  scope: SpendScope;
  subject: string;
  gas: number;
  operations: number;
}

/** One budget an operation is charged against. */
export interface SpendCharge {
  scope: SpendScope;
  subject: string;
  /** Most gas this subject may be charged on the day. */
  budget: number;
}

/**
 * Sponsored gas per UTC day and user/app, shared by every replica through the database. A charge is
 * one transaction of conditional increments (`gas + n <= budget`): it applies to every subject or to
 * none, and two replicas can never both spend the last of a budget.
 */
export class SponsorshipStore {
  constructor(private readonly db: Db) {}

  /** Adds `gas` to each subject's spend of `day` if every one stays within its budget; false otherwise. */
  async charge(day: string, gas: number, charges: SpendCharge[], now = Date.now()): Promise<boolean> {
    if (charges.length === 0) return true;
    try {
      await this.db.transaction().execute(async (trx) => {
        for (const charge of charges) {
          await trx
            .insertInto('sponsorship_spend')
            .values({
              day,
              scope: charge.scope,
              subject: charge.subject,
              gas: 0,
              operations: 0,
              updated_at: now,
            })
            .onConflict((oc) => oc.columns(['day', 'scope', 'subject']).doNothing())
            .execute();
          const result = await trx
            .updateTable('sponsorship_spend')
            .set({
              gas: sql`gas + ${gas}`,
              operations: sql`operations + 1`,
              updated_at: now,
            })
            .where('day', '=', day)
            .where('scope', '=', charge.scope)
            .where('subject', '=', charge.subject)
            .where(sql<boolean>`gas + ${gas} <= ${charge.budget}`)
            .executeTakeFirst();
          if (affected(result) !== 1) throw new OverBudget();
        }
      });
      return true;
    } catch (err) {
      if (err instanceof OverBudget) return false;
      throw err;
    }
  }

  /** Every subject's spend on `day`, most gas first. */
  async spendOn(day: string): Promise<SpendRow[]> {
    const rows = await this.db
      .selectFrom('sponsorship_spend')
      .selectAll()
      .where('day', '=', day)
      .orderBy('gas', 'desc')
      .orderBy('subject')
      .execute();
    return rows.map((r) => ({
      day: r.day,
      scope: r.scope,
      subject: r.subject,
      gas: Number(r.gas),
      operations: Number(r.operations),
    }));
  }
}

class OverBudget extends Error {}
