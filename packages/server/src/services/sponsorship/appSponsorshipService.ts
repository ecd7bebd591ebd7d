import type {
  AppBudget,
  AppSponsorship,
  AppSponsorshipRules,
  ApprovalRequest,
} from '../../chain/operations/sponsorshipPolicy.js';
import type { SecretBox } from '../../crypto/secretBox.js';
import { invalidApprovalUrl } from '../../errors.js';
import type { AppSponsorshipPolicy, AppSponsorshipStore } from '../../stores/appSponsorshipStore.js';
import type { AppSpendRow, SponsorshipStore } from '../../stores/sponsorshipStore.js';
import type { CallbackTargetPolicy } from '../oauth/callbackTargetPolicy.js';
import { newWebhookSecret } from '../webhooks/webhookSigner.js';
import { type ApprovalDecision, type ApprovalHook, approvalSecretAad } from './approvalHook.js';

/**
 * Who may read and set an app's sponsorship policy. Today the app's owner; once organizations exist,
 * the members of its org with the `developer` role (decisions §9): the one place to swap. Another's app
 * (or none) throws 404 `client_not_found`.
 */
export interface AppSponsorshipAccess {
  /** Throws unless the person may `read` (viewer) or `configure` (developer) the app's policy. */
  mayManage(userUuid: number, clientId: string, action: 'read' | 'configure'): Promise<void>;
}

export interface AppSponsorshipInput {
  daily_gas_per_player?: number | null | undefined;
  daily_gas_per_guest?: number | null | undefined;
  daily_gas_app?: number | null | undefined;
  ops_per_player_per_minute?: number | null | undefined;
  approval_url?: string | null | undefined;
  approval_fail_open?: boolean | undefined;
}

export interface AppSponsorshipView {
  client_id: string;
  daily_gas_per_player: number | null;
  daily_gas_per_guest: number | null;
  daily_gas_app: number | null;
  ops_per_player_per_minute: number | null;
  approval_url: string | null;
  approval_fail_open: boolean;
  /** The platform's own per-app cap (SPONSOR_APP_DAILY_GAS), which applies whatever the app sets. */
  platform_daily_gas_app: number;
  updated_at: string | null;
  today: {
    day: string;
    gas: number;
    operations: number;
    /** Operations the app's own budgets refused today. */
    refused: number;
    /** Gas per UTC hour `HH` (hours with none left out), oldest first. */
    hours: { hour: string; gas: number; operations: number }[];
    /** The players who spent the most today (at most 10). */
    top_players: { user_id: string; gas: number; operations: number }[];
  };
}

/** Told of approval decisions (metrics, audit) and of the first refusal of a day (the webhook). */
export interface AppSponsorshipObserver {
  decided(request: ApprovalRequest, decision: ApprovalDecision): void;
  refused(clientId: string, budget: AppBudget, detail: { day: string; firstOfDay: boolean }): Promise<void>;
}

const utcDay = (now: number) => new Date(now).toISOString().slice(0, 10);
const orNull = (v: number | undefined) => (v === undefined ? null : v);

/**
 * Per-app sponsorship policies (decisions §9 "Launch-day defenses", docs/sponsorship.md): the owner's
 * PUT/GET with today's use, and the rules and approval hook the platform's sponsorship policy applies
 * to operations made for the app.
 */
