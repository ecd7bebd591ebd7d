import { pbkdf2Sync } from 'node:crypto';
import { bytesToHex } from 'viem';
import { HDKey } from 'viem/accounts';
import type { Hex } from './types.js';

/** The public mnemonic behind anvil's (and hardhat's) funded development accounts. */
export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';

/** anvil's first development accounts (m/44'/60'/0'/0/i of DEV_MNEMONIC); each is funded with 10000 ETH. */
export const ANVIL_DEV_KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
] as const satisfies readonly Hex[];

/** Which development account plays which platform role on the embedded chain. */
export const EMBEDDED_CHAIN_KEYS = {
  deployer: ANVIL_DEV_KEYS[0],
  relayer: ANVIL_DEV_KEYS[1],
  paymasterSigner: ANVIL_DEV_KEYS[2],
  operatorOwner: ANVIL_DEV_KEYS[3],
} as const;

/** The only chain id on which the well-known keys (and the faucet) are acceptable. */
export const DEV_CHAIN_ID = 31337;

let wellKnown: Set<string> | undefined;

/**
 * True for any of the first 20 accounts of DEV_MNEMONIC (anvil funds 10, hardhat 20). Anyone can sign with
 * these keys, so using one on a real chain hands the platform's funds and sponsorship to the world.
 */
export function isWellKnownDevKey(privateKey: Hex): boolean {
  if (!wellKnown) {
    wellKnown = new Set();
    // BIP-39 seed (no passphrase), then BIP-44 m/44'/60'/0'/0/i.
    const seed = pbkdf2Sync(DEV_MNEMONIC, 'mnemonic', 2048, 64, 'sha512');
    const account = HDKey.fromMasterSeed(seed).derive("m/44'/60'/0'/0");
    for (let index = 0; index < 20; index++) {
      const key = account.deriveChild(index).privateKey;
      if (key) wellKnown.add(bytesToHex(key));
    }
  }
  return wellKnown.has(privateKey.toLowerCase());
}
