import { dauthContentTokenAbi, dauthDexAbi, dauthTokenAbi } from '@dauth/contracts';
import { type Abi, type Hex as ViemHex, slice, toFunctionSelector } from 'viem';
import { AppError, appSponsorshipExhausted, sponsorshipNotApproved } from '../../errors.js';
import type { Address, ContractAddresses, Hex } from '../types.js';
import { type DecodedCall, decodeWalletCall, tryDecode } from './walletCallDecoding.js';

/** The configurable part of the policy (config.ts: SPONSOR_*). */
export interface SponsorshipLimits {
  /** Most gas (sum of operations' gas limits) sponsored per user and UTC day. */
  userDailyGas: number;
  /** The same for a user whose e-mail address is not verified yet (at most `userDailyGas`). */
  unverifiedUserDailyGas: number;
  /** Most gas sponsored per UTC day for every user and app together (decisions §8). */
  platformDailyGas: number;
  /** Most gas sponsored per app (client_id) and UTC day. */
  appDailyGas: number;
  /** Most gas one user operation may ask for (call + verification + pre-verification). */
  maxOperationGas: number;
  /** Extra call targets never sponsored (besides the paymaster and the entry point). */
  blockedTargets: Address[];
}

/** Who an operation is for, as far as the data it touches tells (wallet rows, slots, cuids). */
export interface SponsorshipDirectory {
  userOfWallet(address: Address): Promise<number | undefined>;
  /** Whether the user's e-mail address is verified (the budget depends on it). */
  userVerified(userUuid: number): Promise<boolean>;
  appOfSlot(slotId: bigint): Promise<string | undefined>;
  appOfCuid(cuid: string): Promise<string | undefined>;
}

/** One daily budget an operation is charged against (the store keeps the same shape). */
export interface SpendCharge {
  scope: 'user' | 'app' | 'platform' | 'player' | 'rate' | 'hour' | 'exhaust';
  subject: string;
  /** Most gas this subject may be charged on the day. */
  budget: number;
  /** What this charge adds when not the operation's gas (1: an operation count). */
  amount?: number;
}

/** Where spend is counted (the database, shared by replicas); the composition root passes the store. */
export interface SponsorshipSpend {
  /** Charges every budget or none; the answer is the first charge that did not fit. */
  chargeAll(day: string, gas: number, charges: SpendCharge[]): Promise<SpendCharge | undefined>;
  /** Counts a refusal; true for the subject's first of the day (over every replica). */
  recordRefusal(day: string, scope: SpendCharge['scope'], subject: string): Promise<boolean>;
  /** Gives back a charge whose operation was not sent after all. */
  release?(day: string, gas: number, charges: SpendCharge[]): Promise<void>;
}

/** Which of an app's own budgets refused an operation (the 429's and the webhook's `budget`). */
export type AppBudget =
  'daily_gas_per_player' | 'daily_gas_per_guest' | 'daily_gas_app' | 'ops_per_player_per_minute';

/** An app's own sponsorship rules (decisions §9, docs/sponsorship.md); undefined budgets are no app cap. */
export interface AppSponsorshipRules {
  dailyGasPerPlayer: number | undefined;
  dailyGasPerGuest: number | undefined;
  dailyGasApp: number | undefined;
  opsPerPlayerPerMinute: number | undefined;
  /** Whether an approval hook is set: asked after the budgets were reserved, before any signature. */
  approval: boolean;
}

/** What the approval hook is told (its POST body, docs/sponsorship.md). */
export interface ApprovalRequest {
  userUuid: number;
  clientId: string;
  calls: { to: Address; value: string; data: Hex }[];
  gas: number;
}

/**
 * The per-app policies the platform policy applies inside its own caps, for operations made for an app
 * (`SponsoredOperation.clientId`: session operations, PIN operations under an app-bound login JWT).
 */
export interface AppSponsorship {
  rulesOf(clientId: string): Promise<AppSponsorshipRules | undefined>;
  isGuest(userUuid: number): Promise<boolean>;
  /** A refusal by one of the app's budgets; `firstOfDay` over every replica (the webhook's moment). */
  refused(clientId: string, budget: AppBudget, detail: { day: string; firstOfDay: boolean }): Promise<void>;
  /** The approval hook's decision (its fail-open setting applied to a timeout or an error). */
  approve(request: ApprovalRequest): Promise<boolean>;
}

/** A charge made for an operation: given back when the operation is not sent after all. */
export interface SponsorshipReservation {
  release(): Promise<void>;
}

/** Which limit refused an operation (the 429's `limit`). */
export type SponsorshipLimit =
  'operation_gas' | 'daily_budget' | 'unverified_daily_budget' | 'platform_daily_budget';

/** Told of every refusal (metrics, the log line when the platform cap is first reached on a day). */
export interface SponsorshipObserver {
  refused(limit: SponsorshipLimit, detail: { day: string; firstOfDay: boolean }): void;
}

