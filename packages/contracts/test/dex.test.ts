import { parseEventLogs, zeroAddress, type Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dauthDexAbi } from '../src/index.js';
import { revertOf, startTestChain, testKey, type TestChain } from './support/chain.js';

let chain: TestChain;
const alice = testKey('dex/alice').address;
const bob = testKey('dex/bob').address;
const content = testKey('dex/content').address;
const SLOT = 1234567890123456789n;

beforeAll(async () => {
  chain = await startTestChain();
});

afterAll(async () => {
  await chain?.anvil.stop();
});

const dex = () => ({ address: chain.addresses.dex, abi: dauthDexAbi });
async function read(functionName: 'ownerOf' | 'contentAddressOf' | 'transferCount', slot: bigint) {
  const value: Address | bigint = await chain.publicClient.readContract({
    address: chain.addresses.dex,
    abi: dauthDexAbi,
    functionName,
    args: [slot],
  });
  return value;
}

describe('DauthDex', () => {
  it('lets only the operator create slots', async () => {
    for (const caller of [chain.stranger, chain.deployer]) {
      expect(
        await revertOf(() =>
          chain
            .walletFor(caller)
            .writeContract({ ...dex(), functionName: 'buy_slot', args: [alice, SLOT, content] }),
        ),
      ).toBe('NotOperator');
    }
    expect(await read('ownerOf', SLOT)).toBe(zeroAddress);
  });

  it('records owner and content wallet of a new slot, once', async () => {
    const receipt = await chain.mined(
      chain
        .walletFor(chain.operator)
        .writeContract({ ...dex(), functionName: 'buy_slot', args: [alice, SLOT, content] }),
    );
    const [bought] = parseEventLogs({ abi: dauthDexAbi, eventName: 'SlotBought', logs: receipt.logs });
    expect(bought?.args).toEqual({ slot: SLOT, owner: alice, contentAddress: content });
    expect(await read('ownerOf', SLOT)).toBe(alice);
    expect(await read('contentAddressOf', SLOT)).toBe(content);
    expect(await read('transferCount', SLOT)).toBe(0n);
    expect(
      await revertOf(() =>
        chain
          .walletFor(chain.operator)
          .writeContract({ ...dex(), functionName: 'buy_slot', args: [bob, SLOT, bob] }),
      ),
    ).toBe('SlotExists');
    expect(
      await revertOf(() =>
        chain.walletFor(chain.operator).writeContract({
          ...dex(),
          functionName: 'buy_slot',
          args: [zeroAddress, SLOT + 1n, content],
        }),
      ),
    ).toBe('ZeroAddress');
  });

  it('moves a slot only from its current owner, counting transfers', async () => {
    const operator = chain.walletFor(chain.operator);
    const move = (from: Address, to: Address) =>
      operator.writeContract({ ...dex(), functionName: 'init_self', args: [from, SLOT, to] });
    expect(await revertOf(() => move(bob, bob))).toBe('NotSlotOwner');
    expect(await revertOf(() => move(alice, alice))).toBe('SameOwner');
    expect(await revertOf(() => move(alice, zeroAddress))).toBe('ZeroAddress');
    expect(
      await revertOf(() =>
        chain
          .walletFor(chain.stranger)
          .writeContract({ ...dex(), functionName: 'init_self', args: [alice, SLOT, bob] }),
      ),
    ).toBe('NotOperator');
    expect(
      await revertOf(() =>
        operator.writeContract({ ...dex(), functionName: 'init_self', args: [alice, SLOT + 7n, bob] }),
      ),
    ).toBe('NotSlotOwner');

    const receipt = await chain.mined(move(alice, bob));
    const [moved] = parseEventLogs({ abi: dauthDexAbi, eventName: 'SlotOwnerChanged', logs: receipt.logs });
    expect(moved?.args).toEqual({ slot: SLOT, previousOwner: alice, newOwner: bob, transferCount: 1n });
    expect(await read('ownerOf', SLOT)).toBe(bob);
    expect(await read('contentAddressOf', SLOT)).toBe(content);
    expect(await revertOf(() => move(alice, bob))).toBe('NotSlotOwner');
    await chain.mined(move(bob, alice));
    expect(await read('ownerOf', SLOT)).toBe(alice);
    expect(await read('transferCount', SLOT)).toBe(2n);
  });

  it('lets only the owner rotate the operator', async () => {
    const next = chain.treasury;
    expect(
      await revertOf(() =>
        chain
          .walletFor(chain.operator)
          .writeContract({ ...dex(), functionName: 'setOperator', args: [next.address] }),
      ),
    ).toBe('Ownable: caller is not the owner');
    await chain.mined(
      chain
        .walletFor(chain.deployer)
        .writeContract({ ...dex(), functionName: 'setOperator', args: [next.address] }),
    );
    expect(await chain.publicClient.readContract({ ...dex(), functionName: 'operator' })).toBe(next.address);
    expect(
      await revertOf(() =>
        chain
          .walletFor(chain.operator)
          .writeContract({ ...dex(), functionName: 'buy_slot', args: [alice, 1n, content] }),
      ),
    ).toBe('NotOperator');
    await chain.mined(
      chain.walletFor(next).writeContract({ ...dex(), functionName: 'buy_slot', args: [alice, 1n, content] }),
    );
    expect(await read('ownerOf', 1n)).toBe(alice);
  });
});
