import { randomBytes } from 'node:crypto';
import { keccakReady } from '@dauth/contracts';
import {
  bytesToHex,
  keccak256,
  parseTransaction,
  recoverTransactionAddress,
  type TransactionSerializableEIP1559,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { beforeAll, describe, expect, it } from 'vitest';
import { signEip1559, transactionHash } from '../../src/chain/transactionSigning.js';

// The relayer signs bundles with the WebAssembly Keccak: the bytes must be viem's signTransaction's, exactly.
describe('signEip1559', () => {
  beforeAll(() => keccakReady);
  const account = privateKeyToAccount(bytesToHex(randomBytes(32)));

  it.each([0, 100, 40_000])(
    'signs a transaction with %i bytes of calldata exactly as viem does',
    async (n) => {
      const tx: TransactionSerializableEIP1559 = {
        chainId: 31337,
        type: 'eip1559',
        to: '0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789',
        data: bytesToHex(randomBytes(n)),
        value: 0n,
        gas: 3_000_000n,
        nonce: 42,
        maxFeePerGas: 2_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
      };
      const raw = await signEip1559(account, tx);
      expect(raw).toBe(await account.signTransaction(tx));
      expect(transactionHash(raw)).toBe(keccak256(raw));
      expect(await recoverTransactionAddress({ serializedTransaction: raw as `0x02${string}` })).toBe(
        account.address,
      );
      const parsed = parseTransaction(raw);
      expect(parsed).toMatchObject({ nonce: 42, gas: 3_000_000n });
      expect(parsed.data ?? '0x').toBe(tx.data);
    },
  );

  // r and s are RLP integers (no leading zero byte) and the parity an empty string or 0x01: 600 signatures by
  // fresh keys meet a leading zero byte in r or s about five times, and both parities about 300 times each.
  it('encodes every field as viem does: zero and large figures, no recipient, both parities, short r and s', async () => {
    let shortRorS = 0;
    for (let i = 0; i < 600; i++) {
      const signer = privateKeyToAccount(bytesToHex(randomBytes(32)));
      const tx: TransactionSerializableEIP1559 = {
        chainId: i % 3 === 0 ? 1 : 8453 + i,
        type: 'eip1559',
        to: i % 7 === 0 ? undefined : signer.address,
        data: bytesToHex(randomBytes(i % 60)),
        value: i % 2 === 0 ? 0n : 10n ** BigInt(i % 30),
        gas: BigInt(21_000 + i),
        nonce: i % 5 === 0 ? 0 : i * 1_000,
        maxFeePerGas: i % 11 === 0 ? 0n : 2n ** BigInt(i % 250),
        maxPriorityFeePerGas: 0n,
      };
      const raw = await signEip1559(signer, tx);
      expect(raw).toBe(await signer.signTransaction(tx));
      const { r, s } = parseTransaction(raw);
      if (BigInt(r!) < 2n ** 248n || BigInt(s!) < 2n ** 248n) shortRorS++;
    }
    // Without any, the test would not have checked the trimming it claims to (probability ≈ 0.01).
    expect(shortRorS).toBeGreaterThan(0);
  });

  it('leaves what its envelope does not encode to viem: an access list, odd-length calldata', async () => {
    const base: TransactionSerializableEIP1559 = {
      chainId: 31337,
      type: 'eip1559',
      to: account.address,
      nonce: 3,
      gas: 60_000n,
      maxFeePerGas: 5n,
      maxPriorityFeePerGas: 1n,
    };
    const withList: TransactionSerializableEIP1559 = {
      ...base,
      accessList: [{ address: account.address, storageKeys: [`0x${'00'.repeat(31)}01`] }],
    };
    expect(await signEip1559(account, withList)).toBe(await account.signTransaction(withList));
    const odd: TransactionSerializableEIP1559 = { ...base, data: '0xabc' };
    expect(await signEip1559(account, odd)).toBe(await account.signTransaction(odd));
  });

  it('signs the usual way with an account that cannot sign a bare hash', async () => {
    const { sign: _sign, ...withoutSign } = account;
    const tx: TransactionSerializableEIP1559 = {
      chainId: 1,
      type: 'eip1559',
      to: account.address,
      nonce: 0,
      gas: 21_000n,
      maxFeePerGas: 1n,
      maxPriorityFeePerGas: 1n,
    };
    expect(await signEip1559({ ...withoutSign, sign: undefined }, tx)).toBe(
      await account.signTransaction(tx),
    );
  });
});
