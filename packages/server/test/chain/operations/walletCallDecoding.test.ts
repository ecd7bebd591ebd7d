import { randomBytes } from 'node:crypto';
import { dauthAccountAbi } from '@dauth/contracts';
import { type Abi, bytesToHex, encodeFunctionData, getAddress, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  canonicalWalletCalls,
  decodeWalletCall,
  decodeWalletCallWithViem,
} from '../../../src/chain/operations/walletCallDecoding.js';
import type { Address } from '../../../src/chain/types.js';

// The policy reads a wallet's calls directly from canonical call data and leaves everything else to viem. The
// reading must never differ from viem's: for every input, canonical or not, well-formed or hostile, the calls
// are viem's (`decodeWalletCallWithViem`, the policy's only decoder before), and the direct reading answers only
// canonical data.
const sender = getAddress(bytesToHex(randomBytes(20))) as Address;
const abi = dauthAccountAbi as Abi;

const viaViem = (callData: Hex) => decodeWalletCallWithViem(sender, callData);

const address = () => getAddress(bytesToHex(randomBytes(20)));
const value = (i: number) => (i % 3 === 0 ? 0n : BigInt(bytesToHex(randomBytes(1 + (i % 32)))));
const LENGTHS = [0, 1, 4, 31, 32, 33, 63, 64, 65, 100, 1000];

function encodings(): Hex[] {
  const out: Hex[] = [];
  LENGTHS.forEach((n, i) => {
    out.push(
      encodeFunctionData({
        abi,
        functionName: 'execute',
        args: [address(), value(i), bytesToHex(randomBytes(n))],
      }),
    );
  });
  for (const n of [0, 1, 2, 5]) {
    const lengths = Array.from({ length: n }, (_, i) => LENGTHS[(i * 7 + n) % LENGTHS.length]!);
    out.push(
      encodeFunctionData({
        abi,
        functionName: 'executeBatch',
        args: [
          lengths.map(() => address()),
          lengths.map((_, i) => value(i + 1)),
          lengths.map((l) => bytesToHex(randomBytes(l))),
        ],
      }),
    );
  }
  return out;
}

/** A random change of the kind a hostile caller could make: a character, a word, the length, the case. */
function mutate(data: Hex, seed: number): Hex {
  const body = data.slice(2);
  const pos = seed % body.length;
  const word = Math.floor((seed >> 3) % Math.max(1, (body.length - 8) / 64));
  const at = 8 + word * 64;
  switch (seed % 7) {
    case 0:
      return `0x${body.slice(0, pos)}${'0123456789abcdef'[(seed >> 5) % 16]}${body.slice(pos + 1)}`;
    case 1:
      return `0x${body.slice(0, pos)}${body[pos]!.toUpperCase()}${body.slice(pos + 1)}`;
    case 2:
      return `0x${body.slice(0, body.length - 64 * (1 + (seed % 2)))}`;
    case 3:
      return `0x${body}${'00'.repeat(32)}`;
    case 4: // a small number in a word: an offset, a length, a dirty address's upper bytes
      return `0x${body.slice(0, at)}${((seed >> 4) % 300).toString(16).padStart(64, '0')}${body.slice(at + 64)}`;
    case 5:
      return `0x${body.slice(0, at + 2)}ff${body.slice(at + 4)}`;
    default:
      return `0x${body.slice(0, pos)}z${body.slice(pos + 1)}`;
  }
}

describe('wallet call decoding', () => {
  it('reads canonical execute and executeBatch call data exactly as viem decodes it', () => {
    const big = encodeFunctionData({
      abi,
      functionName: 'execute',
      args: [address(), 0n, bytesToHex(randomBytes(40_000))],
    });
    for (const data of [...encodings(), big]) {
      const direct = canonicalWalletCalls(data);
      expect(direct).toBeDefined();
      expect(direct).toEqual(viaViem(data));
      expect(decodeWalletCall(sender, data)).toEqual(viaViem(data));
    }
  });

  it('never reads altered call data differently from viem, and reads only canonical data itself', () => {
    let direct = 0;
    let altered = 0;
    for (const data of encodings()) {
      for (let seed = 1; seed < 400; seed++) {
        const changed = mutate(data, (seed * 2_654_435_761) >>> 0);
        if (changed === data) continue;
        altered++;
        const expected = viaViem(changed);
        expect(decodeWalletCall(sender, changed)).toEqual(expected);
        const read = canonicalWalletCalls(changed);
        if (read) {
          direct++;
          expect(read).toEqual(expected);
          // What it reads is canonical: viem's own encoding of those calls gives back the same call data.
          const again = changed.startsWith('0xb61d27f6')
            ? encodeFunctionData({
                abi,
                functionName: 'execute',
                args: [read[0]!.to, read[0]!.value!, read[0]!.data],
              })
            : encodeFunctionData({
                abi,
                functionName: 'executeBatch',
                args: [read.map((c) => c.to), read.map((c) => c.value!), read.map((c) => c.data)],
              });
          expect(again).toBe(changed);
        }
      }
    }
    expect(altered).toBeGreaterThan(4_000);
    // Changes inside a bytes argument or a value stay canonical: the direct reading was exercised on them too.
    expect(direct).toBeGreaterThan(100);
  });

  it('leaves non-canonical but valid encodings to viem: a dirty address word, trailing bytes, a moved offset', () => {
    const to = address();
    const data = encodeFunctionData({ abi, functionName: 'execute', args: [to, 5n, '0xabcdef'] });
    const body = data.slice(10);
    const dirty = `${data.slice(0, 10)}ff${body.slice(2)}` as Hex;
    const trailing = `${data}${'00'.repeat(32)}` as Hex;
    // The bytes argument one word further on, behind a word of junk.
    const words = body.match(/.{64}/g)!;
    const moved =
      `${data.slice(0, 10)}${words[0]}${words[1]}${(128).toString(16).padStart(64, '0')}${'ee'.repeat(32)}${words.slice(3).join('')}` as Hex;
    for (const changed of [dirty, trailing, moved]) {
      expect(canonicalWalletCalls(changed)).toBeUndefined();
      expect(decodeWalletCall(sender, changed)).toEqual(viaViem(changed));
      expect(decodeWalletCall(sender, changed)).toEqual([{ to, data: '0xabcdef', value: 5n }]);
    }
  });

  it('answers raw call data (a call of the wallet on itself) as before', () => {
    const changeOwner = `0xa6f9dae1${'00'.repeat(12)}${'11'.repeat(20)}` as Hex;
    expect(canonicalWalletCalls(changeOwner)).toBeUndefined();
    expect(decodeWalletCall(sender, changeOwner)).toEqual([{ to: sender, data: changeOwner }]);
  });
});