/** The subject of the platform-wide daily budget (one row a day; the same as the store's `PLATFORM_SUBJECT`). */
export const PLATFORM_SUBJECT = '*';

export interface SponsoredOperation {
  sender: Address;
  callData: Hex;
  /** callGasLimit + verificationGasLimit + preVerificationGas: the most the paymaster can pay for. */
  gas: bigint;
  /** The app the caller says causes the operation (a session key's), charged besides what the calls name. */
  clientId?: string;
}

export const sponsorshipQuotaExceeded = (limit: SponsorshipLimit, message: string) =>
  new AppError(429, 'sponsorship_quota_exceeded', message, { limit });
export const sponsorshipRefused = (target: Address) =>
  new AppError(403, 'sponsorship_refused', `Calls to ${target} with this function are never sponsored`, {
    target,
  });

const REFUSALS: Record<SponsorshipLimit, string> = {
  operation_gas: 'The operation asks for more gas than one operation may',
  daily_budget: 'The daily gas sponsorship budget of this user or app is spent; try again tomorrow (UTC)',
  unverified_daily_budget:
    'The daily gas sponsorship of an account with an unverified e-mail address is spent; verify the address (the code or link mailed at sign-up) or try again tomorrow (UTC)',
  platform_daily_budget:
    "The platform's daily gas sponsorship is spent for everyone; try again tomorrow (UTC)",
};

/** Functions of the platform contracts only their owner may call: never sponsored for anyone. */
const ADMIN_FUNCTIONS = new Set([
  'setOperator',
  'setSaleSigner',
  'setTreasury',
  'setVerifyingSigner',
  'transferOwnership',
  'renounceOwnership',
  'withdrawPool',
  'withdrawTo',
  'withdrawStake',
  'unlockStake',
  'addStake',
  'mint',
]);
/** Functions only the platform operator wallet calls (settlement and terms changes included). */
const OPERATOR_FUNCTIONS = new Set([
  'buy_slot',
  'init_self',
  'registerProvider',
  'recordUsage',
  'setReleaseEnabled',
  'release',
  'settle',
  'amendTerms',
]);

const selectorsOf = (abi: Abi, names: Set<string>): Set<string> =>
  new Set(
    abi
      .filter((item) => item.type === 'function' && names.has(item.name))
      .map((item) => toFunctionSelector(item as Parameters<typeof toFunctionSelector>[0])),
  );

const lower = (a: string) => a.toLowerCase();
const utcDay = (now: number) => new Date(now).toISOString().slice(0, 10);

/**
 * The gas sponsorship policy (decisions §7), checked before anything is signed: call targets never
 * sponsored (the paymaster, the entry point, owner-only functions of the platform contracts, operator
 * functions from anyone but the operator wallet, configured extras — looked for in `execute`,
 * `executeBatch` and the content-wallet calls of `dex.executeFromSlot`), a per-operation gas cap, and
 * per-user and per-app daily budgets counted in the database (one conditional increment per budget,
 * shared by replicas). An operation is charged its gas limits, the most it can cost the paymaster.
 *
 * Decisions §8: a user whose e-mail address is unverified has the smaller unverified budget, and every
 * operation charged to a user or an app is also charged to one platform-wide daily budget, in the same
 * transaction, so no number of accounts together can spend more. The operator's own operations that no
 * user or app causes (settlement, usage records) are the platform's obligations and are not capped.
 */
export class SponsorshipPolicy {
  readonly #blocked: Set<string>;
  readonly #admin: Map<string, Set<string>>;
  readonly #operatorOnly: Map<string, Set<string>>;

