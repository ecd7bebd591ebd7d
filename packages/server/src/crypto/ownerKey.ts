import { createHash, pbkdf2 } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1';
import { english, generateMnemonic, HDKey } from 'viem/accounts';

/**
 * The wallet owner EOA of PIN custody: a 12-word BIP-39 mnemonic (English, no passphrase), key at
 * m/44'/60'/0'/0/0. Keys live only in Buffers the caller wipes: the seed is computed with Node's
 * PBKDF2 off the event loop, and no hex copy of a key is made by this code. (Libraries may still
 * hold transient BigInt copies, and the mnemonic is a JavaScript string; neither can be wiped, as
 * docs/security.md says.) Signing and addresses: `chain/operations/operationOwner.ts`.
 */
export const OWNER_KEY_PATH = "m/44'/60'/0'/0/0";
export const MNEMONIC_WORDS = 12;

/** A fresh 12-word mnemonic (128 bits of entropy). */
export function newOwnerMnemonic(): string {
  return generateMnemonic(english, 128);
}

/** Lowercases and collapses whitespace; the canonical form we store, compare and derive from. */
export function normaliseMnemonic(mnemonic: string): string {
  return mnemonic.trim().toLowerCase().split(/\s+/).join(' ');
}

const wordIndex = new Map(english.map((w, i) => [w, i]));

/** True when `mnemonic` (normalised) is 12 English BIP-39 words with a valid checksum. */
export function isValidMnemonic(mnemonic: string): boolean {
  const words = mnemonic.split(' ');
  if (words.length !== MNEMONIC_WORDS) return false;
  let bits = 0n;
  for (const word of words) {
    const index = wordIndex.get(word);
    if (index === undefined) return false;
    bits = (bits << 11n) | BigInt(index);
  }
  // 132 bits = 128 bits of entropy followed by a 4-bit checksum (first bits of SHA-256(entropy)).
  const checksum = Number(bits & 0xfn);
  const entropy = Buffer.from((bits >> 4n).toString(16).padStart(32, '0'), 'hex');
  const expected = createHash('sha256').update(entropy).digest()[0]! >> 4;
  entropy.fill(0);
  return checksum === expected;
}

/** Where the BIP-39 seed's PBKDF2 runs: the server's PBKDF2 worker pool (crypto/pbkdf2Pool.ts) satisfies it. */
export interface SeedPbkdf2 {
  derive(
    password: Uint8Array,
    salt: string,
    iterations: number,
    keylen: number,
    digest: 'sha512',
  ): Promise<Buffer>;
}

/** libuv's thread pool (`crypto.pbkdf2`): for callers without a worker pool (tools, tests). */
const libuvPbkdf2: SeedPbkdf2 = {
  derive: (password, salt, iterations, keylen, digest) =>
    new Promise<Buffer>((resolve, reject) =>
      pbkdf2(password, salt, iterations, keylen, digest, (err, seed) => (err ? reject(err) : resolve(seed))),
    ),
};

/** BIP-39 seed (PBKDF2-HMAC-SHA512, 2048 rounds, salt "mnemonic"), computed off the event loop. */
async function mnemonicToSeed(mnemonic: string, pbkdf2Runner: SeedPbkdf2): Promise<Buffer> {
  const password = Buffer.from(mnemonic.normalize('NFKD'), 'utf8');
  try {
    return await pbkdf2Runner.derive(password, 'mnemonic', 2048, 64, 'sha512');
  } finally {
    password.fill(0);
  }
}

/**
 * The owner private key at m/44'/60'/0'/0/0, as a Buffer the caller wipes. The seed's PBKDF2 runs on
 * `pbkdf2Runner` (the server passes its PBKDF2 worker pool), by default on libuv's thread pool.
 */
export async function mnemonicToOwnerKey(
  mnemonic: string,
  pbkdf2Runner: SeedPbkdf2 = libuvPbkdf2,
): Promise<Buffer> {
  const seed = await mnemonicToSeed(mnemonic, pbkdf2Runner);
  let master: HDKey | undefined;
  let child: HDKey | undefined;
  try {
    master = HDKey.fromMasterSeed(seed);
    child = master.derive(OWNER_KEY_PATH);
    if (!child.privateKey) throw new Error('derived key has no private part');
    return Buffer.from(child.privateKey);
  } finally {
    seed.fill(0);
    child?.wipePrivateData();
    master?.wipePrivateData();
  }
}

/** True when `key` is a usable secp256k1 private key (non-zero, below the curve order). */
export function isValidPrivateKey(key: Uint8Array): boolean {
  return key.length === 32 && secp256k1.utils.isValidPrivateKey(key);
}
