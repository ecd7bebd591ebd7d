import { dauthAccountAbi } from '@dauth/contracts';
import {
  type Abi,
  type ContractFunctionArgs,
  type ContractFunctionName,
  encodeFunctionData,
  erc20Abi,
} from 'viem';
import { platformAbis, platformAddressKey, type PlatformContract } from './chainGateway.js';
import type { Address, Call, ContractAddresses, Hex } from './types.js';

type WriteName<C extends PlatformContract> = ContractFunctionName<
  (typeof platformAbis)[C],
  'nonpayable' | 'payable'
>;
type WriteArgs<C extends PlatformContract, F extends WriteName<C>> = ContractFunctionArgs<
  (typeof platformAbis)[C],
  'nonpayable' | 'payable',
  F
>;

/**
 * Builders of the `Call`s wallets make, so services describe what to do without touching ABIs or viem:
 * `calls.platform('dex', 'init_self', [from, slot, to])`, `calls.erc20Transfer(token, to, amount)`.
 */
export class ContractCalls {
  constructor(private readonly contracts: ContractAddresses) {}

  /** A typed call of a platform contract (`value` in wei for payable functions). */
  platform<C extends PlatformContract, F extends WriteName<C>>(
    contract: C,
    functionName: F,
    args: WriteArgs<C, F>,
    value?: bigint,
  ): Call {
    return {
      to: this.contracts[platformAddressKey[contract]],
      data: encodeFunctionData({
        abi: platformAbis[contract] as Abi,
        functionName: functionName as string,
        args: args as readonly unknown[],
      }),
      ...(value ? { value } : {}),
    };
  }

  /** `transfer(to, amount)` of any ERC-20 (`amount` in base units). */
  erc20Transfer(token: Address, to: Address, amount: bigint): Call {
    return {
      to: token,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }),
    };
  }

  /** Sends `value` wei to `to`. */
  nativeTransfer(to: Address, value: bigint): Call {
    return { to, value, data: '0x' };
  }

  /**
   * The operation call data `changeOwner(newOwner)` (spec: key rotation). Pass it as `callData` (not as a
   * call) so the EntryPoint calls the wallet's `changeOwner` directly.
   */
  changeOwnerCallData(newOwner: Address): Hex {
    return encodeFunctionData({ abi: dauthAccountAbi, functionName: 'changeOwner', args: [newOwner] });
  }
}

/** A wallet's operation call data: `execute(to, value, data)` for one call, `executeBatch` for several. */
export function encodeWalletCalls(calls: readonly Call[]): Hex {
  if (calls.length === 0) throw new Error('an operation needs at least one call');
  if (calls.length === 1) {
    const [call] = calls as [Call];
    return encodeFunctionData({
      abi: dauthAccountAbi,
      functionName: 'execute',
      args: [call.to, call.value ?? 0n, call.data ?? '0x'],
    });
  }
  const anyValue = calls.some((c) => (c.value ?? 0n) !== 0n);
  return encodeFunctionData({
    abi: dauthAccountAbi,
    functionName: 'executeBatch',
    args: [
      calls.map((c) => c.to),
      // DauthAccount accepts an empty value array for calls that send no wei.
      anyValue ? calls.map((c) => c.value ?? 0n) : [],
      calls.map((c) => c.data ?? '0x'),
    ],
  });
}
