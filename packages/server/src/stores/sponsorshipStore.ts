import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { affected } from './kyselyResults.js';

/** `platform` is one row a day (subject `*`): every sponsored operation a user or an app causes. */
export type SpendScope = 'user' | 'app' | 'platform';

/** The subject of the platform-wide row (the sponsorship policy charges the same one). */
export const PLATFORM_SUBJECT = '*';

export interface SponsorshipSpendTable {
  day: string;
  scope: SpendScope;
  subject: string;
  gas: number;
  operations: number;
  /** Operations refused against this budget that day (migration 0140). */
  refused: number;
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

/** One budget an operation is charged against (the policy's `SpendCharge` has the same shape). */
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
    return (await this.chargeAll(day, gas, charges, now)) === undefined;
  }

  /**
   * Adds `gas` to each subject's spend of `day` if every one stays within its budget, checked in the
   * order given; otherwise nothing changes and the answer is the first charge that did not fit.
   */
  async chargeAll(
    day: string,
    gas: number,
    charges: SpendCharge[],
    now = Date.now(),
  ): Promise<SpendCharge | undefined> {
    if (charges.length === 0) return undefined;
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
              refused: 0,
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
          if (affected(result) !== 1) throw new OverBudget(charge);
        }
      });
      return undefined;
    } catch (err) {
      if (err instanceof OverBudget) return err.charge;
      throw err;
    }
  }

  /**
   * Counts an operation refused against a subject's budget of `day`. True only for the day's first
   * refusal of that subject, over every replica (a conditional UPDATE from 0): the moment to log once.
   */
  async recordRefusal(day: string, scope: SpendScope, subject: string, now = Date.now()): Promise<boolean> {
    await this.db
      .insertInto('sponsorship_spend')
      .values({ day, scope, subject, gas: 0, operations: 0, refused: 0, updated_at: now })
      .onConflict((oc) => oc.columns(['day', 'scope', 'subject']).doNothing())
      .execute();
    const first = await this.db
      .updateTable('sponsorship_spend')
      .set({ refused: 1, updated_at: now })
      .where('day', '=', day)
      .where('scope', '=', scope)
      .where('subject', '=', subject)
      .where('refused', '=', 0)
      .executeTakeFirst();
    if (affected(first) === 1) return true;
    await this.db
      .updateTable('sponsorship_spend')
      .set({ refused: sql`refused + 1`, updated_at: now })
      .where('day', '=', day)
      .where('scope', '=', scope)
      .where('subject', '=', subject)
      .execute();
    return false;
  }

  /** The platform-wide row of `day`: every user's and app's operations together. */
  platformOn(day: string): Promise<{ gas: number; operations: number; refused: number }> {
    return this.subjectOn(day, 'platform', PLATFORM_SUBJECT);
  }

  /** One subject's gas and refusals on `day` (zeros when nothing was charged or refused). */
  async subjectOn(
    day: string,
    scope: SpendScope,
    subject: string,
  ): Promise<{ gas: number; operations: number; refused: number }> {
    const row = await this.db
      .selectFrom('sponsorship_spend')
      .select(['gas', 'operations', 'refused'])
      .where('day', '=', day)
      .where('scope', '=', scope)
      .where('subject', '=', subject)
      .executeTakeFirst();
    return {
      gas: Number(row?.gas ?? 0),
      operations: Number(row?.operations ?? 0),
      refused: Number(row?.refused ?? 0),
    };
  }

  /** Every user's and app's spend on `day`, most gas first (the platform row: `subjectOn`). */
  async spendOn(day: string): Promise<SpendRow[]> {
    const rows = await this.db
      .selectFrom('sponsorship_spend')
      .selectAll()
      .where('day', '=', day)
      .where('scope', '!=', 'platform')
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

class OverBudget extends Error {
  constructor(readonly charge: SpendCharge) {
    super('over budget');
  }
}
