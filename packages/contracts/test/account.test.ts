import { encodeFunctionData, parseEther, parseEventLogs, zeroAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dauthAccountAbi,
  dauthAccountFactoryAbi,
  entryPointAbi,
  getAccountCreationCode,
  getUserOpHash,
  testCounterAbi,
  type UserOperation,
} from '../src/index.js';
import { revertOf, startTestChain, testKey, type TestChain } from './support/chain.js';

let chain: TestChain;

beforeAll(async () => {
  chain = await startTestChain();
});

afterAll(async () => {
  await chain?.anvil.stop();
});

describe('DauthAccountFactory', () => {
  it('predicts the spec formula, and the first operation deploys exactly there through initCode', async () => {
    const owner = testKey('account/first');
    const predicted = chain.walletAddress(owner.address, 0n);
    const onChain = await chain.publicClient.readContract({
      address: chain.addresses.account_factory,
      abi: dauthAccountFactoryAbi,
      functionName: 'getAddress',
      args: [owner.address, 0n],
    });
    expect(onChain).toBe(predicted);
    expect(
      await chain.publicClient.readContract({
        address: chain.addresses.account_factory,
        abi: dauthAccountFactoryAbi,
        functionName: 'accountCreationCode',
        args: [owner.address],
      }),
    ).toBe(getAccountCreationCode(chain.implementation, owner.address));
    expect(await chain.publicClient.getCode({ address: predicted })).toBeUndefined();

    const first = await chain.operation({
      owner,
      callData: chain.execute(chain.counter, 0n, chain.increment),
    });
    expect(first.initCode).not.toBe('0x');
    expect(first.nonce).toBe(0n);
    const receipt = await chain.handleOps([first]);

    const [deployed] = parseEventLogs({
      abi: entryPointAbi,
      eventName: 'AccountDeployed',
      logs: receipt.logs,
    });
    expect(deployed?.args.sender).toBe(predicted);
    expect(deployed?.args.factory).toBe(chain.addresses.account_factory);
    expect(deployed?.args.paymaster).toBe(chain.addresses.paymaster);
    const [event] = parseEventLogs({
      abi: entryPointAbi,
      eventName: 'UserOperationEvent',
      logs: receipt.logs,
    });
    expect(event?.args.success).toBe(true);
    expect(event?.args.userOpHash).toBe(getUserOpHash(first, chain.addresses.entry_point, 31337));
    expect(await chain.countOf(predicted)).toBe(1n);
    // EIP-1167 runtime (45 bytes) followed by the owner.
    const code = await chain.publicClient.getCode({ address: predicted });
    expect(code).toBe(
      getAccountCreationCode(chain.implementation, owner.address).replace('0x3d604180600a3d3981f3', '0x'),
    );
    expect(
      await chain.publicClient.readContract({
        address: predicted,
        abi: dauthAccountAbi,
        functionName: 'owner',
      }),
    ).toBe(owner.address);

    const later = await chain.operation({
      owner,
      callData: chain.execute(chain.counter, 0n, chain.increment),
    });
    expect(later.initCode).toBe('0x');
    expect(later.nonce).toBe(1n);
    await chain.handleOps([later]);
    expect(await chain.countOf(predicted)).toBe(2n);
  });

  it('gives each salt its own wallet from the same owner (W_SALT 0, C_SALT = slot id)', async () => {
    const owner = testKey('account/salts');
    const main = chain.walletAddress(owner.address, 0n);
    const content = chain.walletAddress(owner.address, 1234567890123456789n);
    expect(content).not.toBe(main);
    await chain.handleOps([
      await chain.operation({
        owner,
        salt: 1234567890123456789n,
        callData: chain.execute(chain.counter, 0n, chain.increment),
      }),
    ]);
    expect(await chain.countOf(content)).toBe(1n);
    expect(await chain.publicClient.getCode({ address: main })).toBeUndefined();
  });

  it('returns the existing wallet instead of failing, and refuses a zero owner', async () => {
    const owner = testKey('account/twice');
    const factory = chain.walletFor(chain.stranger);
    const args = [owner.address, 9n] as const;
    const { result } = await chain.publicClient.simulateContract({
      account: chain.stranger,
      address: chain.addresses.account_factory,
      abi: dauthAccountFactoryAbi,
      functionName: 'createAccount',
      args,
    });
    await chain.mined(
      factory.writeContract({
        address: chain.addresses.account_factory,
        abi: dauthAccountFactoryAbi,
        functionName: 'createAccount',
        args,
      }),
    );
    const second = await chain.mined(
      factory.writeContract({
        address: chain.addresses.account_factory,
        abi: dauthAccountFactoryAbi,
        functionName: 'createAccount',
        args,
      }),
    );
    expect(second.status).toBe('success');
    expect(result).toBe(chain.walletAddress(owner.address, 9n));
    expect(
      await revertOf(() =>
        chain.publicClient.simulateContract({
          account: chain.stranger,
          address: chain.addresses.account_factory,
          abi: dauthAccountFactoryAbi,
          functionName: 'createAccount',
          args: [zeroAddress, 0n],
        }),
      ),
    ).toBe('InvalidOwner');
  });
});

