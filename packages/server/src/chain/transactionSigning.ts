import { keccak256 } from '@dauth/contracts';
import {
  type Hex,
  type LocalAccount,
  parseSignature,
  serializeTransaction,
  type TransactionSerializableEIP1559,
} from 'viem';

/**
 * `account.signTransaction(tx)` for an EIP-1559 transaction, with the signing hash taken by the
 * WebAssembly Keccak (`@dauth/contracts`'s `keccak256`): a bundle of usage batches carries tens of kB of
 * calldata, and viem's Keccak in JavaScript is most of what signing it costs. The same bytes as viem's
 * (RFC 6979 signatures are deterministic; test/chain/transactionSigning.test.ts); an account that cannot
 * sign a bare hash (no `sign`) signs the usual way.
 */
export async function signEip1559(account: LocalAccount, tx: TransactionSerializableEIP1559): Promise<Hex> {
  if (!account.sign) return account.signTransaction(tx);
  const signature = await account.sign({ hash: keccak256(serializeTransaction(tx)) });
  return serializeTransaction(tx, parseSignature(signature));
}

/** The hash of a signed transaction (`raw`), as the node names it. */
export const transactionHash = (raw: Hex): Hex => keccak256(raw);
