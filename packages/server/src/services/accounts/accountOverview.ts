import type { Address } from '../../chain/types.js';
import type { AuditEntry } from '../audit/auditTrail.js';

/** What the account overview reads; each port is a narrow view of an existing service or gateway. */
export interface AccountOverviewPorts {
  mainWallet(userUuid: number): Promise<Address | undefined>;
  nativeBalance(address: Address): Promise<bigint>;
  /** The platform ERC-20 balance. */
  tokenBalance(address: Address): Promise<bigint>;
  slotsOf(userUuid: number): Promise<{ id: string; clientId: string; contentAddress: Address }[]>;
  appName(clientId: string): Promise<string | undefined>;
  /** The cuids an app registered (state `registered`). */
  cuidsOf(clientId: string): Promise<string[]>;
  slotFigures(slot: Address, cuid: string): Promise<{ balance: bigint; used: bigint }>;
  /** The user's newest audit entries. */
  recentActions(userUuid: number, limit: number): Promise<AuditEntry[]>;
}

export interface WalletOverview {
  address: Address | null;
  /** Decimal strings (wei / the token's smallest unit): never a JavaScript number. */
  nativeBalance: string | null;
  tokenBalance: string | null;
}

export interface SlotOverview {
  slotId: string;
  clientId: string;
  appName: string | null;
  contentAddress: Address;
  balances: { cuid: string; balance: string; used: string }[];
}

export interface OperationOverview {
  at: number;
  action: string;
  outcome: string;
  status: number;
  /** The app it was made for or through (a session operation's app), when there was one. */
  clientId: string | null;
  details: Record<string, unknown>;
}

/** Audit actions that move funds or change a wallet: the console's "wallet operations". */
const WALLET_ACTIONS = new Set([
  'pin.register',
  'pin.verify',
  'pin.reset',
  'pin.recover',
  'session_key.grant',
  'session_key.revoke',
  'session_key.operation',
  'token.transfer',
  'slot.transfer',
  'market.purchase',
  'content.purchase',
  'content.release',
]);
const MAX_OPERATIONS = 50;

/** The read side of the console's account page (docs/accounts.md): wallet, slots, wallet operations. */
export class AccountOverviewService {
  constructor(private readonly ports: AccountOverviewPorts) {}

  async wallet(userUuid: number): Promise<WalletOverview> {
    const address = await this.ports.mainWallet(userUuid);
    if (!address) return { address: null, nativeBalance: null, tokenBalance: null };
    const [native, token] = await Promise.all([
      this.ports.nativeBalance(address),
      this.ports.tokenBalance(address),
    ]);
    return { address, nativeBalance: native.toString(), tokenBalance: token.toString() };
  }

  async slots(userUuid: number): Promise<SlotOverview[]> {
    const slots = await this.ports.slotsOf(userUuid);
    return Promise.all(
      slots.map(async (slot) => {
        const cuids = await this.ports.cuidsOf(slot.clientId);
        const balances = await Promise.all(
          cuids.map(async (cuid) => {
            const figures = await this.ports.slotFigures(slot.contentAddress, cuid);
            return { cuid, balance: figures.balance.toString(), used: figures.used.toString() };
          }),
        );
        return {
          slotId: slot.id,
          clientId: slot.clientId,
          appName: (await this.ports.appName(slot.clientId)) ?? null,
          contentAddress: slot.contentAddress,
          balances,
        };
      }),
    );
  }

  /** Recent wallet operations the user made through this service, newest first (from the audit trail). */
  async operations(userUuid: number): Promise<OperationOverview[]> {
    const entries = await this.ports.recentActions(userUuid, 200);
    return entries
      .filter((e) => WALLET_ACTIONS.has(e.action))
      .slice(0, MAX_OPERATIONS)
      .map((e) => ({
        at: e.at,
        action: e.action,
        outcome: e.outcome,
        status: e.status,
        clientId: e.clientId ?? null,
        details: e.details,
      }));
  }
}
