import {
  encodeFunctionData,
  keccak256,
  parseEther,
  parseEventLogs,
  stringToBytes,
  type Address,
  type Hex,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dauthContentTokenAbi, dauthTokenAbi } from '../src/index.js';
import { revertOf, startTestChain, testKey, type TestChain } from './support/chain.js';

let chain: TestChain;
const CUID = 'game-42';
const provider = testKey('content/provider').address;
const slotA = testKey('content/slot-a').address;
const slotB = testKey('content/slot-b').address;
/** Slot of the batch-key tests, apart from the figures the settlement tests expect of slot A. */
const slotC = testKey('content/slot-c').address;

beforeAll(async () => {
  chain = await startTestChain();
});

afterAll(async () => {
  await chain?.anvil.stop();
});

const token = () => ({ address: chain.addresses.content_token, abi: dauthContentTokenAbi });
const asOperator = () => chain.walletFor(chain.operator);
const balances = async (slot: Address) => ({
  balance: await chain.publicClient.readContract({
    ...token(),
    functionName: 'balanceOf',
    args: [CUID, slot],
  }),
  used: await chain.publicClient.readContract({
    ...token(),
    functionName: 'usedBalanceOf',
    args: [CUID, slot],
  }),
});
let batchCounter = 0;
/** A fresh batch key per call, as the server names every batch once. */
const nextBatchKey = (): Hex => keccak256(stringToBytes(`test-batch-${++batchCounter}`));
const batchRecorded = (batchKey: Hex, cuid: string) =>
  chain.publicClient.readContract({ ...token(), functionName: 'usageBatchRecorded', args: [batchKey, cuid] });
const recordUsage = (slots: Address[], amounts: bigint[], batchKey: Hex = nextBatchKey(), cuid = CUID) =>
  asOperator().writeContract({
    ...token(),
    functionName: 'recordUsage',
    args: [batchKey, cuid, slots, amounts],
  });

describe('provider registration', () => {
  it('is operator only and validates its terms', async () => {
    expect(
      await revertOf(() =>
        chain.walletFor(chain.stranger).writeContract({
          ...token(),
          functionName: 'registerProvider',
          args: ['client-1', CUID, 40, provider],
        }),
      ),
    ).toBe('NotOperator');
    expect(
      await revertOf(() =>
        asOperator().writeContract({
          ...token(),
          functionName: 'registerProvider',
          args: ['client-1', CUID, 101, provider],
        }),
      ),
    ).toBe('InvalidReleasePer');
  });

  it('binds a cuid to one client; the same client may update its terms', async () => {
    const receipt = await chain.mined(
      asOperator().writeContract({
        ...token(),
        functionName: 'registerProvider',
        args: ['client-1', CUID, 40, provider],
      }),
    );
    const [registered] = parseEventLogs({
      abi: dauthContentTokenAbi,
      eventName: 'ProviderRegistered',
      logs: receipt.logs,
    });
    expect(registered?.args).toMatchObject({
      cuid: CUID,
      clientId: 'client-1',
      releasePer: 40,
      ownerAddr: provider,
    });
    expect(
      await revertOf(() =>
        asOperator().writeContract({
          ...token(),
          functionName: 'registerProvider',
          args: ['client-2', CUID, 50, provider],
        }),
      ),
    ).toBe('CuidTaken');
    await chain.mined(
      asOperator().writeContract({
        ...token(),
        functionName: 'registerProvider',
        args: ['client-1', CUID, 50, provider],
      }),
    );
    expect(
      await chain.publicClient.readContract({ ...token(), functionName: 'providerOf', args: [CUID] }),
    ).toEqual(['client-1', provider, 50, false, 0n]);
  });
});

