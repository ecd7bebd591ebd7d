import { createKeccak, type IHasher } from 'hash-wasm';
import { type ByteArray, type Hex, keccak256 as keccak256InJs } from 'viem';

/**
 * Keccak-256 in WebAssembly (hash-wasm), for the hashes over a whole bundle: a usage batch's operation
 * carries ≈ 40 kB of calldata, hashed four times on its way out (the paymaster's hash, the operation's hash,
 * the transaction's signing hash and its hash), and viem's Keccak in JavaScript takes 1.8 ms for 40 kB
 * against 0.11 ms here (docs/performance-content.md, round 19).
 *
 * The same function as viem's `keccak256` for bytes and hex: until the WebAssembly module is compiled
 * (asynchronously, right after this module loads) and if it cannot be, viem's computes the same digest.
 */
let hasher: IHasher | undefined;

/** Settles once the WebAssembly hasher is ready (or could not be made: viem's is used then). */
export const keccakReady: Promise<void> = createKeccak(256).then(
  (made) => {
    hasher = made;
  },
  () => undefined,
);

export function keccak256(value: Hex | ByteArray): Hex {
  if (!hasher) return keccak256InJs(value);
  if (typeof value !== 'string') return digest(hasher, value);
  const bytes = evenHexBytes(value);
  return bytes ? digest(hasher, bytes) : keccak256InJs(value);
}

/**
 * `0x`-prefixed even-length hex as bytes, read by Buffer (one allocation); undefined for any string Buffer
 * would read differently from viem: Buffer stops at the first character that is not hex and drops an odd last
 * nibble, where viem reads odd-length hex with a leading zero nibble (and hashes a string without `0x` as text).
 */
export function evenHexBytes(value: string): Buffer | undefined {
  if (!value.startsWith('0x')) return undefined;
  const bytes = Buffer.from(value.slice(2), 'hex');
  return bytes.length * 2 === value.length - 2 ? bytes : undefined;
}

function digest(wasm: IHasher, bytes: Uint8Array): Hex {
  // Synchronous from init to digest: no other caller can interleave on the one hasher.
  wasm.init();
  wasm.update(bytes);
  return `0x${wasm.digest('hex')}`;
}

let lastHashed: Hex | undefined;
let lastDigest: Hex | undefined;

/**
 * `keccak256` of hex that is often hashed twice in a row: an operation's `callData` goes into the paymaster's
 * hash and then into the operation's own. The last input and its digest are kept (strings are immutable, so
 * an equal string has the same digest; the same string object compares at once).
 */
export function keccak256Repeated(value: Hex): Hex {
  if (value !== lastHashed) {
    lastDigest = keccak256(value);
    lastHashed = value;
  }
  return lastDigest!;
}
