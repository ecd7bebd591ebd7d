import { parseEther, parseEventLogs, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dauthPaymasterAbi,
  decodePaymasterAndData,
  encodePaymasterAndData,
  entryPointAbi,
  getPaymasterHash,
  getUserOpHash,
  type UserOperation,
} from '../src/index.js';
import { revertOf, startTestChain, testKey, type TestChain } from './support/chain.js';

let chain: TestChain;
const owner = testKey('paymaster/owner');

beforeAll(async () => {
  chain = await startTestChain();
});

afterAll(async () => {
  await chain?.anvil.stop();
});

const paymaster = () => ({ address: chain.addresses.paymaster, abi: dauthPaymasterAbi });

/** Re-signs `op` as its owner after its paymasterAndData was altered, so only the paymaster check can fail. */
async function resignedWith(op: UserOperation, paymasterAndData: Hex): Promise<UserOperation> {
  const altered = { ...op, paymasterAndData };
  const hash = getUserOpHash(altered, chain.addresses.entry_point, 31337);
  return { ...altered, signature: await owner.signMessage({ message: { raw: hash } }) };
}

describe('DauthPaymaster', () => {
  it('computes the same hash as getPaymasterHash', async () => {
    const op = await chain.operation({ owner, callData: chain.execute(chain.counter, 0n, chain.increment) });
    const onChain = await chain.publicClient.readContract({
      ...paymaster(),
      functionName: 'getHash',
      args: [op, 1_900_000_000, 1_700_000_000],
    });
    expect(onChain).toBe(
      getPaymasterHash(op, {
        paymaster: chain.addresses.paymaster,
        chainId: 31337,
        validUntil: 1_900_000_000,
        validAfter: 1_700_000_000,
      }),
    );
  });

  it('sponsors a signed operation from its deposit', async () => {
    const before = await chain.publicClient.readContract({ ...paymaster(), functionName: 'getDeposit' });
    const receipt = await chain.handleOps([
      await chain.operation({ owner, callData: chain.execute(chain.counter, 0n, chain.increment) }),
    ]);
    const [event] = parseEventLogs({
      abi: entryPointAbi,
      eventName: 'UserOperationEvent',
      logs: receipt.logs,
    });
    expect(event?.args.paymaster).toBe(chain.addresses.paymaster);
    const after = await chain.publicClient.readContract({ ...paymaster(), functionName: 'getDeposit' });
    expect(before - after).toBe(event?.args.actualGasCost);
    // The wallet itself never paid: it holds no ether at all.
    expect(await chain.publicClient.getBalance({ address: chain.walletAddress(owner.address) })).toBe(0n);
  });

  it('is rejected with AA32 once validUntil has passed', async () => {
    const now = await chain.latestTimestamp();
    const op = await chain.operation({
      owner,
      callData: chain.execute(chain.counter, 0n, chain.increment),
      validUntil: now - 1,
      validAfter: now - 600,
    });
    expect(await chain.rejectionOf([op])).toBe('AA32 paymaster expired or not due');
  });

  it('is rejected with AA32 before validAfter', async () => {
    const now = await chain.latestTimestamp();
    const op = await chain.operation({
      owner,
      callData: chain.execute(chain.counter, 0n, chain.increment),
      validUntil: now + 3_600,
      validAfter: now + 600,
    });
    expect(await chain.rejectionOf([op])).toBe('AA32 paymaster expired or not due');
  });

  it('is rejected with AA34 when someone else signed the sponsorship', async () => {
    const op = await chain.operation({
      owner,
      callData: chain.execute(chain.counter, 0n, chain.increment),
      paymasterSigner: testKey('paymaster/forger'),
    });
    expect(await chain.rejectionOf([op])).toBe('AA34 signature error');
  });

  it('is rejected with AA34 when the operation is changed after sponsorship', async () => {
    const op = await chain.operation({ owner, callData: chain.execute(chain.counter, 0n, chain.increment) });
    const tampered = { ...op, callGasLimit: op.callGasLimit + 1n };
    const hash = getUserOpHash(tampered, chain.addresses.entry_point, 31337);
    const resigned = { ...tampered, signature: await owner.signMessage({ message: { raw: hash } }) };
    expect(await chain.rejectionOf([resigned])).toBe('AA34 signature error');
  });

  it('is rejected when the window is extended after signing, or the signature is malformed', async () => {
    const op = await chain.operation({ owner, callData: chain.execute(chain.counter, 0n, chain.increment) });
    const sponsorship = decodePaymasterAndData(op.paymasterAndData);
    const extended = encodePaymasterAndData(
      sponsorship.paymaster,
      sponsorship.validUntil + 3_600,
      sponsorship.validAfter,
      sponsorship.signature,
    );
    expect(await chain.rejectionOf([await resignedWith(op, extended)])).toBe('AA34 signature error');
    const truncated = encodePaymasterAndData(
      sponsorship.paymaster,
      sponsorship.validUntil,
      sponsorship.validAfter,
      `0x${sponsorship.signature.slice(2, 130)}`,
    );
    expect(await chain.rejectionOf([await resignedWith(op, truncated)])).toBe('AA34 signature error');
    expect(await chain.rejectionOf([await resignedWith(op, chain.addresses.paymaster)])).toMatch(
      /^AA33 reverted/,
    );
  });

  it('only answers the EntryPoint', async () => {
    const op = await chain.operation({ owner, callData: '0x' });
    expect(
      await revertOf(() =>
        chain.publicClient.readContract({
          ...paymaster(),
          account: chain.stranger,
          functionName: 'validatePaymasterUserOp',
          args: [op, getUserOpHash(op, chain.addresses.entry_point, 31337), 0n],
        }),
      ),
    ).toBe('NotFromEntryPoint');
  });

  it('lets only its owner rotate the signer, after which old signatures fail', async () => {
    const next = testKey('paymaster/next-signer');
    expect(
      await revertOf(() =>
        chain.walletFor(chain.stranger).writeContract({
          ...paymaster(),
          functionName: 'setVerifyingSigner',
          args: [next.address],
        }),
      ),
    ).toBe('Ownable: caller is not the owner');

    const signedByOld = await chain.operation({
      owner,
      callData: chain.execute(chain.counter, 0n, chain.increment),
    });
    const receipt = await chain.mined(
      chain.walletFor(chain.deployer).writeContract({
        ...paymaster(),
        functionName: 'setVerifyingSigner',
        args: [next.address],
      }),
    );
    const [rotated] = parseEventLogs({
      abi: dauthPaymasterAbi,
      eventName: 'VerifyingSignerChanged',
      logs: receipt.logs,
    });
    expect(rotated?.args).toEqual({ previousSigner: chain.platformSigner.address, newSigner: next.address });
    expect(await chain.publicClient.readContract({ ...paymaster(), functionName: 'verifyingSigner' })).toBe(
      next.address,
    );

    expect(await chain.rejectionOf([signedByOld])).toBe('AA34 signature error');
    const signedByNew = await chain.operation({
      owner,
      callData: chain.execute(chain.counter, 0n, chain.increment),
      paymasterSigner: next,
    });
    await chain.handleOps([signedByNew]);
  });

  it('takes deposits from anyone and pays withdrawals only to its owner', async () => {
    const before = await chain.publicClient.readContract({ ...paymaster(), functionName: 'getDeposit' });
    await chain.mined(
      chain
        .walletFor(chain.stranger)
        .writeContract({ ...paymaster(), functionName: 'deposit', value: parseEther('2') }),
    );
    expect(await chain.publicClient.readContract({ ...paymaster(), functionName: 'getDeposit' })).toBe(
      before + parseEther('2'),
    );
    const sink = testKey('paymaster/sink').address;
    expect(
      await revertOf(() =>
        chain.walletFor(chain.stranger).writeContract({
          ...paymaster(),
          functionName: 'withdrawTo',
          args: [sink, 1n],
        }),
      ),
    ).toBe('Ownable: caller is not the owner');
    await chain.mined(
      chain.walletFor(chain.deployer).writeContract({
        ...paymaster(),
        functionName: 'withdrawTo',
        args: [sink, parseEther('1')],
      }),
    );
    expect(await chain.publicClient.getBalance({ address: sink })).toBe(parseEther('1'));
    expect(await chain.publicClient.readContract({ ...paymaster(), functionName: 'getDeposit' })).toBe(
      before + parseEther('1'),
    );
  });
});