describe('purchase', () => {
  it('pays the treasury 15% and the provider the rest in the same transaction, 1 unit per wei', async () => {
    const value = 1_000_000_000_000_000_007n;
    const platformFee = 150_000_000_000_000_001n; // floor(value * 15 / 100)
    const providerAmount = value - platformFee; // 85% plus the rounding remainder
    const treasuryBefore = await chain.publicClient.getBalance({ address: chain.treasury.address });
    const receipt = await chain.mined(
      chain
        .walletFor(chain.stranger)
        .writeContract({ ...token(), functionName: 'buy', args: [CUID, slotA], value }),
    );
    expect(await chain.publicClient.getBalance({ address: chain.treasury.address })).toBe(
      treasuryBefore + platformFee,
    );
    expect(await chain.publicClient.getBalance({ address: provider })).toBe(providerAmount);
    expect(await chain.publicClient.getBalance({ address: chain.addresses.content_token })).toBe(0n);
    expect(await balances(slotA)).toEqual({ balance: value, used: 0n });
    const [bought] = parseEventLogs({
      abi: dauthContentTokenAbi,
      eventName: 'ContentTokenBought',
      logs: receipt.logs,
    });
    expect(bought?.args).toMatchObject({
      slot: slotA,
      buyer: chain.stranger.address,
      amount: value,
      platformFee,
      providerAmount,
    });
  });

  it('is paid by the slot owner wallet through a sponsored operation', async () => {
    const owner = testKey('content/wallet-owner');
    const wallet = chain.walletAddress(owner.address);
    await chain.fund(wallet, parseEther('1'));
    const buy = encodeFunctionData({ abi: dauthContentTokenAbi, functionName: 'buy', args: [CUID, slotB] });
    await chain.handleOps([
      await chain.operation({ owner, callData: chain.execute(chain.addresses.content_token, 1_000n, buy) }),
    ]);
    expect(await balances(slotB)).toEqual({ balance: 1_000n, used: 0n });
    expect(await chain.publicClient.getBalance({ address: wallet })).toBe(parseEther('1') - 1_000n);
  });

  it('refuses unknown cuids and empty payments', async () => {
    const stranger = chain.walletFor(chain.stranger);
    expect(
      await revertOf(() =>
        stranger.writeContract({ ...token(), functionName: 'buy', args: ['nope', slotA], value: 1n }),
      ),
    ).toBe('UnknownCuid');
    expect(
      await revertOf(() => stranger.writeContract({ ...token(), functionName: 'buy', args: [CUID, slotA] })),
    ).toBe('ZeroAmount');
  });
});

