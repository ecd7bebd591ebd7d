import { dauthAccountAbi } from '@dauth/contracts';
import { type Abi, checksumAddress, decodeFunctionData, type Hex as ViemHex, toFunctionSelector } from 'viem';
import type { Address, Hex } from '../types.js';

/** One call a wallet operation makes. */
export interface DecodedCall {
  to: Address;
  data: Hex;
  value?: bigint;
}

/** viem's `decodeFunctionData`, undefined where it throws (unknown selector, malformed arguments). */
export function tryDecode(
  abi: Abi,
  data: Hex,
): { functionName: string; args: readonly unknown[] } | undefined {
  try {
    const decoded = decodeFunctionData({ abi, data: data as ViemHex });
    return { functionName: decoded.functionName, args: (decoded.args ?? []) as readonly unknown[] };
  } catch {
    return undefined;
  }
}

/**
 * A wallet operation's calls; raw call data (e.g. `changeOwner`) is a call of the wallet on itself.
 *
 * Call data in the canonical encoding of `execute`/`executeBatch` (what every encoder writes, the server's
 * included) is read directly from its hex (`canonicalWalletCalls`); anything else goes to viem's decoder. Both
 * give the same calls for a canonical input: viem's decoder follows the same offsets and lengths, checksums the
 * addresses and writes `bytes` as lowercase hex. The direct reading exists for a content batch's ≈ 40 kB of
 * calldata, which viem's decoder writes back to hex one byte at a time (1–2 ms and ≈ 1.3 MB of garbage per
 * operation; docs/performance-content.md, round 20).
 */
export function decodeWalletCall(sender: Address, callData: Hex): DecodedCall[] {
  return canonicalWalletCalls(callData) ?? decodeWalletCallWithViem(sender, callData);
}

/** `decodeWalletCall` by viem's decoder alone (any call data; the reference the direct reading is tested against). */
export function decodeWalletCallWithViem(sender: Address, callData: Hex): DecodedCall[] {
  const decoded = tryDecode(dauthAccountAbi as Abi, callData);
  if (decoded?.functionName === 'execute') {
    const [to, value, data] = decoded.args as [Address, bigint, Hex];
    return [{ to, data, value }];
  }
  if (decoded?.functionName === 'executeBatch') {
    const [dest, value, func] = decoded.args as [Address[], bigint[], Hex[]];
    return dest.map((to, i) => ({ to, data: func[i] ?? '0x', value: value[i] ?? 0n }));
  }
  return [{ to: sender, data: callData }];
}

const EXECUTE = toFunctionSelector('execute(address,uint256,bytes)');
const EXECUTE_BATCH = toFunctionSelector('executeBatch(address[],uint256[],bytes[])');
const WORD = /^[0-9a-f]{64}$/;
const ADDRESS_WORD = /^0{24}[0-9a-f]{40}$/;
/** A length or offset word this reader accepts: below 2^32 (calldata is far smaller). */
const SMALL_WORD = /^0{56}[0-9a-f]{8}$/;
const LOWER_HEX = /^[0-9a-f]*$/;
const ZEROS = /^0*$/;

/**
 * The calls of `execute(address,uint256,bytes)` or `executeBatch(address[],uint256[],bytes[])` when `callData`
 * is exactly their canonical ABI encoding in lowercase hex: every offset where an encoder puts it, every
 * length consistent, address words and padding zero, nothing after the last argument, the three arrays of a
 * batch equally long. Every byte of such call data is then fixed by the calls read from it, so no other
 * reading of it exists. Undefined for anything else (the caller decodes it with viem).
 */
export function canonicalWalletCalls(callData: Hex): DecodedCall[] | undefined {
  if (callData.length < 10 || (callData.length - 10) % 64 !== 0) return undefined;
  const words = (callData.length - 10) / 64;
  // A word past the end reads as '', which no word pattern matches.
  const word = (i: number) => callData.slice(10 + 64 * i, 74 + 64 * i);
  const small = (i: number): number | undefined => {
    const w = word(i);
    return SMALL_WORD.test(w) ? parseInt(w.slice(56), 16) : undefined;
  };
  const address = (i: number): Address | undefined => {
    const w = word(i);
    return ADDRESS_WORD.test(w) ? (checksumAddress(`0x${w.slice(24)}`) as Address) : undefined;
  };
  const uint = (i: number): bigint | undefined => {
    const w = word(i);
    return WORD.test(w) ? BigInt(`0x${w}`) : undefined;
  };
  /** `bytes` whose length word is word `at`: its hex and the words it takes, length word included. */
  const bytes = (at: number): { data: Hex; words: number } | undefined => {
    const length = small(at);
    if (length === undefined) return undefined;
    const padded = Math.ceil(length / 32);
    if (at + 1 + padded > words) return undefined;
    const from = 10 + 64 * (at + 1);
    const data = callData.slice(from, from + 2 * length);
    if (!LOWER_HEX.test(data) || !ZEROS.test(callData.slice(from + 2 * length, from + 64 * padded))) {
      return undefined;
    }
    return { data: `0x${data}`, words: 1 + padded };
  };

  const selector = callData.slice(0, 10);
  if (selector === EXECUTE) {
    const to = address(0);
    const value = uint(1);
    const data = small(2) === 3 * 32 ? bytes(3) : undefined;
    if (to === undefined || value === undefined || !data || 3 + data.words !== words) return undefined;
    return [{ to, data: data.data, value }];
  }
  if (selector !== EXECUTE_BATCH) return undefined;
  // Head: the offsets of dest[], value[] and func[]; then each array as its length and its elements.
  const n = small(3);
  if (n === undefined || small(0) !== 3 * 32) return undefined;
  const valuesAt = 4 + n;
  const funcsAt = valuesAt + 1 + n;
  if (small(1) !== valuesAt * 32 || small(2) !== funcsAt * 32) return undefined;
  if (small(valuesAt) !== n || small(funcsAt) !== n) return undefined;
  const calls: DecodedCall[] = [];
  // func[]'s element offsets count from the word after its length; element j starts where j − 1 ended.
  let next = funcsAt + 1 + n;
  for (let i = 0; i < n; i++) {
    const to = address(4 + i);
    const value = uint(valuesAt + 1 + i);
    const data = small(funcsAt + 1 + i) === (next - funcsAt - 1) * 32 ? bytes(next) : undefined;
    if (to === undefined || value === undefined || !data) return undefined;
    calls.push({ to, data: data.data, value });
    next += data.words;
  }
  return next === words ? calls : undefined;
}
