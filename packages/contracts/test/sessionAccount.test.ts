/**
 * Session keys (issue 27): a legacy DauthAccount wallet, deployed exactly as today's main deploys it, joins a
 * DauthSessionAccount as its vault and keeps its address and funds; session keys then act within their policy,
 * and every operation outside it is refused by the EntryPoint with nothing changed.
 */
import {
  concat,
  getAddress,
  zeroAddress,
  encodeFunctionData,
  numberToHex,
  parseEther,
  type Address,
  type Hex,
  type LocalAccount,
} from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dauthAccountAbi,
  dauthSessionAccountAbi,
  dauthSessionAccountBytecode,
  dauthTokenAbi,
  entryPointAbi,
  signSponsoredUserOp,
  type UserOperation,
} from '../src/index.js';
import { GAS_FIELDS, revertOf, startTestChain, testKey, type TestChain } from './support/chain.js';

const DAY = 86_400;
let chain: TestChain;
let legacy: Address; // the old wallet (vault)
let account: Address; // its DauthSessionAccount
const owner = testKey('session/owner');
const sessionKey = testKey('session/key');
const recipient = testKey('session/recipient').address;

const sessionAbi = dauthSessionAccountAbi;
const call = (target: Address, value: bigint, data: Hex) =>
  encodeFunctionData({ abi: sessionAbi, functionName: 'execute', args: [target, value, data] });
const batch = (calls: [Address, bigint, Hex][]) =>
  encodeFunctionData({
    abi: sessionAbi,
    functionName: 'executeBatch',
    args: [calls.map((c) => c[0]), calls.map((c) => c[1]), calls.map((c) => c[2])],
  });
const transfer = (to: Address, amount: bigint) =>
  encodeFunctionData({ abi: dauthTokenAbi, functionName: 'transfer', args: [to, amount] });

async function today(): Promise<number> {
  return Math.floor(((await chain.latestTimestamp()) + 1) / DAY);
}

/** A sponsored operation of `sender`, signed by the owner or (with `day`) by a session key. */
async function op(
  sender: Address,
  signer: LocalAccount,
  callData: Hex,
  session?: { day?: number },
): Promise<UserOperation> {
  const now = await chain.latestTimestamp();
  const nonce = await chain.publicClient.readContract({
    address: chain.addresses.entry_point,
    abi: entryPointAbi,
    functionName: 'getNonce',
    args: [sender, 0n],
  });
  const signed = await signSponsoredUserOp(
    { sender, nonce, initCode: '0x', callData, ...GAS_FIELDS },
    {
      entryPoint: chain.addresses.entry_point,
      chainId: foundry.id,
      owner: signer,
      paymaster: chain.addresses.paymaster,
      paymasterSigner: chain.platformSigner,
      validUntil: now + 300,
      validAfter: now - 1,
    },
  );
  if (!session) return signed;
  const day = session.day ?? (await today());
  return { ...signed, signature: concat([signer.address, numberToHex(day, { size: 6 }), signed.signature]) };
}

const sessionOp = (callData: Hex, key = sessionKey, day?: number) => op(account, key, callData, { day });

async function policy(validFor = 3 * DAY) {
  return {
    targets: [chain.counter, chain.addresses.token, recipient],
    selectors: [chain.increment.slice(0, 10) as Hex, '0xa9059cbb' as Hex, '0x00000000' as Hex],
    maxValuePerCall: parseEther('1'),
    maxValuePerDay: parseEther('2'),
    tokens: [chain.addresses.token],
    tokenLimitsPerDay: [parseEther('100')],
    validUntil: (await chain.latestTimestamp()) + validFor,
  };
}

async function grant(key: LocalAccount, validFor?: number): Promise<void> {
  const data = encodeFunctionData({
    abi: sessionAbi,
    functionName: 'addSessionKey',
    args: [key.address, await policy(validFor)],
  });
  await chain.handleOps([await op(account, owner, call(account, 0n, data))]);
}

async function snapshot() {
  return {
    count: await chain.countOf(legacy),
    ether: await chain.publicClient.getBalance({ address: legacy }),
    tokens: await tokenBalance(legacy),
    nonce: await chain.publicClient.readContract({
      address: chain.addresses.entry_point,
      abi: entryPointAbi,
      functionName: 'getNonce',
      args: [account, 0n],
    }),
    spent: await chain.publicClient.readContract({
      address: account,
      abi: sessionAbi,
      functionName: 'valueSpent',
      args: [sessionKey.address, BigInt(await today())],
    }),
  };
}

async function tokenBalance(holder: Address): Promise<bigint> {
  return chain.publicClient.readContract({
    address: chain.addresses.token,
    abi: dauthTokenAbi,
    functionName: 'balanceOf',
    args: [holder],
  });
}