describe('consumption', () => {
  it('moves exactly the recorded amounts from balance to used balance, in one batch', async () => {
    const before = { a: await balances(slotA), b: await balances(slotB) };
    const receipt = await chain.mined(recordUsage([slotA, slotB, slotA], [100n, 250n, 5n]));
    expect(await balances(slotA)).toEqual({ balance: before.a.balance - 105n, used: 105n });
    expect(await balances(slotB)).toEqual({ balance: before.b.balance - 250n, used: 250n });
    const events = parseEventLogs({
      abi: dauthContentTokenAbi,
      eventName: 'UsageRecorded',
      logs: receipt.logs,
    });
    expect(events.map((event) => [event.args.slot, event.args.amount, event.args.usedBalance])).toEqual([
      [slotA, 100n, 100n],
      [slotB, 250n, 250n],
      [slotA, 5n, 105n],
    ]);
  });

  it('refuses an over-balance record and changes nothing of its batch', async () => {
    const before = { a: await balances(slotA), b: await balances(slotB) };
    expect(await revertOf(() => recordUsage([slotA, slotB], [1n, before.b.balance + 1n]))).toBe(
      'InsufficientBalance',
    );
    expect(await revertOf(() => recordUsage([slotA], [0n]))).toBe('InsufficientBalance');
    expect(await revertOf(() => recordUsage([slotA], [1n, 2n]))).toBe('LengthMismatch');
    expect({ a: await balances(slotA), b: await balances(slotB) }).toEqual(before);
  });

  it('counts a resent batch once: the same batch key changes nothing the second time', async () => {
    await chain.mined(
      chain
        .walletFor(chain.stranger)
        .writeContract({ ...token(), functionName: 'buy', args: [CUID, slotC], value: 1_000n }),
    );
    const batchKey = nextBatchKey();
    const before = await balances(slotC);
    const first = await chain.mined(recordUsage([slotC, slotC], [7n, 3n], batchKey));
    const marker = parseEventLogs({
      abi: dauthContentTokenAbi,
      eventName: 'UsageBatchRecorded',
      logs: first.logs,
    });
    expect(marker.map((e) => e.args)).toEqual([
      { batchKey, cuidHash: keccak256(stringToBytes(CUID)), records: 2n },
    ]);
    expect(await balances(slotC)).toEqual({ balance: before.balance - 10n, used: before.used + 10n });
    expect(await batchRecorded(batchKey, CUID)).toBe(true);

    // The resend succeeds (so a late first transaction never makes the resend fail) but records nothing.
    const resent = await chain.mined(recordUsage([slotC, slotC], [7n, 3n], batchKey));
    expect(resent.status).toBe('success');
    expect(
      parseEventLogs({ abi: dauthContentTokenAbi, logs: resent.logs }).filter(
        (e) => e.eventName === 'UsageRecorded' || e.eventName === 'UsageBatchRecorded',
      ),
    ).toEqual([]);
    expect(await balances(slotC)).toEqual({ balance: before.balance - 10n, used: before.used + 10n });
    const { result } = await chain.publicClient.simulateContract({
      ...token(),
      account: chain.operator,
      functionName: 'recordUsage',
      args: [batchKey, CUID, [slotC], [1n]],
    });
    expect(result).toBe(false);
  });

  it('keeps batch keys apart per cuid, and a refused batch does not use up its key', async () => {
    const batchKey = nextBatchKey();
    const before = await balances(slotC);
    expect(await revertOf(() => recordUsage([slotC], [before.balance + 1n], batchKey))).toBe(
      'InsufficientBalance',
    );
    expect(await batchRecorded(batchKey, CUID)).toBe(false);
    await chain.mined(recordUsage([slotC], [2n], batchKey));
    expect(await balances(slotC)).toEqual({ balance: before.balance - 2n, used: before.used + 2n });
    // The same key under another cuid is another batch (one operation carries one call per cuid).
    expect(await batchRecorded(batchKey, 'another-game')).toBe(false);
  });

  it('is operator only', async () => {
    expect(
      await revertOf(() =>
        chain.walletFor(chain.stranger).writeContract({
          ...token(),
          functionName: 'recordUsage',
          args: [nextBatchKey(), CUID, [slotA], [1n]],
        }),
      ),
    ).toBe('NotOperator');
  });
});

