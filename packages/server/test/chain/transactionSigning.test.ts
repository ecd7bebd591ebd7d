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
