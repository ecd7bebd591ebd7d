import { secp256k1 } from '@noble/curves/secp256k1';
import { bytesToHex, hashMessage, serializeSignature, toHex } from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import type { Address, Hash, Hex } from '../types.js';

/**
 * Whoever signs a wallet's operation: its current owner EOA. The pipeline asks for a signature over the
 * EntryPoint's `userOpHash` (an EIP-191 message of the raw 32 bytes, as DauthAccount verifies it), so the
 * key never has to leave the caller's scope.
 *
 * `signUserOpHash` may be called more than once while `submitOperation` runs (it re-signs when the wallet's
 * nonce moved under a concurrent operation); keep the key intact until `submitOperation` settles, then wipe it.
 */
export interface OperationOwner {
  address: Address;
  signUserOpHash(userOpHash: Hash): Promise<Hex>;
}

/** The EOA address of a 32-byte secp256k1 private key, without turning the key into a string. */
export function addressOfPrivateKey(privateKey: Uint8Array): Address {
  return publicKeyToAddress(bytesToHex(secp256k1.getPublicKey(privateKey, false)));
}

/**
 * An `OperationOwner` over a private key held in a buffer the caller owns. The key is read, never copied
 * into a string; wipe it (`key.fill(0)`) after `submitOperation` settles.
 */
export function ownerFromPrivateKey(privateKey: Uint8Array): OperationOwner {
  if (privateKey.length !== 32) throw new Error('an owner key is 32 bytes');
  return {
    address: addressOfPrivateKey(privateKey),
    signUserOpHash: async (userOpHash) => signEthMessageHash(userOpHash, privateKey),
  };
}

/** EIP-191 signature (`personal_sign`) of the raw 32-byte `hash`, 65 bytes r ‖ s ‖ v. */
export function signEthMessageHash(hash: Hash, privateKey: Uint8Array): Hex {
  const digest = hashMessage({ raw: hash });
  const signature = secp256k1.sign(digest.slice(2), privateKey, { lowS: true });
  return serializeSignature({
    r: toHex(signature.r, { size: 32 }),
    s: toHex(signature.s, { size: 32 }),
    yParity: signature.recovery,
  });
}

/** An `OperationOwner` over a viem local account (the platform's own keys from configuration). */
export function ownerFromAccount(account: {
  address: Address;
  signMessage(args: { message: { raw: Hex } }): Promise<Hex>;
}): OperationOwner {
  return {
    address: account.address,
    signUserOpHash: (userOpHash) => account.signMessage({ message: { raw: userOpHash } }),
  };
}
