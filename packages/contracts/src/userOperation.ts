/**
 * Pure helpers for ERC-4337 EntryPoint v0.6 user operations: hashing, init code, paymaster data and
 * counterfactual addresses. Nothing here talks to a chain.
 */
import {
  concat,
  encodeAbiParameters,
  encodeFunctionData,
  getAddress,
  getContractAddress,
  numberToHex,
  size,
  slice,
  hexToBigInt,
  type Address,
  type Hash,
  type Hex,
  type LocalAccount,
} from 'viem';
import { keccak256, keccak256Repeated } from './keccak.js';

/** Byte strings are emitted in lowercase like viem's encoders, whatever the case of the addresses given. */
function lower(hex: Hex): Hex {
  return hex.toLowerCase() as Hex;
}

/** A v0.6 user operation, field for field as the EntryPoint's `UserOperation` struct. */
export type UserOperation = {
  sender: Address;
  nonce: bigint;
  /** Factory address ‖ `createAccount(owner, salt)` call data for the first operation, `0x` afterwards. */
  initCode: Hex;
  callData: Hex;
  callGasLimit: bigint;
  verificationGasLimit: bigint;
  preVerificationGas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  /** Paymaster ‖ abi.encode(uint48 validUntil, uint48 validAfter) ‖ 65-byte signature, or `0x`. */
  paymasterAndData: Hex;
  signature: Hex;
};

/**
 * The `UserOperation` tuple as the EntryPoint v0.6 ABI declares it (`handleOps(UserOperation[], address)`),
 * for encoding operations outside a typed contract call.
 */
export const userOperationAbiParameter = {
  name: 'userOp',
  type: 'tuple',
  components: [
    { name: 'sender', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'initCode', type: 'bytes' },
    { name: 'callData', type: 'bytes' },
    { name: 'callGasLimit', type: 'uint256' },
    { name: 'verificationGasLimit', type: 'uint256' },
    { name: 'preVerificationGas', type: 'uint256' },
    { name: 'maxFeePerGas', type: 'uint256' },
    { name: 'maxPriorityFeePerGas', type: 'uint256' },
    { name: 'paymasterAndData', type: 'bytes' },
    { name: 'signature', type: 'bytes' },
  ],
} as const;

/** `handleOps(UserOperation[] ops, address beneficiary)` of EntryPoint v0.6, standalone. */
export const handleOpsAbi = [
  {
    type: 'function',
    name: 'handleOps',
    stateMutability: 'nonpayable',
    inputs: [
      { ...userOperationAbiParameter, name: 'ops', type: 'tuple[]' },
      { name: 'beneficiary', type: 'address' },
    ],
    outputs: [],
  },
] as const;

const createAccountAbi = [
  {
    type: 'function',
    name: 'createAccount',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'owner', type: 'address' },
      { name: 'salt', type: 'uint256' },
    ],
    outputs: [{ name: '', type: 'address' }],
  },
] as const;

/**
 * The hash the EntryPoint v0.6 computes for `op` (`EntryPoint.getUserOpHash`), which the owner signs:
 * keccak256(abi.encode(keccak256(pack(op)), entryPoint, chainId)), `pack` hashing the three byte fields.
 * viem's `getUserOperationHash` computes the same; this one hashes with `keccak.ts` (a usage batch's
 * calldata is 40 kB) and reuses the callData digest the paymaster's hash took a moment before.
 */
export function getUserOpHash(op: UserOperation, entryPoint: Address, chainId: number): Hash {
  const packed = encodeAbiParameters(
    [...SIGNED_FIELD_TYPES, { type: 'bytes32' }],
    [...signedFieldValues(op), keccak256(op.paymasterAndData)],
  );
  return keccak256(
    encodeAbiParameters(
      [{ type: 'bytes32' }, { type: 'address' }, { type: 'uint256' }],
      [keccak256(packed), entryPoint, BigInt(chainId)],
    ),
  );
}

/**
 * The fields both the operation's hash and the paymaster's take first, in the EntryPoint's order: sender,
 * nonce, the digests of `initCode` and `callData`, the five gas fields.
 */
const SIGNED_FIELD_TYPES = [
  { type: 'address' },
  { type: 'uint256' },
  { type: 'bytes32' },
  { type: 'bytes32' },
  { type: 'uint256' },
  { type: 'uint256' },
  { type: 'uint256' },
  { type: 'uint256' },
  { type: 'uint256' },
] as const;

function signedFieldValues(op: UnsignedUserOperation) {
  return [
    op.sender,
    op.nonce,
    keccak256(op.initCode),
    keccak256Repeated(op.callData),
    op.callGasLimit,
    op.verificationGasLimit,
    op.preVerificationGas,
    op.maxFeePerGas,
    op.maxPriorityFeePerGas,
  ] as const;
}

/** `initCode` of a first operation: factory ‖ `createAccount(owner, salt)`. */
export function encodeInitCode(factory: Address, owner: Address, salt: bigint): Hex {
  return lower(
    concat([
      factory,
      encodeFunctionData({ abi: createAccountAbi, functionName: 'createAccount', args: [owner, salt] }),
    ]),
  );
}

