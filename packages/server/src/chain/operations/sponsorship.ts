import { signPaymasterAndData, type UnsignedUserOperation } from '@dauth/contracts';
import type { LocalAccount } from 'viem';
import type { Address, Hex } from '../types.js';

/** Spec (Authentication 7, Limits): a paymaster signature is valid for 5 minutes. */
export const SPONSORSHIP_SECONDS = 300;

export interface SponsorshipWindow {
  /** Unix seconds. */
  validAfter: number;
  /** Unix seconds. */
  validUntil: number;
}

/**
 * `validAfter` = now and `validUntil` = now + 300 s, where "now" is the wall clock unless the chain's clock
 * disagrees: a chain whose latest block is older (an idle dev chain, or a block still being built) must not
 * see an operation as "not due", and one whose clock runs ahead must not see it as expired.
 */
export function sponsorshipWindow(wallClockSeconds: number, latestBlockSeconds: number): SponsorshipWindow {
  return {
    validAfter: Math.min(wallClockSeconds, latestBlockSeconds),
    validUntil: Math.max(wallClockSeconds, latestBlockSeconds) + SPONSORSHIP_SECONDS,
  };
}

/** Signs `paymasterAndData` for operations the platform pays for. */
export interface Sponsor {
  readonly paymaster: Address;
  sponsor(op: UnsignedUserOperation): Promise<{ paymasterAndData: Hex; validUntil: number }>;
}

/** The platform's verifying-paymaster sponsor: its signer signs the operation's gas-bearing fields and window. */
export class PaymasterSponsor implements Sponsor {
  constructor(
    readonly paymaster: Address,
    private readonly chainId: number,
    private readonly signer: LocalAccount,
    private readonly window: () => Promise<SponsorshipWindow>,
  ) {}

  async sponsor(op: UnsignedUserOperation): Promise<{ paymasterAndData: Hex; validUntil: number }> {
    const { validAfter, validUntil } = await this.window();
    const paymasterAndData = await signPaymasterAndData(op, {
      paymaster: this.paymaster,
      chainId: this.chainId,
      validUntil,
      validAfter,
      signer: this.signer,
    });
    return { paymasterAndData, validUntil };
  }
}