describe('DauthAccount', () => {
  const owner = testKey('account/main');
  let wallet: `0x${string}`;

  beforeAll(async () => {
    wallet = chain.walletAddress(owner.address);
    await chain.handleOps([
      await chain.operation({ owner, callData: chain.execute(chain.counter, 0n, chain.increment) }),
    ]);
    await chain.fund(wallet, parseEther('5'));
    await chain.fund(owner.address, parseEther('1'));
  });

  it('lets its owner EOA call execute directly, and nobody else', async () => {
    await chain.mined(
      chain.walletFor(owner).writeContract({
        address: wallet,
        abi: dauthAccountAbi,
        functionName: 'execute',
        args: [chain.counter, 0n, chain.increment],
      }),
    );
    expect(await chain.countOf(wallet)).toBe(2n);
    const stranger = chain.walletFor(chain.stranger);
    expect(
      await revertOf(() =>
        stranger.writeContract({
          address: wallet,
          abi: dauthAccountAbi,
          functionName: 'execute',
          args: [chain.counter, 0n, chain.increment],
        }),
      ),
    ).toBe('Unauthorized');
    expect(
      await revertOf(() =>
        stranger.writeContract({
          address: wallet,
          abi: dauthAccountAbi,
          functionName: 'executeBatch',
          args: [[chain.counter], [], [chain.increment]],
        }),
      ),
    ).toBe('Unauthorized');
  });

  it('accepts validateUserOp only from the EntryPoint', async () => {
    const op = await chain.operation({ owner, callData: '0x' });
    expect(
      await revertOf(() =>
        chain.walletFor(owner).writeContract({
          address: wallet,
          abi: dauthAccountAbi,
          functionName: 'validateUserOp',
          args: [op, getUserOpHash(op, chain.addresses.entry_point, 31337), 0n],
        }),
      ),
    ).toBe('Unauthorized');
  });

  it('executes a batch with values, sending each call its wei', async () => {
    const recipient = testKey('account/recipient').address;
    const op = await chain.operation({
      owner,
      callData: encodeFunctionData({
        abi: dauthAccountAbi,
        functionName: 'executeBatch',
        args: [
          [chain.counter, recipient, chain.counter],
          [0n, 1234n, 5n],
          [chain.increment, '0x', chain.increment],
        ],
      }),
    });
    await chain.handleOps([op]);
    expect(await chain.countOf(wallet)).toBe(4n);
    expect(await chain.publicClient.getBalance({ address: recipient })).toBe(1234n);
    expect(await chain.publicClient.getBalance({ address: chain.counter })).toBe(5n);
  });

  it('rejects batches whose arrays disagree, and bubbles up a callee revert', async () => {
    const direct = chain.walletFor(owner);
    expect(
      await revertOf(() =>
        direct.writeContract({
          address: wallet,
          abi: dauthAccountAbi,
          functionName: 'executeBatch',
          args: [[chain.counter, chain.counter], [1n], [chain.increment, chain.increment]],
        }),
      ),
    ).toBe('ArrayLengthMismatch');
    const fail = encodeFunctionData({ abi: testCounterAbi, functionName: 'fail' });
    await expect(
      chain.publicClient.simulateContract({
        account: owner,
        address: wallet,
        abi: [...dauthAccountAbi, ...testCounterAbi],
        functionName: 'execute',
        args: [chain.counter, 0n, fail],
      }),
    ).rejects.toThrow(/Boom/);
  });

  it('pays its own prefund when an operation comes without a paymaster', async () => {
    const sponsored = await chain.operation({
      owner,
      callData: chain.execute(chain.counter, 0n, chain.increment),
    });
    const unsponsored = { ...sponsored, paymasterAndData: '0x' as const };
    const signature = await owner.signMessage({
      message: { raw: getUserOpHash(unsponsored, chain.addresses.entry_point, 31337) },
    });
    const balanceBefore = await chain.publicClient.getBalance({ address: wallet });
    const before = await chain.countOf(wallet);
    const receipt = await chain.handleOps([{ ...unsponsored, signature }]);
    const [event] = parseEventLogs({
      abi: entryPointAbi,
      eventName: 'UserOperationEvent',
      logs: receipt.logs,
    });
    expect(event?.args.paymaster).toBe(zeroAddress);
    expect(await chain.countOf(wallet)).toBe(before + 1n);
    // The prefund went to the EntryPoint; what was not used stays there as the wallet's deposit.
    const deposit = await chain.publicClient.readContract({
      address: chain.addresses.entry_point,
      abi: entryPointAbi,
      functionName: 'balanceOf',
      args: [wallet],
    });
    expect(balanceBefore - (await chain.publicClient.getBalance({ address: wallet }))).toBe(
      deposit + (event?.args.actualGasCost ?? 0n),
    );
  });

  it('rejects an operation signed by another key with AA24', async () => {
    const impostor = testKey('account/impostor');
    const op = await chain.operation({ owner, callData: chain.execute(chain.counter, 0n, chain.increment) });
    const forged: UserOperation = {
      ...op,
      signature: await impostor.signMessage({
        message: { raw: getUserOpHash(op, chain.addresses.entry_point, 31337) },
      }),
    };
    expect(await chain.rejectionOf([forged])).toBe('AA24 signature error');
  });

  it('changes owner only through the EntryPoint or itself, keeping its address', async () => {
    const successor = testKey('account/successor');
    const changeOwner = (to: `0x${string}`) =>
      encodeFunctionData({ abi: dauthAccountAbi, functionName: 'changeOwner', args: [to] });
    // Neither the owner EOA nor a stranger may call it directly.
    for (const caller of [owner, chain.stranger]) {
      expect(
        await revertOf(() =>
          chain.walletFor(caller).writeContract({
            address: wallet,
            abi: dauthAccountAbi,
            functionName: 'changeOwner',
            args: [successor.address],
          }),
        ),
      ).toBe('Unauthorized');
    }
    // Zero (or the wallet itself) would brick it.
    expect(
      await revertOf(() =>
        chain.publicClient.simulateContract({
          account: chain.addresses.entry_point,
          address: wallet,
          abi: dauthAccountAbi,
          functionName: 'changeOwner',
          args: [zeroAddress],
        }),
      ),
    ).toBe('InvalidOwner');

    const receipt = await chain.handleOps([
      await chain.operation({ owner, callData: changeOwner(successor.address) }),
    ]);
    const [changed] = parseEventLogs({ abi: dauthAccountAbi, eventName: 'OwnerChanged', logs: receipt.logs });
    expect(changed?.args).toEqual({ previousOwner: owner.address, newOwner: successor.address });
    expect(
      await chain.publicClient.readContract({ address: wallet, abi: dauthAccountAbi, functionName: 'owner' }),
    ).toBe(successor.address);
    // Same address: the factory still derives it from the first owner.
    expect(chain.walletAddress(owner.address)).toBe(wallet);

    const byOldOwner = await chain.operation({
      owner,
      callData: chain.execute(chain.counter, 0n, chain.increment),
    });
    expect(await chain.rejectionOf([byOldOwner])).toBe('AA24 signature error');
    const before = await chain.countOf(wallet);
    await chain.handleOps([
      await chain.operation({
        owner: successor,
        firstOwner: owner.address,
        callData: chain.execute(chain.counter, 0n, chain.increment),
      }),
    ]);
    expect(await chain.countOf(wallet)).toBe(before + 1n);

    // The new owner hands it back through a self-call from execute.
    await chain.fund(successor.address, parseEther('1'));
    await chain.mined(
      chain.walletFor(successor).writeContract({
        address: wallet,
        abi: dauthAccountAbi,
        functionName: 'execute',
        args: [wallet, 0n, changeOwner(owner.address)],
      }),
    );
    expect(
      await chain.publicClient.readContract({ address: wallet, abi: dauthAccountAbi, functionName: 'owner' }),
    ).toBe(owner.address);
  });

  it('keeps the implementation unusable on its own', async () => {
    const implementation = chain.implementation;
    expect(
      await chain.publicClient.readContract({
        address: implementation,
        abi: dauthAccountAbi,
        functionName: 'owner',
      }),
    ).toBe(implementation);
    expect(
      await revertOf(() =>
        chain.walletFor(chain.stranger).writeContract({
          address: implementation,
          abi: dauthAccountAbi,
          functionName: 'execute',
          args: [chain.counter, 0n, chain.increment],
        }),
      ),
    ).toBe('Unauthorized');
  });

  it('reports its EntryPoint nonce', async () => {
    const nonce = await chain.publicClient.readContract({
      address: wallet,
      abi: dauthAccountAbi,
      functionName: 'getNonce',
    });
    expect(nonce).toBe(
      await chain.publicClient.readContract({
        address: chain.addresses.entry_point,
        abi: entryPointAbi,
        functionName: 'getNonce',
        args: [wallet, 0n],
      }),
    );
    expect(nonce).toBeGreaterThan(0n);
  });
});
