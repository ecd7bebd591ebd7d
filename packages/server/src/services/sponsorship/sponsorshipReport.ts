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

/** The platform-wide daily budget on a day (decisions §8). */
export interface PlatformSpend {
  day: string;
  /** Gas charged against the cap (the sum of the operations' gas limits). */
  gas: number;
  operations: number;
  /** SPONSOR_PLATFORM_DAILY_GAS. */
  cap: number;
  /** Operations refused because the cap was reached, over every replica. */
  refused: number;
  /** True once an operation was refused for the cap that day: sponsorship is stopped until 00:00 UTC. */
  reached: boolean;
}

const utcToday = () => new Date().toISOString().slice(0, 10);

/** What the gas sponsorship policy spent per app and per user on a UTC day (`GET /v1/admin/sponsorship`). */
export class SponsorshipReport {
  constructor(
    private readonly spend: Pick<SponsorshipStore, 'spendOn' | 'platformOn'>,
    private readonly platformCap: number,
  ) {}

  /** The platform-wide spend on `day` (today, UTC, by default): `/readyz`, the metrics, the admin report. */
  async platformOn(day: string = utcToday()): Promise<PlatformSpend> {
    const { gas, operations, refused } = await this.spend.platformOn(day);
    return { day, gas, operations, cap: this.platformCap, refused, reached: refused > 0 };
  }

  /** `/readyz`'s `sponsorship` check: degraded once the platform cap refused an operation today. */
  async readiness(): Promise<string | { degraded: string }> {
    const today = await this.platformOn();
    const spent = `${today.gas} of ${today.cap} gas sponsored today (UTC)`;
    return today.reached
      ? { degraded: `platform sponsorship cap reached: ${spent}; ${today.refused} operations refused` }
      : spent;
  }

  /** The spend on `day` (today, UTC, by default), most gas first within apps and within users. */
  async spendOn(day: string = utcToday()): Promise<SponsorshipDay> {
    const rows = await this.spend.spendOn(day);
    const of = (scope: SpendScope) =>
      rows
        .filter((r) => r.scope === scope)
        .map((r) => ({ subject: r.subject, gas: r.gas, operations: r.operations }));
    return { day, apps: of('app'), users: of('user') };
  }
}
