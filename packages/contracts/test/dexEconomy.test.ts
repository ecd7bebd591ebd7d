import {
  encodeFunctionData,
  parseEther,
  parseEventLogs,
  type Address,
  type Hex,
  type LocalAccount,
} from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dauthAccountAbi,
  dauthAccountFactoryAbi,
  dauthDexAbi,
  entryPointAbi,
  getSlotSaleHash,
} from '../src/index.js';
import { revertOf, startTestChain, testKey, type TestChain } from './support/chain.js';

let chain: TestChain;
const sellerKey = testKey('economy/seller');
const buyerKey = testKey('economy/buyer');
const brokeKey = testKey('economy/broke');
const SLOT = 2345678901234567890n;
const CONTENT_SLOT = 3456789012345678901n;
const PRICE = parseEther('1.25');

beforeAll(async () => {
  chain = await startTestChain();
});

afterAll(async () => {
  await chain?.anvil.stop();
});

const dex = () => ({ address: chain.addresses.dex, abi: dauthDexAbi });
const ownerOf = (slot: bigint) =>
  chain.publicClient.readContract({ ...dex(), functionName: 'ownerOf', args: [slot] });
const balanceOf = (address: Address) => chain.publicClient.getBalance({ address });
const deadlineIn = async (seconds: number) => BigInt((await chain.latestTimestamp()) + seconds);

async function authorise(
  slot: bigint,
  seller: Address,
  buyer: Address,
  price: bigint,
  deadline: bigint,
  signer = chain.platformSigner,
) {
  const transferCount = await chain.publicClient.readContract({
    ...dex(),
    functionName: 'transferCount',
    args: [slot],
  });
  const hash = getSlotSaleHash({
    dex: chain.addresses.dex,
    chainId: foundry.id,
    slot,
    seller,
    buyer,
    price,
    transferCount,
    deadline,
  });
  return signer.signMessage({ message: { raw: hash } });
}

const purchaseData = (slot: bigint, seller: Address, deadline: bigint, authorisation: Hex) =>
  encodeFunctionData({
    abi: dauthDexAbi,
    functionName: 'purchase',
    args: [slot, seller, deadline, authorisation],
  });

/** Runs one sponsored operation of `owner`'s main wallet and reports whether its execution succeeded. */
async function operate(owner: LocalAccount, callData: Hex): Promise<boolean> {
  const receipt = await chain.handleOps([await chain.operation({ owner, callData })]);
  const [event] = parseEventLogs({ abi: entryPointAbi, eventName: 'UserOperationEvent', logs: receipt.logs });
  return event!.args.success;
}

describe('DauthDex purchase: price and slot move in one call', () => {
  const seller = () => chain.walletAddress(sellerKey.address);
  const buyer = () => chain.walletAddress(buyerKey.address);

  beforeAll(async () => {
    await chain.mined(
      chain
        .walletFor(chain.operator)
        .writeContract({ ...dex(), functionName: 'buy_slot', args: [seller(), SLOT, sellerKey.address] }),
    );
    await chain.fund(buyer(), parseEther('5'));
  });

  it('matches the TypeScript sale hash', async () => {
    const deadline = 4_102_444_800n;
    const onChain = await chain.publicClient.readContract({
      ...dex(),
      functionName: 'saleHash',
      args: [SLOT, seller(), buyer(), PRICE, deadline],
    });
    expect(onChain).toBe(
      getSlotSaleHash({
        dex: chain.addresses.dex,
        chainId: foundry.id,
        slot: SLOT,
        seller: seller(),
        buyer: buyer(),
        price: PRICE,
        transferCount: 0n,
        deadline,
      }),
    );
  });

  it('a buyer who cannot pay moves nothing', async () => {
    const broke = chain.walletAddress(brokeKey.address);
    const deadline = await deadlineIn(300);
    const authorisation = await authorise(SLOT, seller(), broke, PRICE, deadline);
    const sellerBefore = await balanceOf(seller());
    const ok = await operate(
      brokeKey,
      chain.execute(chain.addresses.dex, PRICE, purchaseData(SLOT, seller(), deadline, authorisation)),
    );
    expect(ok).toBe(false);
    expect(await ownerOf(SLOT)).toBe(seller());
    expect(await balanceOf(seller())).toBe(sellerBefore);
    expect(await balanceOf(broke)).toBe(0n);
  });

  it('refuses a wrong price, a foreign signer, an expired authorisation and the seller itself', async () => {
    const payer = chain.walletFor(chain.stranger);
    const stranger = chain.stranger.address;
    const deadline = await deadlineIn(300);
    const good = await authorise(SLOT, seller(), stranger, PRICE, deadline);
    const buy = (value: bigint, authorisation: Hex, until = deadline, from = seller()) =>
      payer.writeContract({
        ...dex(),
        functionName: 'purchase',
        args: [SLOT, from, until, authorisation],
        value,
      });
    expect(await revertOf(() => buy(PRICE - 1n, good))).toBe('InvalidSaleSignature');
    const forged = await authorise(SLOT, seller(), stranger, PRICE, deadline, testKey('economy/forger'));
    expect(await revertOf(() => buy(PRICE, forged))).toBe('InvalidSaleSignature');
    const past = await deadlineIn(-10);
    expect(await revertOf(() => buy(PRICE, good, past))).toBe('SaleExpired');
    expect(await revertOf(() => buy(PRICE, good, deadline, buyer()))).toBe('NotSlotOwner');
    expect(await ownerOf(SLOT)).toBe(seller());
  });

  it('pays the seller exactly the price and moves the slot in the same operation; the authorisation is spent', async () => {
    const deadline = await deadlineIn(300);
    const authorisation = await authorise(SLOT, seller(), buyer(), PRICE, deadline);
    const [sellerBefore, buyerBefore] = await Promise.all([balanceOf(seller()), balanceOf(buyer())]);
    const receipt = await chain.handleOps([
      await chain.operation({
        owner: buyerKey,
        callData: chain.execute(
          chain.addresses.dex,
          PRICE,
          purchaseData(SLOT, seller(), deadline, authorisation),
        ),
      }),
    ]);
    const [sold] = parseEventLogs({ abi: dauthDexAbi, eventName: 'SlotSold', logs: receipt.logs });
    expect(sold?.args).toEqual({ slot: SLOT, seller: seller(), buyer: buyer(), price: PRICE });
    expect(await ownerOf(SLOT)).toBe(buyer());
    expect(
      await chain.publicClient.readContract({ ...dex(), functionName: 'transferCount', args: [SLOT] }),
    ).toBe(1n);
    expect(await balanceOf(seller())).toBe(sellerBefore + PRICE);
    expect(await balanceOf(buyer())).toBe(buyerBefore - PRICE);
    // The same authorisation again: the seller no longer owns the slot, and the count moved on.
    expect(
      await operate(
        buyerKey,
        chain.execute(chain.addresses.dex, PRICE, purchaseData(SLOT, seller(), deadline, authorisation)),
      ),
    ).toBe(false);
    expect(await balanceOf(buyer())).toBe(buyerBefore - PRICE);
  });

  it('lets only the owner rotate the sale signer', async () => {
    const next = testKey('economy/next-signer').address;
    expect(
      await revertOf(() =>
        chain
          .walletFor(chain.operator)
          .writeContract({ ...dex(), functionName: 'setSaleSigner', args: [next] }),
      ),
    ).toBe('Ownable: caller is not the owner');
    await chain.mined(
      chain
        .walletFor(chain.deployer)
        .writeContract({ ...dex(), functionName: 'setSaleSigner', args: [next] }),
    );
    expect(await chain.publicClient.readContract({ ...dex(), functionName: 'saleSigner' })).toBe(next);
    await chain.mined(
      chain
        .walletFor(chain.deployer)
        .writeContract({ ...dex(), functionName: 'setSaleSigner', args: [chain.platformSigner.address] }),
    );
  });
});

