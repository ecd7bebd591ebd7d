import {
  dauthContentTokenAbi,
  dauthContentTokenBytecode,
  dauthDexAbi,
  dauthDexBytecode,
} from '@dauth/contracts';
import { type Abi, encodeDeployData, type Hex, keccak256 } from 'viem';
import type { ChainClient } from './chainClient.js';
import type { Address, ContractAddresses } from './types.js';

/** Any non-zero address: the constructors below only store their arguments. */
const PLACEHOLDER: Address = '0x000000000000000000000000000000000000dEaD';

/**
 * The platform contracts whose code the service must match: it calls functions only the current build has
 * (issue 12: priced `purchase`, `executeFromSlot`, `amendTerms`, frozen terms). Neither has immutables, so
 * its runtime code does not depend on the constructor's arguments.
 */
const CHECKED: { key: 'dex' | 'content_token'; name: string; abi: Abi; bytecode: Hex }[] = [
  { key: 'dex', name: 'DauthDex', abi: dauthDexAbi as Abi, bytecode: dauthDexBytecode },
  {
    key: 'content_token',
    name: 'DauthContentToken',
    abi: dauthContentTokenAbi as Abi,
    bytecode: dauthContentTokenBytecode,
  },
];

/** A recorded contract whose code is not this build's. */
export interface OutdatedContract {
  key: string;
  name: string;
  address: Address;
}

/**
 * The checked contracts at `contracts` whose runtime code differs from the current build's. The expected
 * code is what the node returns for the build's creation code run as an `eth_call` (no transaction), so
 * the comparison holds on any EVM node and hardfork the contracts run on.
 */
export async function findOutdatedContracts(
  client: ChainClient,
  contracts: ContractAddresses,
): Promise<OutdatedContract[]> {
  const outdated: OutdatedContract[] = [];
  for (const contract of CHECKED) {
    const address = contracts[contract.key];
    const [deployed, expected] = await Promise.all([
      client.getCode({ address }),
      client.call({
        data: encodeDeployData({
          abi: contract.abi,
          bytecode: contract.bytecode,
          args: [PLACEHOLDER, PLACEHOLDER],
        }),
      }),
    ]);
    if (!expected.data) throw new Error(`The node returned no runtime code for ${contract.name}`);
    if (!deployed || keccak256(deployed) !== keccak256(expected.data)) {
      outdated.push({ key: contract.key, name: contract.name, address });
    }
  }
  return outdated;
}

/** Throws a startup error naming the outdated contracts and `advice` (how to redeploy), if there are any. */
export async function refuseOutdatedContracts(
  client: ChainClient,
  contracts: ContractAddresses,
  advice: string,
): Promise<void> {
  const outdated = await findOutdatedContracts(client, contracts);
  if (outdated.length === 0) return;
  const names = outdated.map((c) => `${c.name} at ${c.address}`).join(' and ');
  throw new Error(
    `Refusing to start: ${names} ${outdated.length > 1 ? 'run' : 'runs'} other code than this version's ` +
      `build (deployed by an earlier version; its functions and protections differ). ${advice}`,
  );
}
