import type { SponsorshipStore, SpendScope } from '../../stores/sponsorshipStore.js';

/** One subject's sponsored gas on a day. */
export interface SponsoredSpend {
  /** The app's client_id or the user's uuid. */
  subject: string;
  /** The sum of the sponsored operations' gas limits. */
  gas: number;
  operations: number;
}

export interface SponsorshipDay {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  apps: SponsoredSpend[];
  users: SponsoredSpend[];
}

/** What the gas sponsorship policy spent per app and per user on a UTC day (`GET /v1/admin/sponsorship`). */
export class SponsorshipReport {
  constructor(private readonly spend: Pick<SponsorshipStore, 'spendOn'>) {}

  /** The spend on `day` (today, UTC, by default), most gas first within apps and within users. */
  async spendOn(day: string = new Date().toISOString().slice(0, 10)): Promise<SponsorshipDay> {
    const rows = await this.spend.spendOn(day);
    const of = (scope: SpendScope) =>
      rows
        .filter((r) => r.scope === scope)
        .map((r) => ({ subject: r.subject, gas: r.gas, operations: r.operations }));
    return { day, apps: of('app'), users: of('user') };
  }
}