export class AppSponsorshipService implements AppSponsorship {
  constructor(
    private readonly store: AppSponsorshipStore,
    private readonly spend: SponsorshipStore,
    private readonly access: AppSponsorshipAccess,
    private readonly secretBox: SecretBox,
    private readonly targets: CallbackTargetPolicy,
    private readonly hook: ApprovalHook,
    private readonly platformAppDailyGas: number,
    private readonly guests: { isGuest(userUuid: number): Promise<boolean> },
    private readonly observer: AppSponsorshipObserver,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Replaces the app's policy. A new `approval_secret` (`whsec_…`) is drawn and answered once when the
   * URL is set where none was, or changed; an unchanged URL keeps its secret; a null URL removes both.
   */
  async put(
    userUuid: number,
    clientId: string,
    input: AppSponsorshipInput,
  ): Promise<{ policy: AppSponsorshipView; approvalSecret: string | undefined }> {
    await this.access.mayManage(userUuid, clientId, 'configure');
    const previous = await this.store.find(clientId);
    const url = input.approval_url == null ? undefined : await this.#checkUrl(input.approval_url);
    let approvalSecret: string | undefined;
    let sealed: string | undefined;
    if (url !== undefined) {
      if (previous?.approvalUrl === url && previous.approvalSecretSealed !== undefined) {
        sealed = previous.approvalSecretSealed;
      } else {
        approvalSecret = newWebhookSecret();
        sealed = this.secretBox.seal(approvalSecret, approvalSecretAad(clientId));
      }
    }
    const policy: AppSponsorshipPolicy = {
      clientId,
      dailyGasPerPlayer: input.daily_gas_per_player ?? undefined,
      dailyGasPerGuest: input.daily_gas_per_guest ?? undefined,
      dailyGasApp: input.daily_gas_app ?? undefined,
      opsPerPlayerPerMinute: input.ops_per_player_per_minute ?? undefined,
      approvalUrl: url,
      approvalSecretSealed: sealed,
      approvalFailOpen: input.approval_fail_open ?? false,
      updatedAt: this.now(),
    };
    await this.store.put(policy);
    return { policy: await this.#view(clientId, policy), approvalSecret };
  }

  async get(userUuid: number, clientId: string): Promise<AppSponsorshipView> {
    await this.access.mayManage(userUuid, clientId, 'read');
    return this.#view(clientId, await this.store.find(clientId));
  }

  async rulesOf(clientId: string): Promise<AppSponsorshipRules | undefined> {
    const p = await this.store.find(clientId);
    if (!p) return undefined;
    return {
      dailyGasPerPlayer: p.dailyGasPerPlayer,
      dailyGasPerGuest: p.dailyGasPerGuest,
      dailyGasApp: p.dailyGasApp,
      opsPerPlayerPerMinute: p.opsPerPlayerPerMinute,
      approval: p.approvalUrl !== undefined,
    };
  }

  isGuest(userUuid: number): Promise<boolean> {
    return this.guests.isGuest(userUuid);
  }

  refused(clientId: string, budget: AppBudget, detail: { day: string; firstOfDay: boolean }): Promise<void> {
    return this.observer.refused(clientId, budget, detail);
  }

  async approve(request: ApprovalRequest): Promise<boolean> {
    const policy = await this.store.find(request.clientId);
    if (!policy?.approvalUrl) return true;
    const decision = await this.hook.ask(policy, request);
    this.observer.decided(request, decision);
    return decision.approved;
  }

  async #view(clientId: string, p: AppSponsorshipPolicy | undefined): Promise<AppSponsorshipView> {
    const day = utcDay(this.now());
    const [app, exhausted, hours, players] = await Promise.all([
      this.spend.subjectOn(day, 'app', clientId),
      this.spend.subjectOn(day, 'exhaust', clientId),
      this.spend.appRowsOn(day, 'hour', clientId, 24),
      this.spend.appRowsOn(day, 'player', clientId, 10),
    ]);
    const byHour = (a: AppSpendRow, b: AppSpendRow) => a.key.localeCompare(b.key);
    return {
      client_id: clientId,
      daily_gas_per_player: orNull(p?.dailyGasPerPlayer),
      daily_gas_per_guest: orNull(p?.dailyGasPerGuest),
      daily_gas_app: orNull(p?.dailyGasApp),
      ops_per_player_per_minute: orNull(p?.opsPerPlayerPerMinute),
      approval_url: p?.approvalUrl ?? null,
      approval_fail_open: p?.approvalFailOpen ?? false,
      platform_daily_gas_app: this.platformAppDailyGas,
      updated_at: p ? new Date(p.updatedAt).toISOString() : null,
      today: {
        day,
        gas: app.gas,
        operations: app.operations,
        refused: exhausted.refused,
        hours: hours.sort(byHour).map((h) => ({ hour: h.key, gas: h.gas, operations: h.operations })),
        top_players: players.map((r) => ({ user_id: r.key, gas: r.gas, operations: r.operations })),
      },
    };
  }

  async #checkUrl(raw: string): Promise<string> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw invalidApprovalUrl('must be an absolute http(s) URL');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw invalidApprovalUrl('must use https (or http)');
    if (url.username || url.password) throw invalidApprovalUrl('must not carry credentials');
    if (url.hash) throw invalidApprovalUrl('must not have a fragment');
    const problem = await this.targets.registrationProblem(url.href);
    if (problem) throw invalidApprovalUrl(problem);
    return url.href;
  }
}