describe('DauthDex content wallets follow the slot', () => {
  const alice = () => chain.walletAddress(testKey('economy/alice').address);
  const aliceKey = testKey('economy/alice');
  const bobKey = testKey('economy/bob');
  const bob = () => chain.walletAddress(bobKey.address);
  // The content wallet's first owner is the dex: nobody's key, only the dex's record, controls it.
  const content = () => chain.walletAddress(chain.addresses.dex, CONTENT_SLOT);
  const fromSlot = (dest: Address, value: bigint, data: Hex) =>
    chain.execute(
      chain.addresses.dex,
      0n,
      encodeFunctionData({
        abi: dauthDexAbi,
        functionName: 'executeFromSlot',
        args: [CONTENT_SLOT, dest, value, data],
      }),
    );

  beforeAll(async () => {
    await chain.mined(
      chain
        .walletFor(chain.operator)
        .writeContract({ ...dex(), functionName: 'buy_slot', args: [alice(), CONTENT_SLOT, content()] }),
    );
    // Anyone may deploy it: the owner is fixed by the address.
    await chain.mined(
      chain.walletFor(chain.stranger).writeContract({
        address: chain.addresses.account_factory,
        abi: dauthAccountFactoryAbi,
        functionName: 'createAccount',
        args: [chain.addresses.dex, CONTENT_SLOT],
      }),
    );
    await chain.fund(content(), parseEther('2'));
  });

  it('is operated by the slot owner wallet only, and by the new owner alone after a move', async () => {
    expect(await operate(aliceKey, fromSlot(chain.counter, 0n, chain.increment))).toBe(true);
    expect(await chain.countOf(content())).toBe(1n);
    expect(await operate(bobKey, fromSlot(chain.counter, 0n, chain.increment))).toBe(false);
    expect(await chain.countOf(content())).toBe(1n);

    await chain.mined(
      chain
        .walletFor(chain.operator)
        .writeContract({ ...dex(), functionName: 'init_self', args: [alice(), CONTENT_SLOT, bob()] }),
    );
    expect(await operate(aliceKey, fromSlot(alice(), parseEther('1'), '0x'))).toBe(false);
    const bobBefore = await balanceOf(bob());
    expect(await operate(bobKey, fromSlot(bob(), parseEther('1'), '0x'))).toBe(true);
    expect(await balanceOf(bob())).toBe(bobBefore + parseEther('1'));
    expect(await balanceOf(content())).toBe(parseEther('1'));
  });

  it('refuses a call to the content wallet itself (it could hand the wallet away from the dex)', async () => {
    const away = encodeFunctionData({
      abi: dauthAccountAbi,
      functionName: 'changeOwner',
      args: [bobKey.address],
    });
    expect(
      await revertOf(() =>
        chain.walletFor(chain.stranger).writeContract({
          ...dex(),
          functionName: 'executeFromSlot',
          args: [CONTENT_SLOT, content(), 0n, away],
        }),
      ),
    ).toBe('NotSlotOwner');
    expect(await operate(bobKey, fromSlot(content(), 0n, away))).toBe(false);
    expect(
      await chain.publicClient.readContract({
        address: content(),
        abi: dauthAccountAbi,
        functionName: 'owner',
      }),
    ).toBe(chain.addresses.dex);
  });
});
