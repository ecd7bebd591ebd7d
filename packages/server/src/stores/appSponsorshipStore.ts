import type { Db } from '../db/database.js';

export interface AppSponsorshipPoliciesTable {
  client_id: string;
  daily_gas_per_player: number | null;
  daily_gas_per_guest: number | null;
  daily_gas_app: number | null;
  ops_per_player_per_minute: number | null;
  approval_url: string | null;
  approval_secret_sealed: string | null;
  approval_fail_open: number;
  updated_at: number;
}

declare module '../db/database.js' {
  interface Database {
    app_sponsorship_policies: AppSponsorshipPoliciesTable;
  }
}

/** An app's own sponsorship policy (decisions §9); an undefined budget is no app cap. */
export interface AppSponsorshipPolicy {
  clientId: string;
  dailyGasPerPlayer: number | undefined;
  dailyGasPerGuest: number | undefined;
  dailyGasApp: number | undefined;
  opsPerPlayerPerMinute: number | undefined;
  approvalUrl: string | undefined;
  /** The approval hook's `whsec_` secret, sealed under MASTER_KEY (`approvalSecretAad`). */
  approvalSecretSealed: string | undefined;
  approvalFailOpen: boolean;
  updatedAt: number;
}

const num = (v: number | string | null): number | undefined => (v === null ? undefined : Number(v));

const toPolicy = (r: AppSponsorshipPoliciesTable): AppSponsorshipPolicy => ({
  clientId: r.client_id,
  dailyGasPerPlayer: num(r.daily_gas_per_player),
  dailyGasPerGuest: num(r.daily_gas_per_guest),
  dailyGasApp: num(r.daily_gas_app),
  opsPerPlayerPerMinute: num(r.ops_per_player_per_minute),
  approvalUrl: r.approval_url ?? undefined,
  approvalSecretSealed: r.approval_secret_sealed ?? undefined,
  approvalFailOpen: Number(r.approval_fail_open) === 1,
  updatedAt: Number(r.updated_at),
});

/** The per-app sponsorship policies, one row per app (replaced whole by each PUT). */
export class AppSponsorshipStore {
  constructor(private readonly db: Db) {}

  async find(clientId: string): Promise<AppSponsorshipPolicy | undefined> {
    const row = await this.db
      .selectFrom('app_sponsorship_policies')
      .selectAll()
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return row && toPolicy(row);
  }

  /** Writes the app's policy (insert or replace). */
  async put(policy: AppSponsorshipPolicy): Promise<void> {
    const row: AppSponsorshipPoliciesTable = {
      client_id: policy.clientId,
      daily_gas_per_player: policy.dailyGasPerPlayer ?? null,
      daily_gas_per_guest: policy.dailyGasPerGuest ?? null,
      daily_gas_app: policy.dailyGasApp ?? null,
      ops_per_player_per_minute: policy.opsPerPlayerPerMinute ?? null,
      approval_url: policy.approvalUrl ?? null,
      approval_secret_sealed: policy.approvalSecretSealed ?? null,
      approval_fail_open: policy.approvalFailOpen ? 1 : 0,
      updated_at: policy.updatedAt,
    };
    const { client_id: _key, ...changes } = row;
    await this.db
      .insertInto('app_sponsorship_policies')
      .values(row)
      .onConflict((oc) => oc.column('client_id').doUpdateSet(changes))
      .execute();
  }

  async remove(clientId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('app_sponsorship_policies')
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
