import type { ChainGateway } from '../../chain/chainGateway.js';
import type { Faucet, FaucetRequest, FaucetResult } from '../../chain/faucet.js';
import type { Address } from '../../chain/types.js';

/** The deployer's transfers the platform's funding draws on. */
export type FundingSource = Pick<Faucet, 'fund' | 'depositForPaymaster' | 'sendNative'>;

/** The balances a refill reports. */
export type FundingReadings = Pick<ChainGateway, 'paymasterDeposit' | 'nativeBalance'>;

/** The accounts the platform spends from. */
export interface FundedAccounts {
  operator: Address;
  /** Every replica's relayer, in RELAYER_PRIVATE_KEYS order. */
  relayers: readonly Address[];
  /** This replica's relayer. */
  ownRelayer: Address;
}

export interface RefillRequest {
  /** Wei added to the paymaster's EntryPoint deposit. */
  paymasterDeposit: bigint;
  /** Wei sent to the platform operator wallet. */
  operator: bigint;
  /** Wei sent to each replica's relayer. */
  relayer: bigint;
}

export interface RefillResult {
  paymasterDeposit: bigint;
  operatorBalance: bigint;
  /** This replica's relayer. */
  relayerBalance: bigint;
  relayerBalances: { address: Address; balance: bigint }[];
}

/**
 * The admin's funding use cases: development funds for any address (the faucet, chain 31337 only) and the
 * refill, from the deployer, of what the platform spends (paymaster deposit, operator wallet, relayers).
 */
export class PlatformFunding {
  constructor(
    private readonly source: FundingSource,
    private readonly readings: FundingReadings,
    private readonly accounts: FundedAccounts,
  ) {}

  /** `POST /v1/admin/faucet`: native currency and platform ERC-20 for `request.address`. */
  faucet(request: FaucetRequest): Promise<FaucetResult> {
    return this.source.fund(request);
  }

  /** `POST /v1/admin/funding`: each non-zero amount sent, then every balance read back. */
  async refill(request: RefillRequest): Promise<RefillResult> {
    const { operator, relayers, ownRelayer } = this.accounts;
    if (request.paymasterDeposit > 0n) await this.source.depositForPaymaster(request.paymasterDeposit);
    if (request.operator > 0n) await this.source.sendNative(operator, request.operator);
    // One after the other: each is a transaction of the deployer, whose nonces must not race.
    if (request.relayer > 0n)
      for (const address of relayers) await this.source.sendNative(address, request.relayer);
    const [paymasterDeposit, operatorBalance, relayerBalances] = await Promise.all([
      this.readings.paymasterDeposit(),
      this.readings.nativeBalance(operator),
      Promise.all(relayers.map((address) => this.readings.nativeBalance(address))),
    ]);
    const own = relayers.indexOf(ownRelayer);
    return {
      paymasterDeposit,
      operatorBalance,
      relayerBalance: relayerBalances[own] ?? 0n,
      relayerBalances: relayers.map((address, i) => ({ address, balance: relayerBalances[i]! })),
    };
  }
}