/** Asserts the EntryPoint refuses `operation` and that nothing of the wallet changed. */
async function refused(operation: UserOperation, reason: string): Promise<void> {
  const before = await snapshot();
  expect(await chain.rejectionOf([operation])).toContain(reason);
  expect(await snapshot()).toEqual(before);
}

beforeAll(async () => {
  chain = await startTestChain();
  // Keep the scenario inside one UTC day (the per-day counters are per chain day).
  const now = await chain.latestTimestamp();
  if (now % DAY > DAY - 7200) {
    await chain.testClient.increaseTime({ seconds: 7200 });
    // Mined at once: the next operation's paymaster window starts from the latest block's time, and a block
    // mined two hours past it would expire the window (AA32, "handleOps reverted" after 22:00 UTC).
    await chain.testClient.mine({ blocks: 1 });
  }
  // A wallet deployed by today's factory (DauthAccount, unchanged by this work) holding ether and tokens.
  await chain.handleOps([
    await chain.operation({ owner, callData: chain.execute(chain.counter, 0n, chain.increment) }),
  ]);
  legacy = chain.walletAddress(owner.address);
  await chain.fund(legacy, parseEther('10'));
  const deployer = chain.walletFor(chain.deployer);
  await chain.mined(
    deployer.writeContract({
      address: chain.addresses.token,
      abi: dauthTokenAbi,
      functionName: 'mint',
      args: [legacy, parseEther('1000')],
    }),
  );
  const receipt = await chain.mined(
    deployer.deployContract({
      abi: sessionAbi,
      bytecode: dauthSessionAccountBytecode,
      args: [chain.addresses.entry_point, owner.address, legacy],
    }),
  );
  account = getAddress(receipt.contractAddress ?? zeroAddress);
}, 240_000);

afterAll(async () => {
  await chain?.anvil.stop();
});

