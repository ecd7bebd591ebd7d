import {
  concat,
  encodeAbiParameters,
  keccak256,
  numberToHex,
  recoverMessageAddress,
  size,
  slice,
  type Address,
  type Hex,
} from 'viem';
import { describe, expect, it } from 'vitest';
import {
  computeAccountAddress,
  computeCounterfactualAddress,
  decodePaymasterAndData,
  encodeInitCode,
  encodePaymasterAndData,
  getAccountCreationCode,
  getPaymasterHash,
  getUserOpHash,
  signSponsoredUserOp,
  type UserOperation,
} from '../src/index.js';
import { testKey } from './support/chain.js';

const entryPoint: Address = '0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789';
const factory: Address = '0x9406Cc6185a346906296840746125a0E44976454';
const paymaster: Address = '0x2279B7A0a67DB372996a5FaB50D91eAA73d2eBe6';
const owner = testKey('unit/owner');
const signer = testKey('unit/signer');

const op: UserOperation = {
  sender: '0x1111111111111111111111111111111111111111',
  nonce: 7n,
  initCode: encodeInitCode(factory, owner.address, 3n),
  callData: '0xb61d27f6',
  callGasLimit: 100_000n,
  verificationGasLimit: 200_000n,
  preVerificationGas: 50_000n,
  maxFeePerGas: 3_000_000_000n,
  maxPriorityFeePerGas: 1_000_000_000n,
  paymasterAndData: '0x',
  signature: '0x',
};

describe('getUserOpHash', () => {
  it('is keccak(abi.encode(keccak(pack(op)), entryPoint, chainId)) with v0.6 packing', () => {
    const packed = encodeAbiParameters(
      [
        'address',
        'uint256',
        'bytes32',
        'bytes32',
        'uint256',
        'uint256',
        'uint256',
        'uint256',
        'uint256',
        'bytes32',
      ].map((type) => ({ type })),
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
        keccak256(op.paymasterAndData),
      ],
    );
    const expected = keccak256(
      encodeAbiParameters(
        [{ type: 'bytes32' }, { type: 'address' }, { type: 'uint256' }],
        [keccak256(packed), entryPoint, 31337n],
      ),
    );
    expect(getUserOpHash(op, entryPoint, 31337)).toBe(expected);
  });

  it('ignores the signature but binds chain, entry point and every other field', () => {
    const base = getUserOpHash(op, entryPoint, 31337);
    expect(getUserOpHash({ ...op, signature: '0x1234' }, entryPoint, 31337)).toBe(base);
    expect(getUserOpHash(op, entryPoint, 1)).not.toBe(base);
    expect(getUserOpHash(op, factory, 31337)).not.toBe(base);
    expect(getUserOpHash({ ...op, nonce: 8n }, entryPoint, 31337)).not.toBe(base);
    expect(getUserOpHash({ ...op, paymasterAndData: paymaster }, entryPoint, 31337)).not.toBe(base);
  });
});

describe('encodeInitCode', () => {
  it('is factory ‖ createAccount(owner, salt)', () => {
    const initCode = encodeInitCode(factory, owner.address, 3n);
    expect(slice(initCode, 0, 20)).toBe(factory.toLowerCase());
    // selector of createAccount(address,uint256)
    expect(slice(initCode, 20, 24)).toBe('0x5fbfb9cf');
    expect(slice(initCode, 24, 56)).toBe(numberToHex(BigInt(owner.address), { size: 32 }));
    expect(slice(initCode, 56)).toBe(numberToHex(3n, { size: 32 }));
  });
});

