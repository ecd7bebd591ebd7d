import type { AppActivityStore } from '../../stores/appActivityStore.js';
import type { AppAccess } from '../orgs/appAccess.js';
import type { Actor } from '../orgs/roles.js';

/** A UTC day in ms; the store's day numbers are `at / DAY_MS`. */
const DAY_MS = 86_400_000;

/** The longest report: a sign-in's grant stays on record while its refresh token lives (30 days). */
export const MAX_ACTIVITY_DAYS = 30;

/** One UTC day of an app's activity. */
export interface ActivityDay {
  /** `YYYY-MM-DD` (UTC). */
  date: string;
  /** Sign-ins: new grants (code, backend, device and direct grants). */
  signIns: number;
  /** Distinct players who signed in, refreshed a token, bought or consumed content. */
  activePlayers: number;
  /** Gas sponsored for the app's operations (the operations' gas limits). */
  sponsoredGas: number;
  sponsoredOperations: number;
  /** Successful content purchases, and the content-token units they bought (decimal string). */
  purchases: number;
  purchasedTokens: string;
  /** Accepted consumption records, and the units they consumed (decimal string). */
  consumptions: number;
  consumedTokens: string;
  /** Marketplace sales, and what they paid in wei (decimal string). */
  marketSales: number;
  marketVolumeWei: string;
}

/** One cuid's content over the report's days (units, decimal strings). */
export interface ContentActivity {
  cuid: string;
  bought: string;
  consumed: string;
}

export interface AppActivity {
  clientId: string;
  /** Oldest day first; every day of the window is present, with zeros where nothing happened. */
  days: ActivityDay[];
  /** The app's daily sponsored-gas budget (SPONSOR_APP_DAILY_GAS). */
  dailyGasBudget: number;
  content: ContentActivity[];
}

type ActivityReads = Pick<
  AppActivityStore,
  | 'signInsByDay'
  | 'activePlayersByDay'
  | 'sponsoredGasByDay'
  | 'purchases'
  | 'consumptionsByDay'
  | 'sales'
  | 'cuids'
>;

const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
const add = (a: string, b: string) => (BigInt(a) + BigInt(b)).toString();

/**
 * What an app owner's console charts (`GET /v1/dev-user/clients/{id}/activity`): per UTC day, sign-ins
 * and active players, sponsored gas against the app's daily budget, content bought and consumed, and
 * marketplace sales; and per cuid, the units bought and consumed over the window. Any member of the app's
 * organization reads it; another organization's app answers `client_not_found`, like a missing one.
 */
export class AppActivityService {
  constructor(
    private readonly store: ActivityReads,
    /** Members of the app's organization read it (docs/orgs.md). */
    private readonly access: Pick<AppAccess, 'require'>,
    private readonly dailyGasBudget: number,
    private readonly now: () => number = Date.now,
  ) {}

  async report(actor: Actor, clientId: string, dayCount: number): Promise<AppActivity> {
    await this.access.require(clientId, actor, 'read');
    const span = Math.min(Math.max(Math.trunc(dayCount), 1), MAX_ACTIVITY_DAYS);
    const today = Math.floor(this.now() / DAY_MS);
    const first = today - span + 1;
    const since = first * DAY_MS;
    const [signIns, players, gas, purchases, consumptions, sales, cuids] = await Promise.all([
      this.store.signInsByDay(clientId, since),
      this.store.activePlayersByDay(clientId, since),
      this.store.sponsoredGasByDay(clientId, dateOf(first)),
      this.store.purchases(clientId, since),
      this.store.consumptionsByDay(clientId, since),
      this.store.sales(clientId, since),
      this.store.cuids(clientId),
    ]);

    const days: ActivityDay[] = Array.from({ length: span }, (_, i) => ({
      date: dateOf(first + i),
      signIns: 0,
      activePlayers: 0,
      sponsoredGas: 0,
      sponsoredOperations: 0,
      purchases: 0,
      purchasedTokens: '0',
      consumptions: 0,
      consumedTokens: '0',
      marketSales: 0,
      marketVolumeWei: '0',
    }));
    const at = (day: number) => days[day - first];
    for (const row of signIns) {
      const day = at(row.day);
      if (day) day.signIns = row.count;
    }
    for (const row of players) {
      const day = at(row.day);
      if (day) day.activePlayers = row.count;
    }
    const byDate = new Map(days.map((d) => [d.date, d]));
    for (const row of gas) {
      const day = byDate.get(row.day);
      if (day) {
        day.sponsoredGas = row.gas;
        day.sponsoredOperations = row.operations;
      }
    }

    const content = new Map<string, ContentActivity>(
      cuids.map((cuid) => [cuid, { cuid, bought: '0', consumed: '0' }]),
    );
    const ofCuid = (cuid: string) => {
      let entry = content.get(cuid);
      if (!entry) content.set(cuid, (entry = { cuid, bought: '0', consumed: '0' }));
      return entry;
    };
    for (const purchase of purchases) {
      const day = at(Math.floor(purchase.at / DAY_MS));
      if (!day) continue;
      day.purchases += 1;
      day.purchasedTokens = add(day.purchasedTokens, purchase.amount);
      const entry = ofCuid(purchase.cuid);
      entry.bought = add(entry.bought, purchase.amount);
    }
    for (const row of consumptions) {
      const day = at(row.day);
      if (!day) continue;
      day.consumptions += row.records;
      day.consumedTokens = add(day.consumedTokens, row.amount);
      const entry = ofCuid(row.cuid);
      entry.consumed = add(entry.consumed, row.amount);
    }
    for (const sale of sales) {
      const day = at(Math.floor(sale.at / DAY_MS));
      if (!day) continue;
      day.marketSales += 1;
      day.marketVolumeWei = add(day.marketVolumeWei, sale.price);
    }
    return { clientId, days, dailyGasBudget: this.dailyGasBudget, content: [...content.values()] };
  }
}