describe('DauthSessionAccount', () => {
  it('upgrade: the legacy wallet hands its ownership over and keeps address, funds and its owner', async () => {
    const changeOwner = encodeFunctionData({
      abi: dauthAccountAbi,
      functionName: 'changeOwner',
      args: [account],
    });
    await chain.handleOps([await chain.operation({ owner, callData: changeOwner })]);
    expect(
      await chain.publicClient.readContract({ address: legacy, abi: dauthAccountAbi, functionName: 'owner' }),
    ).toBe(account);
    expect(await chain.publicClient.getBalance({ address: legacy })).toBe(parseEther('10'));
    // The owner's operations now go through the session account, and the calls are still made by the wallet.
    await chain.handleOps([await op(account, owner, call(chain.counter, 0n, chain.increment))]);
    expect(await chain.countOf(legacy)).toBe(2n);
    expect(await chain.countOf(account)).toBe(0n);
    // The old path is closed: the owner key no longer operates the legacy wallet directly.
    expect(
      await chain.rejectionOf([
        await chain.operation({ owner, callData: chain.execute(chain.counter, 0n, chain.increment) }),
      ]),
    ).toContain('AA24');
  });

  it('grant → three session operations → limits refused on chain with nothing changed', async () => {
    await grant(sessionKey);
    await chain.handleOps([await sessionOp(call(chain.counter, 0n, chain.increment))]);
    await chain.handleOps([await sessionOp(call(recipient, parseEther('1'), '0x'))]);
    await chain.handleOps([
      await sessionOp(call(chain.addresses.token, 0n, transfer(recipient, parseEther('60')))),
    ]);
    expect(await chain.countOf(legacy)).toBe(3n);
    expect(await chain.publicClient.getBalance({ address: recipient })).toBe(parseEther('1'));
    expect(await tokenBalance(recipient)).toBe(parseEther('60'));

    await refused(await sessionOp(call(recipient, parseEther('1.5'), '0x')), 'session: value per call');
    await refused(
      await sessionOp(call(chain.addresses.token, 0n, transfer(recipient, parseEther('41')))),
      'session: token per day',
    );
    await chain.handleOps([await sessionOp(call(recipient, parseEther('1'), '0x'))]);
    await refused(await sessionOp(call(recipient, 1n, '0x')), 'session: value per day');
    // A day whose start (2^41 × 86400 = 675 × 2^48) would wrap to 0 in the uint48 window: fresh counters refused.
    await refused(
      await sessionOp(call(recipient, 1n, '0x'), sessionKey, 2 ** 41),
      'session: day out of range',
    );
    // A call the policy does not list, and a listed target with another selector.
    await refused(await sessionOp(call(chain.stranger.address, 0n, '0x')), 'session: call not allowed');
    await refused(
      await sessionOp(
        call(
          chain.addresses.token,
          0n,
          encodeFunctionData({ abi: dauthTokenAbi, functionName: 'approve', args: [recipient, 1n] }),
        ),
      ),
      'session: call not allowed',
    );
  });

  it('the next day the limits are available again; an operation naming another day is not due', async () => {
    const yesterday = await today();
    await chain.testClient.increaseTime({ seconds: DAY });
    await chain.testClient.mine({ blocks: 1 });
    await chain.handleOps([await sessionOp(call(recipient, parseEther('1'), '0x'))]);
    await chain.handleOps([
      await sessionOp(call(chain.addresses.token, 0n, transfer(recipient, parseEther('100')))),
    ]);
    expect(await chain.publicClient.getBalance({ address: recipient })).toBe(parseEther('3'));
    // An operation naming yesterday or tomorrow is outside the EntryPoint's validity window.
    await refused(await sessionOp(call(chain.counter, 0n, chain.increment), sessionKey, yesterday), 'AA22');
    await refused(
      await sessionOp(call(chain.counter, 0n, chain.increment), sessionKey, (await today()) + 1),
      'AA22',
    );
  });

  it('forbidden always: the wallet, its vault, the EntryPoint, the paymaster, admin calls, a hidden call in a batch', async () => {
    const changeOwner = encodeFunctionData({
      abi: sessionAbi,
      functionName: 'changeOwner',
      args: [sessionKey.address],
    });
    const add = encodeFunctionData({
      abi: sessionAbi,
      functionName: 'addSessionKey',
      args: [testKey('session/evil').address, await policy()],
    });
    for (const target of [account, legacy, chain.addresses.entry_point])
      await refused(await sessionOp(call(target, 0n, changeOwner)), 'session: forbidden target');
    await refused(await sessionOp(call(chain.addresses.paymaster, 0n, '0x')), 'session: forbidden target');
    await refused(await sessionOp(changeOwner), 'session: call not allowed');
    await refused(await sessionOp(add), 'session: call not allowed');
    await refused(
      await sessionOp(
        batch([
          [chain.counter, 0n, chain.increment],
          [
            legacy,
            0n,
            encodeFunctionData({
              abi: dauthAccountAbi,
              functionName: 'changeOwner',
              args: [sessionKey.address],
            }),
          ],
          [chain.counter, 0n, chain.increment],
        ]),
      ),
      'session: forbidden target',
    );
    // Allowed calls in a batch pass.
    const before = await chain.countOf(legacy);
    await chain.handleOps([
      await sessionOp(
        batch([
          [chain.counter, 0n, chain.increment],
          [chain.counter, 0n, chain.increment],
        ]),
      ),
    ]);
    expect(await chain.countOf(legacy)).toBe(before + 2n);
    // The owner cannot list a forbidden target either.
    await chain.fund(owner.address, parseEther('1'));
    const ownerWallet = chain.walletFor(owner);
    const badPolicy = { ...(await policy()), targets: [legacy], selectors: ['0x00000000' as Hex] };
    expect(
      await revertOf(() =>
        chain.publicClient.simulateContract({
          account: owner,
          address: account,
          abi: sessionAbi,
          functionName: 'execute',
          args: [
            account,
            0n,
            encodeFunctionData({
              abi: sessionAbi,
              functionName: 'addSessionKey',
              args: [testKey('session/k9').address, badPolicy],
            }),
          ],
        }),
      ),
    ).toBe('ForbiddenTarget');
    expect(ownerWallet).toBeDefined();
  });

  it('a signature by another key than the one named, and a key of no grant, are refused', async () => {
    const stranger = testKey('session/stranger');
    const forged = await sessionOp(call(chain.counter, 0n, chain.increment), stranger);
    await refused(
      { ...forged, signature: concat([sessionKey.address, forged.signature.slice(42) as Hex]) },
      'AA24',
    );
    await refused(forged, 'session: unknown or revoked key');
  });

  it('revocation by the key itself and by the owner; expiry', async () => {
    const second = testKey('session/second');
    await grant(second);
    const revokeFirst = encodeFunctionData({
      abi: sessionAbi,
      functionName: 'revokeSessionKey',
      args: [sessionKey.address],
    });
    await refused(await sessionOp(revokeFirst, second), 'session: call not allowed');
    const revokeSelf = encodeFunctionData({
      abi: sessionAbi,
      functionName: 'revokeSessionKey',
      args: [second.address],
    });
    await chain.handleOps([await sessionOp(revokeSelf, second)]);
    await refused(
      await sessionOp(call(chain.counter, 0n, chain.increment), second),
      'session: unknown or revoked key',
    );

    await chain.handleOps([await op(account, owner, call(account, 0n, revokeFirst))]);
    await refused(
      await sessionOp(call(chain.counter, 0n, chain.increment)),
      'session: unknown or revoked key',
    );

    const short = testKey('session/short');
    await grant(short, 600);
    await chain.handleOps([await sessionOp(call(chain.counter, 0n, chain.increment), short)]);
    await chain.testClient.increaseTime({ seconds: 1200 });
    await chain.testClient.mine({ blocks: 1 });
    await refused(await sessionOp(call(chain.counter, 0n, chain.increment), short), 'AA22');
  });
});