describe('settlement', () => {
  const release = (slot: Address) =>
    asOperator().writeContract({ ...token(), functionName: 'release', args: [CUID, slot] });

  it('is off by default and switched only by the platform', async () => {
    expect(
      await chain.publicClient.readContract({ ...token(), functionName: 'releaseEnabled', args: [CUID] }),
    ).toBe(false);
    expect(await revertOf(() => release(slotA))).toBe('ReleaseDisabled');
    expect(
      await revertOf(() =>
        chain
          .walletFor(chain.stranger)
          .writeContract({ ...token(), functionName: 'setReleaseEnabled', args: [CUID, true] }),
      ),
    ).toBe('NotOperator');
    await chain.mined(
      chain
        .walletFor(chain.deployer)
        .writeContract({ ...token(), functionName: 'setReleaseEnabled', args: [CUID, true] }),
    );
    expect(
      await chain.publicClient.readContract({ ...token(), functionName: 'releaseEnabled', args: [CUID] }),
    ).toBe(true);
  });

  it('pays (used - released) * releasePer / 100 from the pool, never twice for the same usage', async () => {
    // slotA used 105 units so far; releasePer is 50 → 52 wei (rounded down).
    expect(await revertOf(() => release(slotA))).toBe('InsufficientPool');
    await chain.mined(
      chain
        .walletFor(chain.operator)
        .writeContract({ ...token(), functionName: 'fundPool', args: [CUID], value: 1_000n }),
    );
    expect(
      await chain.publicClient.readContract({
        ...token(),
        functionName: 'releasableOf',
        args: [CUID, slotA],
      }),
    ).toEqual([105n, 52n]);
    const providerBefore = await chain.publicClient.getBalance({ address: provider });
    const receipt = await chain.mined(release(slotA));
    const [released] = parseEventLogs({
      abi: dauthContentTokenAbi,
      eventName: 'Released',
      logs: receipt.logs,
    });
    expect(released?.args).toMatchObject({ slot: slotA, ownerAddr: provider, usage: 105n, paid: 52n });
    expect(await chain.publicClient.getBalance({ address: provider })).toBe(providerBefore + 52n);
    expect(await chain.publicClient.readContract({ ...token(), functionName: 'poolOf', args: [CUID] })).toBe(
      948n,
    );
    expect(
      await chain.publicClient.readContract({ ...token(), functionName: 'releasedOf', args: [CUID, slotA] }),
    ).toBe(105n);

    expect(await revertOf(() => release(slotA))).toBe('NothingToRelease');
    await chain.mined(recordUsage([slotA], [40n]));
    await chain.mined(release(slotA));
    expect(await chain.publicClient.getBalance({ address: provider })).toBe(providerBefore + 52n + 20n);
    expect(await chain.publicClient.readContract({ ...token(), functionName: 'poolOf', args: [CUID] })).toBe(
      928n,
    );
    expect(
      await revertOf(() =>
        chain
          .walletFor(chain.stranger)
          .writeContract({ ...token(), functionName: 'release', args: [CUID, slotB] }),
      ),
    ).toBe('NotOperator');
  });

  it('returns pool funds only to the owner', async () => {
    const sink = testKey('content/sink').address;
    expect(
      await revertOf(() =>
        asOperator().writeContract({ ...token(), functionName: 'withdrawPool', args: [CUID, sink, 1n] }),
      ),
    ).toBe('Ownable: caller is not the owner');
    await chain.mined(
      chain
        .walletFor(chain.deployer)
        .writeContract({ ...token(), functionName: 'withdrawPool', args: [CUID, sink, 28n] }),
    );
    expect(await chain.publicClient.getBalance({ address: sink })).toBe(28n);
    expect(await chain.publicClient.readContract({ ...token(), functionName: 'poolOf', args: [CUID] })).toBe(
      900n,
    );
  });
});

