import { evenHexBytes, keccak256 } from '@dauth/contracts';
import {
  assertTransactionEIP1559,
  type Hex,
  type LocalAccount,
  parseSignature,
  serializeTransaction,
  toRlp,
  type TransactionSerializableEIP1559,
} from 'viem';

/**
 * `account.signTransaction(tx)` for an EIP-1559 transaction, the same bytes (RFC 6979 signatures are
 * deterministic; test/chain/transactionSigning.test.ts), at a fraction of the cost for a bundle's tens of kB
 * of calldata:
 * - the signing hash is taken by the WebAssembly Keccak (`@dauth/contracts`'s `keccak256`): viem's Keccak in
 *   JavaScript was most of what signing such a bundle cost;
 * - the envelope is RLP-encoded from byte fields (`toRlp(…, 'bytes')`) and turned into hex once, by Buffer:
 *   viem's `serializeTransaction` reads the calldata from hex and writes the envelope back with `bytesToHex`,
 *   one string concatenation per byte (≈ 1.4 MB of garbage a 40-kB bundle, twice a signing:
 *   docs/performance-content.md, round 20).
 * A transaction outside what the envelope below encodes (an access list, calldata that is not even-length
 * hex) is serialized by viem; an account that cannot sign a bare hash (no `sign`) signs the usual way.
 */
export async function signEip1559(account: LocalAccount, tx: TransactionSerializableEIP1559): Promise<Hex> {
  if (!account.sign) return account.signTransaction(tx);
  const fields = envelopeFields(tx);
  if (!fields) {
    const signature = await account.sign({ hash: keccak256(serializeTransaction(tx)) });
    return serializeTransaction(tx, parseSignature(signature));
  }
  const signature = parseSignature(await account.sign({ hash: keccak256(typed(toRlp(fields, 'bytes'))) }));
  const parity = signature.yParity === 1 ? ONE : EMPTY;
  const signed = typed(
    toRlp([...fields, parity, integer(BigInt(signature.r)), integer(BigInt(signature.s))], 'bytes'),
  );
  return `0x${signed.toString('hex')}`;
}

/** The hash of a signed transaction (`raw`), as the node names it. */
export const transactionHash = (raw: Hex): Hex => keccak256(raw);

/** An RLP item: a byte string or a list of items. */
type RlpItem = Uint8Array | readonly RlpItem[];

const EMPTY = new Uint8Array(0);
const ONE = Uint8Array.of(1);

/** `0x02 ‖ rlp` in one Buffer (the bytes that are hashed and, signed, sent). */
function typed(rlp: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(rlp.length + 1);
  out[0] = 0x02;
  out.set(rlp, 1);
  return out;
}

/** An RLP integer: big-endian without leading zero bytes, zero as the empty string. */
function integer(value: bigint | number | undefined): Uint8Array {
  if (value === undefined || value === 0 || value === 0n) return EMPTY;
  const hex = value.toString(16);
  return Buffer.from(hex.length % 2 === 0 ? hex : `0${hex}`, 'hex');
}

/**
 * The unsigned EIP-1559 fields in viem's order and encoding (`serializeTransactionEIP1559`), checked by viem's
 * own assertion; undefined when the transaction needs what only viem's serializer does.
 */
function envelopeFields(tx: TransactionSerializableEIP1559): RlpItem[] | undefined {
  // viem's serializer would throw the same error first (an invalid recipient, fee cap or chain id).
  assertTransactionEIP1559(tx);
  if (tx.accessList !== undefined && tx.accessList.length > 0) return undefined;
  const numbers = [tx.nonce, tx.maxPriorityFeePerGas, tx.maxFeePerGas, tx.gas, tx.value];
  if (!numbers.every((n) => n === undefined || typeof n === 'bigint' || Number.isSafeInteger(n)))
    return undefined;
  if (numbers.some((n) => n !== undefined && n < 0)) return undefined;
  if (!Number.isSafeInteger(tx.chainId)) return undefined;
  const to = tx.to ? evenHexBytes(tx.to) : EMPTY;
  const data = tx.data ? evenHexBytes(tx.data) : EMPTY;
  if (!to || !data) return undefined;
  return [
    integer(tx.chainId),
    integer(tx.nonce),
    integer(tx.maxPriorityFeePerGas),
    integer(tx.maxFeePerGas),
    integer(tx.gas),
    to,
    integer(tx.value),
    data,
    // An empty access list: the RLP list of nothing (0xc0), as viem's `serializeAccessList([])` encodes it.
    [],
  ];
}
