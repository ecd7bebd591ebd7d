import { dauthDexAbi } from '@dauth/contracts';
import { encodeErrorResult, HttpRequestError, RpcRequestError, zeroAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  isTransportError,
  translateChainError,
  UserOperationRejectedError,
} from '../../src/chain/chainErrors.js';
import { addressOfPrivateKey, signEthMessageHash } from '../../src/chain/operations/operationOwner.js';
import { SPONSORSHIP_SECONDS, sponsorshipWindow } from '../../src/chain/operations/sponsorship.js';
import { decodeRevertReason } from '../../src/chain/revertReason.js';
import { failedOpData } from './chainTestHelpers.js';
import { AppError, OperationReverted } from '../../src/errors.js';
import { privateKeyToAccount } from 'viem/accounts';
import { keccak256, toHex } from 'viem';

describe('EntryPoint reasons become typed errors', () => {
  it.each([
    ['AA10 sender already constructed', 500, 'wallet_deployment_failed'],
    ['AA13 initCode failed or OOG', 500, 'wallet_deployment_failed'],
    ["AA21 didn't pay prefund", 503, 'sponsorship_unavailable'],
    ['AA22 expired or not due', 422, 'operation_expired'],
    ['AA23 reverted: boom', 403, 'invalid_owner_signature'],
    ['AA24 signature error', 403, 'invalid_owner_signature'],
    ['AA25 invalid account nonce', 409, 'nonce_conflict'],
    ['AA31 paymaster deposit too low', 503, 'sponsorship_unavailable'],
    ['AA32 paymaster expired or not due', 422, 'operation_expired'],
    ['AA33 reverted (or OOG)', 500, 'sponsorship_rejected'],
    ['AA34 signature error', 500, 'sponsorship_rejected'],
    ['AA95 out of gas', 422, 'user_operation_rejected'],
  ])('%s → %i %s', (reason, status, code) => {
    const err = new UserOperationRejectedError(reason);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ status, code, aaCode: reason.slice(0, 4), details: { reason } });
    expect(err.message).toContain(reason);
  });

  it('translates a FailedOp revert and a custom-error revert from a node', () => {
    const failedOp = failedOpData('AA24 signature error');
    const rpc = (data: `0x${string}`) =>
      new RpcRequestError({
        body: {},
        url: 'http://node',
        error: { code: 3, message: 'execution reverted', data },
      });
    expect(translateChainError(rpc(failedOp))).toMatchObject({ code: 'invalid_owner_signature' });

    const notOwner = encodeErrorResult({
      abi: dauthDexAbi,
      errorName: 'NotSlotOwner',
      args: [5n, zeroAddress, zeroAddress],
    });
    const translated = translateChainError(rpc(notOwner));
    expect(translated).toBeInstanceOf(OperationReverted);
    expect(translated).toMatchObject({
      status: 422,
      code: 'operation_reverted',
      message: `The call would revert: NotSlotOwner(5, ${zeroAddress}, ${zeroAddress})`,
      details: { revert_reason: `NotSlotOwner(5, ${zeroAddress}, ${zeroAddress})` },
      // The decoded revert travels up typed: callers act on its name and arguments, not on the text.
      revert: { name: 'NotSlotOwner', args: [5n, zeroAddress, zeroAddress] },
    });
  });

  it('treats a silent node as chain_unavailable and passes unknown errors through', () => {
    const down = new HttpRequestError({ url: 'http://node', details: 'fetch failed' });
    expect(isTransportError(down)).toBe(true);
    expect(translateChainError(down)).toMatchObject({ status: 503, code: 'chain_unavailable' });
    const bug = new TypeError('x is undefined');
    expect(translateChainError(bug)).toBe(bug);
  });
});

describe('revert reasons', () => {
  it('decodes require strings, panics, custom errors and unknown selectors', () => {
    const errorString = encodeErrorResult({
      abi: [{ type: 'error', name: 'Error', inputs: [{ name: 'message', type: 'string' }] }],
      errorName: 'Error',
      args: ['ERC20: transfer amount exceeds balance'],
    });
    expect(decodeRevertReason(errorString).message).toBe('ERC20: transfer amount exceeds balance');
    const panic = encodeErrorResult({
      abi: [{ type: 'error', name: 'Panic', inputs: [{ name: 'code', type: 'uint256' }] }],
      errorName: 'Panic',
      args: [0x11n],
    });
    expect(decodeRevertReason(panic)).toMatchObject({ name: 'Panic', message: 'panic 0x11' });
    expect(decodeRevertReason('0xdeadbeef').message).toBe('custom error 0xdeadbeef');
    expect(decodeRevertReason('0x').message).toBe('reverted without a reason');
  });
});

describe('sponsorship window (spec: validUntil = now + 5 minutes, validAfter = now)', () => {
  it('is now … now + 300 s when the chain agrees with the wall clock', () => {
    expect(sponsorshipWindow(1_000, 1_000)).toEqual({
      validAfter: 1_000,
      validUntil: 1_000 + SPONSORSHIP_SECONDS,
    });
  });
  it('is never "not due" on a chain whose latest block is older, nor expired on one that runs ahead', () => {
    expect(sponsorshipWindow(1_000, 900)).toEqual({ validAfter: 900, validUntil: 1_300 });
    expect(sponsorshipWindow(1_000, 1_100)).toEqual({ validAfter: 1_000, validUntil: 1_400 });
  });
});

describe('owner signatures from key buffers', () => {
  it('match viem signMessage({raw}) and the key’s address', async () => {
    const hex = keccak256(toHex('a private key'));
    const key = Buffer.from(hex.slice(2), 'hex');
    const account = privateKeyToAccount(hex);
    const hash = keccak256(toHex('an operation'));
    expect(addressOfPrivateKey(key)).toBe(account.address);
    expect(signEthMessageHash(hash, key)).toBe(await account.signMessage({ message: { raw: hash } }));
  });
});
