/**
 * Pure helpers for DauthAccount wallets: the clone's creation code (the `initCode` of the spec's CREATE2
 * formula) and the wallet address it yields.
 */
import { concat, keccak256, type Address, type Hex } from 'viem';
import { computeCounterfactualAddress } from './userOperation.js';

/** EIP-1167 creation prefix for a 65-byte runtime (45-byte proxy + 20-byte owner): copies and returns it. */
const CREATION_PREFIX = '0x3d604180600a3d3981f3';
/** EIP-1167 runtime up to the implementation address. */
const PROXY_HEAD = '0x363d3d373d3d3d363d73';
/** EIP-1167 runtime after the implementation address. */
const PROXY_TAIL = '0x5af43d82803e903d91602b57fd5bf3';

/**
 * Creation code the factory deploys with CREATE2 for `owner`: an EIP-1167 minimal proxy to `implementation`
 * with the initial owner appended to its runtime code (never executed, read by the account with EXTCODECOPY).
 * Identical to `DauthAccountFactory.accountCreationCode(owner)`.
 */
export function getAccountCreationCode(implementation: Address, owner: Address): Hex {
  return concat([CREATION_PREFIX, PROXY_HEAD, implementation, PROXY_TAIL, owner]).toLowerCase() as Hex;
}

export type ComputeAccountAddressParameters = {
  factory: Address;
  /** `DauthAccountFactory.accountImplementation()`. */
  implementation: Address;
  /** The wallet's first owner EOA; the address never changes after `changeOwner`. */
  owner: Address;
  /** W_SALT (0) for the main wallet, C_SALT (the slot id) for a content wallet. */
  salt: bigint;
};

/** Counterfactual DauthAccount address = `factory.getAddress(owner, salt)`, computed off-chain. */
export function computeAccountAddress({
  factory,
  implementation,
  owner,
  salt,
}: ComputeAccountAddressParameters): Address {
  return computeCounterfactualAddress(
    factory,
    salt,
    keccak256(getAccountCreationCode(implementation, owner)),
  );
}
