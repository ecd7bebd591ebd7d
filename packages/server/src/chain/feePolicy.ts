import type { Fees } from './chainGateway.js';

export interface FeePolicyOptions {
  /** MAX_FEE_PER_GAS: no transaction the service signs offers more per gas (undefined: no cap). */
  maxFeePerGas: bigint | undefined;
  /** A transaction still unmined after this many new blocks is replaced with higher fees (same nonce). */
  replaceAfterBlocks: number;
}

/** What `/readyz` and the metric show while the fee the chain asks for is above the cap. */
export interface FeeCapState {
  capped: boolean;
  /** The fee per gas the chain asked for when it was last above the cap (wei). */
  wanted: bigint | undefined;
  /** Since when (ms), undefined while not capped. */
  since: number | undefined;
}

/**
 * The price side of every transaction the service signs (relayer bundles, deployer transfers):
 *
 * - A first send pays what the node suggests, never more than MAX_FEE_PER_GAS.
 * - A replacement (same nonce, the first one stuck for `replaceAfterBlocks` blocks) pays at least 12.5% more on
 *   both the fee cap and the tip, which every node's pool accepts as a replacement (geth, reth, Nethermind,
 *   Erigon ask 10%; anvil anything higher), and at least what the node suggests now.
 * - Above the cap it pays the cap; once the transaction already offers the cap, no replacement is possible:
 *   sending waits for the base fee to come down, and `state.capped` says so (`/readyz` degraded, metric
 *   `dauth_chain_fee_capped`) until a transaction of the service is mined again.
 */
export class FeePolicy {
  readonly state: FeeCapState = { capped: false, wanted: undefined, since: undefined };

  constructor(readonly options: FeePolicyOptions) {}

  /** The fees of a first send at `suggested`. */
  initial(suggested: Fees): Fees {
    return this.#capped(suggested, suggested.maxFeePerGas);
  }

  /**
   * The fees of a user operation for an external bundler (BUNDLER_RPC_URL) at the node's `suggested` fees,
   * raised to the `floor` the bundler named, both fields never above the cap (and the tip never above the fee
   * cap). Undefined when the floor is above the cap: the operation is refused, not signed, and the state is
   * capped, as the relayer's is while the chain asks more than the cap.
   */
  forBundler(suggested: Fees, floor: Partial<Fees>): Fees | undefined {
    const cap = this.options.maxFeePerGas;
    const wantedFee = floor.maxFeePerGas ?? 0n;
    const wantedTip = floor.maxPriorityFeePerGas ?? 0n;
    if (cap !== undefined && (wantedFee > cap || wantedTip > cap)) {
      this.#markCapped(max(wantedFee, wantedTip));
      return undefined;
    }
    const base = this.initial(suggested);
    const maxPriorityFeePerGas = max(base.maxPriorityFeePerGas, wantedTip);
    return {
      maxPriorityFeePerGas,
      maxFeePerGas: max(max(base.maxFeePerGas, wantedFee), maxPriorityFeePerGas),
    };
  }

  /**
   * The fees of a replacement of a transaction that offered `previous`, at the node's `suggested` fees now;
   * undefined when the cap leaves no room for a valid replacement (keep waiting on the one sent).
   */
  replacement(previous: Fees, suggested: Fees): Fees | undefined {
    const bumped = {
      maxFeePerGas: max(bump(previous.maxFeePerGas), suggested.maxFeePerGas),
      maxPriorityFeePerGas: max(bump(previous.maxPriorityFeePerGas), suggested.maxPriorityFeePerGas),
    };
    const fees = this.#capped(bumped, max(suggested.maxFeePerGas, bumped.maxFeePerGas));
    // A replacement must outbid the one it replaces by the pool's margin on both fields.
    if (fees.maxFeePerGas < bump(previous.maxFeePerGas)) return undefined;
    if (fees.maxPriorityFeePerGas < bump(previous.maxPriorityFeePerGas)) return undefined;
    return fees;
  }

  /**
   * Whether a transaction offering `offered` cannot be mined at the base fee of the latest block while the
   * cap keeps it from paying more (the node asks `suggested`). Marks the state capped when so.
   */
  stuckAtCap(offered: Fees, baseFee: bigint | undefined, suggested: Fees): boolean {
    const cap = this.options.maxFeePerGas;
    if (cap === undefined) return false;
    const priced = baseFee !== undefined && offered.maxFeePerGas < baseFee;
    const stuck = offered.maxFeePerGas >= cap && (priced || suggested.maxFeePerGas > cap);
    if (stuck) this.#markCapped(max(suggested.maxFeePerGas, baseFee ?? 0n));
    return stuck;
  }

  /** A transaction of the service was mined: fees are payable again. */
  mined(): void {
    this.state.capped = false;
    this.state.wanted = undefined;
    this.state.since = undefined;
  }

  /** `/readyz`'s `chain_fees` check: undefined while fees are under the cap. */
  get detail(): string | undefined {
    const { capped, wanted } = this.state;
    if (!capped) return undefined;
    return (
      `fees capped: the chain asks ${wanted ?? 0n} wei per gas, MAX_FEE_PER_GAS is ` +
      `${this.options.maxFeePerGas ?? 0n}; transactions wait for the base fee to fall`
    );
  }

  #capped(fees: Fees, wanted: bigint): Fees {
    const cap = this.options.maxFeePerGas;
    if (cap === undefined || fees.maxFeePerGas <= cap) return fees;
    this.#markCapped(wanted);
    return { maxFeePerGas: cap, maxPriorityFeePerGas: min(fees.maxPriorityFeePerGas, cap) };
  }

  #markCapped(wanted: bigint): void {
    if (!this.state.capped) this.state.since = Date.now();
    this.state.capped = true;
    this.state.wanted = wanted;
  }
}

/** +12.5%, rounded up, and at least one wei more. */
function bump(value: bigint): bigint {
  return value + max((value + 7n) / 8n, 1n);
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);
