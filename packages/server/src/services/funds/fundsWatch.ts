import type { Logger } from 'pino';

/** The two balances the platform spends from: sponsored gas (paymaster deposit) and bundle gas (relayer). */
export interface FundsReadings {
  paymasterDeposit(): Promise<bigint>;
  relayerBalance(): Promise<bigint>;
}

/** Refills on a chain where the platform may mint money (the embedded development chain). */
export interface FundsTopUp {
  paymasterDeposit(wei: bigint): Promise<void>;
  relayer(wei: bigint): Promise<void>;
}

export interface FundsThresholds {
  paymasterDeposit: bigint;
  relayerBalance: bigint;
}

export interface FundsReport {
  /** Names of the balances below their threshold. */
  low: ('paymaster_deposit' | 'relayer_balance')[];
  /** `paymaster_deposit=… ether, relayer_balance=… ether`, prefixed with what is low. */
  detail: string;
}

/**
 * Watches the balances that, once empty, stop every sponsored operation: `/readyz` reports `degraded` (still
 * 200: the service answers, but will soon fail writes), a warning is logged, and where a top-up exists (the
 * embedded chain) the balance is refilled to twice its threshold in the background.
 */
export class FundsWatch {
  #topping: Promise<void> | undefined;

  constructor(
    private readonly readings: FundsReadings,
    private readonly thresholds: FundsThresholds,
    private readonly logger: Logger,
    private readonly topUp: FundsTopUp | undefined,
  ) {}

  async check(): Promise<FundsReport> {
    const [deposit, relayer] = await Promise.all([
      this.readings.paymasterDeposit(),
      this.readings.relayerBalance(),
    ]);
    const low: FundsReport['low'] = [];
    if (deposit < this.thresholds.paymasterDeposit) low.push('paymaster_deposit');
    if (relayer < this.thresholds.relayerBalance) low.push('relayer_balance');
    const amounts = `paymaster_deposit=${ether(deposit)} ether, relayer_balance=${ether(relayer)} ether`;
    if (low.length === 0) return { low, detail: amounts };

    const thresholds = `thresholds: paymaster_deposit=${ether(this.thresholds.paymasterDeposit)} ether, relayer_balance=${ether(this.thresholds.relayerBalance)} ether`;
    this.logger.warn(
      { low, paymasterDeposit: deposit.toString(), relayerBalance: relayer.toString() },
      'platform funds low: sponsored operations will fail once they run out',
    );
    if (this.topUp && !this.#topping) {
      const topUp = this.topUp;
      this.#topping = (async () => {
        if (deposit < this.thresholds.paymasterDeposit) {
          await topUp.paymasterDeposit(2n * this.thresholds.paymasterDeposit - deposit);
        }
        if (relayer < this.thresholds.relayerBalance) {
          await topUp.relayer(2n * this.thresholds.relayerBalance - relayer);
        }
        this.logger.info({ topped: low }, 'platform funds topped up');
      })()
        .catch((err: unknown) => this.logger.warn({ err }, 'automatic top-up failed'))
        .finally(() => {
          this.#topping = undefined;
        });
    }
    return { low, detail: `low: ${low.join(', ')}; ${amounts}; ${thresholds}` };
  }
}

/** Wei as a decimal ether string without trailing zeros (exact: no floating point). */
export function ether(wei: bigint): string {
  const whole = wei / 10n ** 18n;
  const fraction = (wei % 10n ** 18n).toString().padStart(18, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole.toString();
}
