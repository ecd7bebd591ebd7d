import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { affected } from './kyselyResults.js';

/**
 * `platform` is one row a day (subject `*`): every sponsored operation a user or an app causes. The
 * per-app policies (docs/sponsorship.md) add `player` (subject `<client_id>:<user>`, a player's gas for
 * one app), `rate` (subject `<client_id>:<user>:<HH:MM>`, a player's operations in one minute), `hour`
 * (subject `<client_id>:<HH>`, the app's gas per hour, the console's burn chart) and `exhaust` (subject
 * `<client_id>`: refusals by the app's own budgets, the first of a day sends `sponsorship.exhausted`).
 */
export type SpendScope = 'user' | 'app' | 'platform' | 'player' | 'rate' | 'hour' | 'exhaust';

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

/** One app's rows of a kind on a day (top spenders, hours), most gas first. */
export interface AppSpendRow {
  /** The user uuid (`player`) or the hour `HH` (`hour`). */
  key: string;
  gas: number;
  operations: number;
}

/** One budget an operation is charged against (the policy's `SpendCharge` has the same shape). */
export interface SpendCharge {
  scope: SpendScope;
  subject: string;
  /** Most gas this subject may be charged on the day. */
  budget: number;
  /** What this charge adds, when not the operation's gas (1 for an operation count). */
  amount?: number;
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
          const n = charge.amount ?? gas;
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
              gas: sql`gas + ${n}`,
              operations: sql`operations + 1`,
              updated_at: now,
            })
            .where('day', '=', day)
            .where('scope', '=', charge.scope)
            .where('subject', '=', charge.subject)
            .where(sql<boolean>`gas + ${n} <= ${charge.budget}`)
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
   * Gives back what `chargeAll` charged for an operation that was not sent after all (its signature
   * failed, the approval hook refused it, the bundler refused it): one transaction, never below zero.
   */
  async release(day: string, gas: number, charges: SpendCharge[], now = Date.now()): Promise<void> {
    if (charges.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      for (const charge of charges) {
        const n = charge.amount ?? gas;
        await trx
          .updateTable('sponsorship_spend')
          .set({
            gas: sql`case when gas >= ${n} then gas - ${n} else 0 end`,
            operations: sql`case when operations > 0 then operations - 1 else 0 end`,
            updated_at: now,
          })
          .where('day', '=', day)
          .where('scope', '=', charge.scope)
          .where('subject', '=', charge.subject)
          .execute();
      }
    });
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

  /**
   * One app's `player` or `hour` rows of `day` (subjects `<client_id>:<key>`), most gas first (at most
   * `limit`), keyed by what follows the client id.
   */
  async appRowsOn(
    day: string,
    scope: 'player' | 'hour',
    clientId: string,
    limit: number,
  ): Promise<AppSpendRow[]> {
    const prefix = `${clientId}:`;
    const rows = await this.db
      .selectFrom('sponsorship_spend')
      .select(['subject', 'gas', 'operations'])
      .where('day', '=', day)
      .where('scope', '=', scope)
      .where(sql<string>`substr(subject, 1, ${prefix.length})`, '=', prefix)
      .orderBy('gas', 'desc')
      .orderBy('subject')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      key: r.subject.slice(prefix.length),
      gas: Number(r.gas),
      operations: Number(r.operations),
    }));
  }

  /** Every user's and app's spend on `day`, most gas first (the platform row: `subjectOn`). */
  async spendOn(day: string): Promise<SpendRow[]> {
    const rows = await this.db
      .selectFrom('sponsorship_spend')
      .selectAll()
      .where('day', '=', day)
      .where('scope', 'in', ['user', 'app'])
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