describe('paymasterAndData', () => {
  const signature = `0x${'ab'.repeat(65)}` as Hex;

  it('is paymaster ‖ abi.encode(uint48 validUntil, uint48 validAfter) ‖ signature', () => {
    const data = encodePaymasterAndData(paymaster, 1_700_000_300, 1_700_000_000, signature);
    expect(size(data)).toBe(20 + 64 + 65);
    expect(slice(data, 0, 20)).toBe(paymaster.toLowerCase());
    expect(slice(data, 20, 52)).toBe(numberToHex(1_700_000_300, { size: 32 }));
    expect(slice(data, 52, 84)).toBe(numberToHex(1_700_000_000, { size: 32 }));
    expect(slice(data, 84)).toBe(signature);
    expect(decodePaymasterAndData(data)).toEqual({
      paymaster,
      validUntil: 1_700_000_300,
      validAfter: 1_700_000_000,
      signature,
    });
  });

  it('refuses data too short to hold the window', () => {
    expect(() => decodePaymasterAndData(paymaster)).toThrow(/84 bytes/);
  });

  it('hashes the fields DauthPaymaster.getHash hashes, bound to chain and paymaster', () => {
    const params = { paymaster, chainId: 31337, validUntil: 1_700_000_300, validAfter: 1_700_000_000 };
    const expected = keccak256(
      encodeAbiParameters(
        [
          'address',
          'uint256',
          'bytes32',
          'bytes32',
          'uint256',
          'uint256',
          'uint256',
          'uint256',
          'uint256',
          'uint256',
          'address',
          'uint48',
          'uint48',
        ].map((type) => ({ type })),
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
          31337n,
          paymaster,
          params.validUntil,
          params.validAfter,
        ],
      ),
    );
    expect(getPaymasterHash(op, params)).toBe(expected);
    expect(getPaymasterHash(op, { ...params, chainId: 1 })).not.toBe(expected);
    expect(getPaymasterHash(op, { ...params, validUntil: params.validUntil + 1 })).not.toBe(expected);
    expect(getPaymasterHash({ ...op, callGasLimit: 1n }, params)).not.toBe(expected);
  });
});

describe('counterfactual addresses', () => {
  it('implement keccak256(0xff ++ factory ++ salt ++ keccak256(initCode))[12:]', () => {
    const initCodeHash = keccak256('0x6001600055');
    const digest = keccak256(concat(['0xff', factory, numberToHex(5n, { size: 32 }), initCodeHash]));
    expect(computeCounterfactualAddress(factory, 5n, initCodeHash).toLowerCase()).toBe(slice(digest, 12));
  });

  it('derive the wallet from an EIP-1167 clone whose code carries the first owner', () => {
    const implementation: Address = '0xbebebebebebebebebebebebebebebebebebebebe';
    const code = getAccountCreationCode(implementation, owner.address);
    expect(code).toBe(
      `0x3d604180600a3d3981f3363d3d373d3d3d363d73${implementation.slice(2)}5af43d82803e903d91602b57fd5bf3${owner.address.slice(2).toLowerCase()}`,
    );
    const main = computeAccountAddress({ factory, implementation, owner: owner.address, salt: 0n });
    expect(main).toBe(computeCounterfactualAddress(factory, 0n, keccak256(code)));
    const content = computeAccountAddress({
      factory,
      implementation,
      owner: owner.address,
      salt: 1234567890123456789n,
    });
    expect(content).not.toBe(main);
  });
});

describe('signSponsoredUserOp', () => {
  it('has the platform sign the paymaster hash and the owner sign the final operation hash', async () => {
    const { paymasterAndData: _p, signature: _s, ...unsigned } = op;
    const window = { validUntil: 1_700_000_300, validAfter: 1_700_000_000 };
    const signed = await signSponsoredUserOp(unsigned, {
      entryPoint,
      chainId: 31337,
      owner,
      paymaster,
      paymasterSigner: signer,
      ...window,
    });
    const sponsorship = decodePaymasterAndData(signed.paymasterAndData);
    expect(sponsorship).toMatchObject({ paymaster, ...window });
    const paymasterHash = getPaymasterHash(unsigned, { paymaster, chainId: 31337, ...window });
    expect(
      await recoverMessageAddress({ message: { raw: paymasterHash }, signature: sponsorship.signature }),
    ).toBe(signer.address);
    const opHash = getUserOpHash(signed, entryPoint, 31337);
    expect(await recoverMessageAddress({ message: { raw: opHash }, signature: signed.signature })).toBe(
      owner.address,
    );
  });
});
