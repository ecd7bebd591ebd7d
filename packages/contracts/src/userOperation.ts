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
  keccak256,
  numberToHex,
  parseSignature,
  serializeCompactSignature,
  signatureToCompactSignature,
  size,
  slice,
  hexToBigInt,
  type Address,
  type Hash,
  type Hex,
  type LocalAccount,
} from 'viem';
import { getUserOperationHash } from 'viem/account-abstraction';

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
  /** Paymaster (20 bytes) ‖ uint48 validUntil (6) ‖ uint48 validAfter (6) ‖ 64-byte signature, or `0x`. */
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

/** The hash the EntryPoint v0.6 computes for `op` (`EntryPoint.getUserOpHash`), which the owner signs. */
export function getUserOpHash(op: UserOperation, entryPoint: Address, chainId: number): Hash {
  return getUserOperationHash({
    chainId,
    entryPointAddress: entryPoint,
    entryPointVersion: '0.6',
    userOperation: op,
  });
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
        { type: 'address' },
        { type: 'uint256' },
        { type: 'bytes32' },
        { type: 'bytes32' },
        { type: 'uint256' },
        { type: 'uint256' },
        { type: 'uint256' },
        { type: 'uint256' },
        { type: 'uint256' },
        { type: 'uint256' },
        { type: 'address' },
        { type: 'uint48' },
        { type: 'uint48' },
      ],
      [
        op.sender,
        op.nonce,
        keccak256(op.initCode),
        keccak256(op.callData),
        op.callGasLimit,
        op.verificationGasLimit,
        op.preVerificationGas,
        op.maxFeePerGas,
        op.maxPriorityFeePerGas,
        BigInt(chainId),
        paymaster,
        validUntil,
        validAfter,
      ],
    ),
  );
}

/** Bytes of paymaster ‖ validUntil ‖ validAfter, where the signature starts. */
const PAYMASTER_SIGNATURE_OFFSET = 32;

/**
 * paymaster (20 bytes) ‖ uint48 validUntil (6) ‖ uint48 validAfter (6) ‖ signature, packed: DauthPaymaster
 * takes a 64-byte EIP-2098 signature (`toCompactSignature`); the bytes given are written as they are.
 */
export function encodePaymasterAndData(
  paymaster: Address,
  validUntil: number,
  validAfter: number,
  signature: Hex,
): Hex {
  return lower(
    concat([
      paymaster,
      numberToHex(validUntil, { size: 6 }),
      numberToHex(validAfter, { size: 6 }),
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
  if (size(paymasterAndData) < PAYMASTER_SIGNATURE_OFFSET) {
    throw new Error(`paymasterAndData shorter than ${PAYMASTER_SIGNATURE_OFFSET} bytes`);
  }
  return {
    paymaster: getAddress(slice(paymasterAndData, 0, 20)),
    validUntil: Number(hexToBigInt(slice(paymasterAndData, 20, 26))),
    validAfter: Number(hexToBigInt(slice(paymasterAndData, 26, 32))),
    signature:
      size(paymasterAndData) > PAYMASTER_SIGNATURE_OFFSET
        ? slice(paymasterAndData, PAYMASTER_SIGNATURE_OFFSET)
        : '0x',
  };
}

/**
 * The 64-byte EIP-2098 form (r ‖ yParityAndS) of a 65-byte signature r ‖ s ‖ v; the same signature, one byte and
 * one calldata word shorter. viem's signers produce low `s`, which is all the contracts accept.
 */
export function toCompactSignature(signature: Hex): Hex {
  return serializeCompactSignature(signatureToCompactSignature(parseSignature(signature)));
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
    toCompactSignature(signature),
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