describe('amending frozen terms', () => {
  const newOwner = testKey('content/new-owner').address;
  const read = <F extends 'unsettledUsageOf' | 'releasableOf' | 'providerOf'>(
    functionName: F,
    args: unknown[],
  ) => chain.publicClient.readContract({ ...token(), functionName, args } as never) as Promise<unknown>;
  const releasable = async (slot: Address) => (await read('releasableOf', [CUID, slot])) as [bigint, bigint];
  const amend = (slots: Address[], from = asOperator()) =>
    from.writeContract({ ...token(), functionName: 'amendTerms', args: [CUID, 100, newOwner, slots] });

  it('applies new terms only once all unsettled usage is settled at the old ones, paid to the old owner', async () => {
    const [b, c] = [await releasable(slotB), await releasable(slotC)];
    expect(b[0]).toBeGreaterThan(0n);
    expect(c[0]).toBeGreaterThan(0n);
    expect(await read('unsettledUsageOf', [CUID])).toBe(b[0] + c[0]);

    // Slot C's usage left out (as when it lands between the server's reading and this call): refused whole.
    expect(await revertOf(() => amend([slotA, slotB]))).toBe('UnsettledUsage');
    expect(await releasable(slotB)).toEqual(b);
    expect(await revertOf(() => amend([slotA, slotB, slotC], chain.walletFor(chain.stranger)))).toBe(
      'NotOperator',
    );

    const oldOwnerBefore = await chain.publicClient.getBalance({ address: provider });
    const receipt = await chain.mined(amend([slotA, slotB, slotC]));
    const released = parseEventLogs({ abi: dauthContentTokenAbi, eventName: 'Released', logs: receipt.logs });
    expect(released.map((e) => [e.args.slot, e.args.ownerAddr, e.args.usage, e.args.paid])).toEqual([
      [slotB, provider, b[0], b[1]],
      [slotC, provider, c[0], c[1]],
    ]);
    expect(await chain.publicClient.getBalance({ address: provider })).toBe(oldOwnerBefore + b[1] + c[1]);
    expect(await read('unsettledUsageOf', [CUID])).toBe(0n);
    expect(await read('providerOf', [CUID])).toEqual(['client-1', newOwner, 100, true, 900n - b[1] - c[1]]);

    // Usage after the change is paid at the new terms, to the new owner; settling nothing is no error.
    await chain.mined(recordUsage([slotB], [10n]));
    await chain.mined(
      asOperator().writeContract({ ...token(), functionName: 'settle', args: [CUID, [slotA, slotB, slotC]] }),
    );
    expect(await chain.publicClient.getBalance({ address: newOwner })).toBe(10n);
    expect(await chain.publicClient.getBalance({ address: provider })).toBe(oldOwnerBefore + b[1] + c[1]);
  });

  it('refuses a provider terms change once release was enabled, even disabled again; amendTerms still changes them', async () => {
    const cuid = 'game-frozen';
    const register = (releasePer: number, ownerAddr: Address = provider) =>
      asOperator().writeContract({
        ...token(),
        functionName: 'registerProvider',
        args: ['client-f', cuid, releasePer, ownerAddr],
      });
    const setRelease = (enabled: boolean) =>
      asOperator().writeContract({ ...token(), functionName: 'setReleaseEnabled', args: [cuid, enabled] });
    const terms = async () => {
      const [, ownerAddr, releasePer] = await chain.publicClient.readContract({
        ...token(),
        functionName: 'providerOf',
        args: [cuid],
      });
      return { ownerAddr, releasePer };
    };
    const frozen = () =>
      chain.publicClient.readContract({ ...token(), functionName: 'termsFrozen', args: [cuid] });
    await chain.mined(register(40));
    await chain.mined(register(50)); // not frozen yet: the provider may change them
    expect(await frozen()).toBe(false);

    await chain.mined(setRelease(true));
    expect(await frozen()).toBe(true);
    expect(await revertOf(() => register(100))).toBe('TermsFrozen');
    expect(await revertOf(() => register(50, newOwner))).toBe('TermsFrozen');
    await chain.mined(register(50)); // the same terms again: a harmless retry
    await chain.mined(setRelease(false));
    expect(await revertOf(() => register(100))).toBe('TermsFrozen');
    expect(await terms()).toEqual({ ownerAddr: provider, releasePer: 50 });

    await chain.mined(
      asOperator().writeContract({ ...token(), functionName: 'amendTerms', args: [cuid, 100, newOwner, []] }),
    );
    expect(await terms()).toEqual({ ownerAddr: newOwner, releasePer: 100 });
    expect(await frozen()).toBe(true);
    expect(await revertOf(() => register(20, newOwner))).toBe('TermsFrozen');
  });
});

describe('DauthToken', () => {
  it('mints only for its owner', async () => {
    const erc20 = { address: chain.addresses.token, abi: dauthTokenAbi };
    expect(
      await revertOf(() =>
        chain.walletFor(chain.stranger).writeContract({ ...erc20, functionName: 'mint', args: [slotA, 1n] }),
      ),
    ).toBe('Ownable: caller is not the owner');
    await chain.mined(
      chain
        .walletFor(chain.deployer)
        .writeContract({ ...erc20, functionName: 'mint', args: [slotA, 10n ** 18n] }),
    );
    expect(
      await chain.publicClient.readContract({ ...erc20, functionName: 'balanceOf', args: [slotA] }),
    ).toBe(10n ** 18n);
    expect(await chain.publicClient.readContract({ ...erc20, functionName: 'symbol' })).toBe('DAUTH');
  });
});