/** An operation before sponsorship and signing. */
export type UnsignedUserOperation = Omit<UserOperation, 'paymasterAndData' | 'signature'>;

export type GetPaymasterHashParameters = {
  paymaster: Address;
  chainId: number;
  validUntil: number;
  validAfter: number;
};

/**
 * The hash `DauthPaymaster.getHash(op, validUntil, validAfter)` returns: every operation field except
 * `paymasterAndData` (which will carry the signature) and `signature` (signed after it), bound to the chain
 * and the paymaster, plus the validity window. The platform signs it as an EIP-191 message.
 */
export function getPaymasterHash(
  op: UnsignedUserOperation,
  { paymaster, chainId, validUntil, validAfter }: GetPaymasterHashParameters,
): Hash {
  return keccak256(
    encodeAbiParameters(
      [
        ...SIGNED_FIELD_TYPES,
        { type: 'uint256' },
        { type: 'address' },
        { type: 'uint48' },
        { type: 'uint48' },
      ],
      [...signedFieldValues(op), BigInt(chainId), paymaster, validUntil, validAfter],
    ),
  );
}

/** paymaster ‖ abi.encode(uint48 validUntil, uint48 validAfter) ‖ signature. */
export function encodePaymasterAndData(
  paymaster: Address,
  validUntil: number,
  validAfter: number,
  signature: Hex,
): Hex {
  return lower(
    concat([
      paymaster,
      encodeAbiParameters([{ type: 'uint48' }, { type: 'uint48' }], [validUntil, validAfter]),
      signature,
    ]),
  );
}

/** Reads back what `encodePaymasterAndData` wrote. */
export function decodePaymasterAndData(paymasterAndData: Hex): {
  paymaster: Address;
  validUntil: number;
  validAfter: number;
  signature: Hex;
} {
  if (size(paymasterAndData) < 84) throw new Error('paymasterAndData shorter than 84 bytes');
  return {
    paymaster: getAddress(slice(paymasterAndData, 0, 20)),
    validUntil: Number(hexToBigInt(slice(paymasterAndData, 20, 52))),
    validAfter: Number(hexToBigInt(slice(paymasterAndData, 52, 84))),
    signature: size(paymasterAndData) > 84 ? slice(paymasterAndData, 84) : '0x',
  };
}

/** The spec's CREATE2 formula: `keccak256(0xff ++ factory ++ salt ++ initCodeHash)[12:]`. */
export function computeCounterfactualAddress(factory: Address, salt: bigint, initCodeHash: Hash): Address {
  return getContractAddress({
    opcode: 'CREATE2',
    from: factory,
    salt: numberToHex(salt, { size: 32 }),
    bytecodeHash: initCodeHash,
  });
}

/**
 * Signs `paymasterHash` with the platform's paymaster signer and returns the complete `paymasterAndData`.
 * The operation's gas fields must be final: the paymaster signature covers them.
 */
export async function signPaymasterAndData(
  op: UnsignedUserOperation,
  parameters: GetPaymasterHashParameters & { signer: LocalAccount },
): Promise<Hex> {
  const hash = getPaymasterHash(op, parameters);
  const signature = await parameters.signer.signMessage({ message: { raw: hash } });
  return encodePaymasterAndData(
    parameters.paymaster,
    parameters.validUntil,
    parameters.validAfter,
    signature,
  );
}

/** The owner's signature over the EntryPoint's operation hash (EIP-191), as DauthAccount and SimpleAccount check it. */
export async function signUserOp(
  op: UserOperation,
  { owner, entryPoint, chainId }: { owner: LocalAccount; entryPoint: Address; chainId: number },
): Promise<Hex> {
  return owner.signMessage({ message: { raw: getUserOpHash(op, entryPoint, chainId) } });
}

export type SignSponsoredUserOpParameters = {
  entryPoint: Address;
  chainId: number;
  /** The wallet's current owner EOA. */
  owner: LocalAccount;
  paymaster: Address;
  /** The paymaster's verifying signer (the platform). */
  paymasterSigner: LocalAccount;
  /** Unix seconds; the spec's rule is now + 300. */
  validUntil: number;
  /** Unix seconds; the spec's rule is now. */
  validAfter: number;
};

/**
 * Completes `op` in the only valid order: the paymaster signs the gas-bearing fields first, then the owner
 * signs the EntryPoint hash, which covers `paymasterAndData`.
 */
export async function signSponsoredUserOp(
  op: UnsignedUserOperation,
  {
    entryPoint,
    chainId,
    owner,
    paymaster,
    paymasterSigner,
    validUntil,
    validAfter,
  }: SignSponsoredUserOpParameters,
): Promise<UserOperation> {
  const paymasterAndData = await signPaymasterAndData(op, {
    paymaster,
    chainId,
    validUntil,
    validAfter,
    signer: paymasterSigner,
  });
  const sponsored = { ...op, paymasterAndData, signature: '0x' as Hex };
  return { ...sponsored, signature: await signUserOp(sponsored, { owner, entryPoint, chainId }) };
}
