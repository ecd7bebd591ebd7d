import type { Logger } from 'pino';
import { sameAddress } from '../../chain/address.js';
import type { ChainBeliefStore } from '../../stores/chainBeliefStore.js';

/** What the chain says (an adapter over the chain gateway). */
export interface ChainFacts {
  walletDeployed(address: string): Promise<boolean>;
  slotOwner(slotId: string): Promise<string | undefined>;
  contentFigures(cuid: string, slot: string): Promise<{ balance: bigint; used: bigint }>;
}

export interface ConsistencyDifference {
  kind: 'wallet_not_deployed' | 'slot_owner' | 'content_balance';
  subject: string;
  database: string;
  chain: string;
}

export interface ConsistencyReport {
  checked: number;
  differences: ConsistencyDifference[];
  ms: number;
}

/**
 * After a start (and its journal recovery) compares what the database believes with the chain: deployed
 * wallets have code, active slots belong to their owner's main wallet on the dex, settled content balances
 * equal the contract's `balanceOf` / `usedBalanceOf`. Every difference is an error log line and the
 * `/readyz` detail `chain_consistency`; nothing is changed (a difference needs a person to look at it).
 */
export class ChainConsistencyCheck {
  #report: ConsistencyReport | undefined;
  #running: Promise<ConsistencyReport> | undefined;

  constructor(
    private readonly beliefs: ChainBeliefStore,
    private readonly chain: ChainFacts,
    private readonly logger: Logger,
    private readonly limit = 2_000,
  ) {}

  get report(): ConsistencyReport | undefined {
    return this.#report;
  }

  /** `/readyz` detail: `ok`, `checking`, or how many differences were found. */
  get detail(): string {
    if (!this.#report) return 'checking';
    const n = this.#report.differences.length;
    return n === 0
      ? 'ok'
      : `${n} difference${n === 1 ? '' : 's'} between the database and the chain (see the log)`;
  }

  run(): Promise<ConsistencyReport> {
    this.#running ??= this.#check().finally(() => (this.#running = undefined));
    return this.#running;
  }

  async #check(): Promise<ConsistencyReport> {
    const started = Date.now();
    const differences: ConsistencyDifference[] = [];
    let checked = 0;
    for (const wallet of await this.beliefs.deployedWallets(this.limit)) {
      checked++;
      if (!(await this.chain.walletDeployed(wallet.address))) {
        differences.push({
          kind: 'wallet_not_deployed',
          subject: wallet.address,
          database: 'deployed',
          chain: 'no code',
        });
      }
    }
    for (const slot of await this.beliefs.activeSlots(this.limit)) {
      checked++;
      const owner = await this.chain.slotOwner(slot.slotId);
      if (!sameAddress(owner, slot.ownerWallet)) {
        differences.push({
          kind: 'slot_owner',
          subject: `slot ${slot.slotId}`,
          database: slot.ownerWallet,
          chain: owner ?? 'none',
        });
      }
    }
    for (const row of await this.beliefs.settledContentBalances(this.limit)) {
      checked++;
      const figures = await this.chain.contentFigures(row.cuid, row.slot);
      if (figures.balance !== row.balance || figures.used !== row.used) {
        differences.push({
          kind: 'content_balance',
          subject: `${row.cuid} ${row.slot}`,
          database: `balance ${row.balance} used ${row.used}`,
          chain: `balance ${figures.balance} used ${figures.used}`,
        });
      }
    }
    for (const difference of differences) {
      this.logger.error(difference, 'the database and the chain disagree');
    }
    const report = { checked, differences, ms: Date.now() - started };
    this.logger.info(
      { checked, differences: differences.length, ms: report.ms },
      'chain consistency checked',
    );
    this.#report = report;
    return report;
  }
}
