import { randomBytes } from 'node:crypto';
import { type Address, bytesToHex, keccak256 as viemKeccak256 } from 'viem';
import { getUserOperationHash } from 'viem/account-abstraction';
import { beforeAll, describe, expect, it } from 'vitest';
import { keccak256Repeated } from '../src/keccak.js';
import { getUserOpHash, keccak256, keccakReady, type UserOperation } from '../src/index.js';

// The WebAssembly Keccak must give viem's digests exactly, at every length around the 136-byte rate.
describe('keccak256 (WebAssembly)', () => {
  beforeAll(() => keccakReady);

  it.each([0, 1, 31, 32, 135, 136, 137, 272, 1000, 40_000])(
    'equals viem’s for %i bytes, as hex and as bytes',
    (n) => {
      const bytes = new Uint8Array(randomBytes(n));
      const hex = bytesToHex(bytes);
      expect(keccak256(hex)).toBe(viemKeccak256(hex));
      expect(keccak256(bytes)).toBe(viemKeccak256(bytes));
    },
  );

  it('reads odd-length hex and what is not hex as viem does', () => {
    // viem reads odd-length hex with a leading zero nibble and hashes a string without `0x` as text.
    for (const value of ['0x123', '0x12zz', '0x', 'abcd'] as `0x${string}`[]) {
      expect(keccak256(value)).toBe(viemKeccak256(value));
    }
  });

  it('keccak256Repeated gives each input its own digest, whatever came before', () => {
    const [a, b] = [bytesToHex(randomBytes(5_000)), bytesToHex(randomBytes(5_000))];
    for (const value of [a, a, b, a, b, b, `${a}` as const])
      expect(keccak256Repeated(value)).toBe(viemKeccak256(value));
  });

  it('getUserOpHash equals viem’s getUserOperationHash (v0.6) for a usage batch’s 40 kB callData', () => {
    const op: UserOperation = {
      sender: '0x1111111111111111111111111111111111111111',
      nonce: (5n << 64n) | 3n,
      initCode: '0x',
      callData: bytesToHex(randomBytes(40_000)),
      callGasLimit: 2_900_000n,
      verificationGasLimit: 120_000n,
      preVerificationGas: 700_000n,
      maxFeePerGas: 3_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
      paymasterAndData: bytesToHex(randomBytes(149)),
      signature: bytesToHex(randomBytes(65)),
    };
    const entryPoint: Address = '0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789';
    const viems = getUserOperationHash({
      chainId: 31337,
      entryPointAddress: entryPoint,
      entryPointVersion: '0.6',
      userOperation: op,
    });
    expect(getUserOpHash(op, entryPoint, 31337)).toBe(viems);
    expect(getUserOpHash({ ...op, initCode: bytesToHex(randomBytes(88)) }, entryPoint, 31337)).not.toBe(
      viems,
    );
  });
});