  constructor(
    private readonly limits: SponsorshipLimits,
    private readonly contracts: ContractAddresses,
    private readonly operatorWallet: Address,
    private readonly directory: SponsorshipDirectory,
    private readonly spend: SponsorshipSpend,
    private readonly now: () => number = Date.now,
    private readonly observer?: SponsorshipObserver,
    private readonly apps?: AppSponsorship,
  ) {
    this.#blocked = new Set(
      [contracts.paymaster, contracts.entry_point, ...limits.blockedTargets].map(lower),
    );
    const platform: [Address, Abi][] = [
      [contracts.dex, dauthDexAbi as Abi],
      [contracts.content_token, dauthContentTokenAbi as Abi],
      [contracts.token, dauthTokenAbi as Abi],
    ];
    this.#admin = new Map(platform.map(([a, abi]) => [lower(a), selectorsOf(abi, ADMIN_FUNCTIONS)]));
    this.#operatorOnly = new Map(
      platform.map(([a, abi]) => [lower(a), selectorsOf(abi, OPERATOR_FUNCTIONS)]),
    );
  }

  /** Refuses (403 `sponsorship_refused`) a call target never sponsored; runs before the gas estimate. */
  checkTargets(op: Pick<SponsoredOperation, 'sender' | 'callData'>): void {
    const fromOperator = lower(op.sender) === lower(this.operatorWallet);
    for (const call of this.#callsOf(op)) this.#checkTarget(call, fromOperator);
  }

  /**
   * Charges the operation's gas to its user's and app's daily budgets, or refuses it (429
   * `sponsorship_quota_exceeded`, nothing charged); runs after the gas estimate, before any signature.
   */
  async admit(op: SponsoredOperation): Promise<SponsorshipReservation | undefined> {
    const fromOperator = lower(op.sender) === lower(this.operatorWallet);
    const calls = this.#callsOf(op);
    for (const call of calls) this.#checkTarget(call, fromOperator);
    const day = utcDay(this.now());
    if (!fromOperator && op.gas > BigInt(this.limits.maxOperationGas)) {
      this.observer?.refused('operation_gas', { day, firstOfDay: false });
      throw sponsorshipQuotaExceeded(
        'operation_gas',
        `An operation may ask for at most ${this.limits.maxOperationGas} gas of sponsorship`,
      );
    }
    const attributed = await this.#attribute(op.sender, calls, fromOperator);
    const userUuid = attributed.userUuid;
    const clientId = op.clientId ?? attributed.clientId;
    const charges: SpendCharge[] = [];
    let verified = true;
    if (userUuid !== undefined) {
      verified = await this.directory.userVerified(userUuid);
      const budget = verified
        ? this.limits.userDailyGas
        : Math.min(this.limits.unverifiedUserDailyGas, this.limits.userDailyGas);
      charges.push({ scope: 'user', subject: String(userUuid), budget });
    }
    // The app's own policy, for operations made for it (decisions §9), inside the platform's caps.
    const forApp = op.clientId;
    const rules = forApp !== undefined ? await this.apps?.rulesOf(forApp) : undefined;
    const appOwnCap = rules?.dailyGasApp !== undefined && rules.dailyGasApp <= this.limits.appDailyGas;
    if (clientId !== undefined) {
      const budget = clientId === forApp && appOwnCap ? rules!.dailyGasApp! : this.limits.appDailyGas;
      charges.push({ scope: 'app', subject: clientId, budget });
    }
    const now = new Date(this.now());
    let playerBudget: AppBudget = 'daily_gas_per_player';
    if (forApp !== undefined && this.apps !== undefined) {
      if (userUuid !== undefined) {
        const guest = rules?.dailyGasPerGuest !== undefined ? await this.apps.isGuest(userUuid) : false;
        if (guest) playerBudget = 'daily_gas_per_guest';
        const budget = guest ? rules?.dailyGasPerGuest : rules?.dailyGasPerPlayer;
        // Counted without a cap too: the app's top spenders of the day (the console's chart).
        const subject = `${forApp}:${userUuid}`;
        charges.push({ scope: 'player', subject, budget: budget ?? Number.MAX_SAFE_INTEGER });
        if (rules?.opsPerPlayerPerMinute !== undefined) {
          const minute = now.toISOString().slice(11, 16);
          charges.push({
            scope: 'rate',
            subject: `${forApp}:${userUuid}:${minute}`,
            budget: rules.opsPerPlayerPerMinute,
            amount: 1,
          });
        }
      }
      // The app's burn per hour (the console's chart); never refuses.
      const hour = now.toISOString().slice(11, 13);
      charges.push({ scope: 'hour', subject: `${forApp}:${hour}`, budget: Number.MAX_SAFE_INTEGER });
    }
    // Checked first, so that once the cap is reached every caller hears so (not of their own budget).
    if (charges.length > 0) {
      charges.unshift({ scope: 'platform', subject: PLATFORM_SUBJECT, budget: this.limits.platformDailyGas });
    }
    const gas = Number(op.gas);
    const refused = await this.spend.chargeAll(day, gas, charges);
    if (refused === undefined) {
      const reservation: SponsorshipReservation = {
        release: () => this.spend.release?.(day, gas, charges) ?? Promise.resolve(),
      };
      if (rules?.approval && forApp !== undefined && userUuid !== undefined) {
        let approved = false;
        try {
          approved = await this.apps!.approve({
            userUuid,
            clientId: forApp,
            // The wallet's own calls, as the player's game asked for them.
            calls: decodeWalletCall(op.sender, op.callData).map((c) => ({
              to: c.to,
              value: (c.value ?? 0n).toString(),
              data: c.data,
            })),
            gas,
          });
        } finally {
          if (!approved) await reservation.release();
        }
        if (!approved) throw sponsorshipNotApproved();
      }
      return reservation;
    }
    const appBudget: AppBudget | undefined =
      refused.scope === 'player'
        ? playerBudget
        : refused.scope === 'rate'
          ? 'ops_per_player_per_minute'
          : refused.scope === 'app' && refused.subject === forApp && appOwnCap
            ? 'daily_gas_app'
            : undefined;
    if (appBudget !== undefined && forApp !== undefined) {
      const first = await this.spend.recordRefusal(day, 'exhaust', forApp);
      await this.apps?.refused(forApp, appBudget, { day, firstOfDay: first });
      throw appSponsorshipExhausted(appBudget, retryAfter(appBudget, now));
    }
    const firstOfDay = await this.spend.recordRefusal(day, refused.scope, refused.subject);
    const limit: SponsorshipLimit =
      refused.scope === 'platform'
        ? 'platform_daily_budget'
        : refused.scope === 'user' && !verified
          ? 'unverified_daily_budget'
          : 'daily_budget';
    this.observer?.refused(limit, { day, firstOfDay });
    throw sponsorshipQuotaExceeded(limit, REFUSALS[limit]);
  }

  /**
   * The last operation `#callsOf` decoded: `checkTargets` and `admit` run one after the other for the same
   * operation, and decoding a consumption batch's `executeBatch` (hundreds of records) twice cost ≈ 1 % of the
   * server's CPU under consumption load (docs/performance-content.md).
   */
  #lastDecoded: { sender: Address; callData: Hex; calls: DecodedCall[] } | undefined;

  /** The calls the operation makes: `execute`/`executeBatch` unpacked, one level of `executeFromSlot` too. */
  #callsOf(op: Pick<SponsoredOperation, 'sender' | 'callData'>): DecodedCall[] {
    const last = this.#lastDecoded;
    if (last && last.callData === op.callData && last.sender === op.sender) return last.calls;
    const calls = this.#decodeCalls(op);
    this.#lastDecoded = { sender: op.sender, callData: op.callData, calls };
    return calls;
  }

  #decodeCalls(op: Pick<SponsoredOperation, 'sender' | 'callData'>): DecodedCall[] {
    const outer = decodeWalletCall(op.sender, op.callData);
    const inner: DecodedCall[] = [];
    for (const call of outer) {
      if (lower(call.to) !== lower(this.contracts.dex)) continue;
      const decoded = tryDecode(dauthDexAbi as Abi, call.data);
      if (decoded?.functionName === 'executeFromSlot') {
        const [, dest, , func] = decoded.args as [bigint, Address, bigint, Hex];
        inner.push({ to: dest, data: func });
      }
    }
    return [...outer, ...inner];
  }

  #checkTarget(call: DecodedCall, fromOperator: boolean): void {
    const target = lower(call.to);
    if (this.#blocked.has(target)) throw sponsorshipRefused(call.to);
    if (call.data.length < 10) return;
    const selector = slice(call.data as ViemHex, 0, 4);
    if (this.#admin.get(target)?.has(selector)) throw sponsorshipRefused(call.to);
    if (!fromOperator && this.#operatorOnly.get(target)?.has(selector)) throw sponsorshipRefused(call.to);
  }

  async #attribute(
    sender: Address,
    calls: DecodedCall[],
    fromOperator: boolean,
  ): Promise<{ userUuid: number | undefined; clientId: string | undefined }> {
    let userUuid = fromOperator ? undefined : await this.directory.userOfWallet(sender);
    let clientId: string | undefined;
    for (const call of calls) {
      const target = lower(call.to);
      if (target === lower(this.contracts.dex)) {
        const decoded = tryDecode(dauthDexAbi as Abi, call.data);
        if (!decoded) continue;
        const args = decoded.args as readonly unknown[];
        if (decoded.functionName === 'buy_slot' || decoded.functionName === 'init_self') {
          // The operator creates or moves a slot for a user: charged to that user and the slot's app.
          userUuid ??= await this.directory.userOfWallet(args[0] as Address);
          clientId ??= await this.directory.appOfSlot(args[1] as bigint);
        } else if (decoded.functionName === 'executeFromSlot' || decoded.functionName === 'purchase') {
          clientId ??= await this.directory.appOfSlot(args[0] as bigint);
        }
      } else if (target === lower(this.contracts.content_token) && !fromOperator) {
        const decoded = tryDecode(dauthContentTokenAbi as Abi, call.data);
        if (decoded?.functionName === 'buy')
          clientId ??= await this.directory.appOfCuid(decoded.args?.[0] as string);
      }
    }
    return { userUuid, clientId };
  }
}

/** Seconds until the budget's window opens again: the next UTC minute, or the next UTC day. */
function retryAfter(budget: AppBudget, now: Date): number {
  const ms = now.getTime();
  if (budget === 'ops_per_player_per_minute') return Math.max(1, Math.ceil((60_000 - (ms % 60_000)) / 1000));
  const day = 86_400_000;
  return Math.max(1, Math.ceil((day - (ms % day)) / 1000));
}
