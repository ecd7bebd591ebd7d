import { randomBytes } from 'node:crypto';
import { getAddress, parseEther, type Address } from 'viem';
import { dauthAccountAbi, dauthDexAbi, dauthTokenAbi } from '@dauth/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  admin,
  buy,
  chainClient,
  consume,
  encryptPayload,
  newPlayer,
  newProvider,
  onChain,
  payloadOf,
  post,
  type Player,
  type Provider,
} from '../content/contentSupport.js';

/**
 * The slot economy end to end on the real embedded chain (decisions §7): a sale pays the price
 * from the buyer's main wallet to the seller's in the same operation that moves the slot; the
 * slot's content wallet follows the slot (purchase or admin ticket) without the seller's key.
 */
describe('slot economy: priced sales and content wallets that follow the slot', () => {
  let server: TestServer;
  let provider: Provider;
  const PRICE = parseEther('1.5');

  beforeAll(async () => {
    // Its tests sign up more than the default 20 accounts a minute from one loopback address.
    server = await startTestServer({ env: { RATE_LIMITS: 'login_address=1000/1m,register=1000/1m' } });
    provider = await newProvider(server);
  });
  afterAll(() => server?.close());

  const balance = (address: Address) => chainClient(server).getBalance({ address });
  const dexOwner = (slotId: string) =>
    chainClient(server).readContract({
      address: server.services.chain.info.contracts.dex,
      abi: dauthDexAbi,
      functionName: 'ownerOf',
      args: [BigInt(slotId)],
    });
  const erc20Of = (address: Address) =>
    chainClient(server).readContract({
      address: server.services.chain.info.contracts.token,
      abi: dauthTokenAbi,
      functionName: 'balanceOf',
      args: [address],
    });
  const listingRow = (id: string) =>
    server.services.database.db
      .selectFrom('market_listings')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const slotRow = (id: string) =>
    server.services.database.db
      .selectFrom('slots')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  const list = (seller: Player, price: bigint, pin: Partial<Player['pin']> = seller.pin) =>
    post<{ listing: { id: string; status: string } }>(
      server,
      '/v1/market/listings',
      { user_id: String(seller.user.uuid), client_id: provider.clientId, price: price.toString(), ...pin },
      seller.user.token,
    );
  const purchase = (listingId: string, buyer: Player, pin: Partial<Player['pin']> = buyer.pin) =>
    post<Record<string, unknown>>(server, `/v1/market/listings/${listingId}/purchase`, pin, buyer.user.token);
  /** An ERC-20 transfer out of the slot's content wallet, asked for by `who` with their PIN. */
  const transferFromContent = (slot: Player, who: Player, to: Address, amount: bigint) =>
    post<Record<string, unknown>>(
      server,
      '/v1/token/transfer',
      {
        from_address: slot.slot,
        to_address: to,
        amount: amount.toString(),
        contract_address: server.services.chain.info.contracts.token,
        ...who.pin,
      },
      who.user.token,
    );

  it('gives a new slot a content wallet owned by the dex, not by any user key', async () => {
    const player = await newPlayer(server, provider, '0');
    const wallet = await server.services.wallets.findByAddress(player.slot);
    expect(wallet).toMatchObject({ kind: 'content', owner: server.services.chain.info.contracts.dex });
    expect(player.slot).toBe(
      server.services.chain.gateway.walletAddress(
        server.services.chain.info.contracts.dex,
        BigInt(player.slotId),
      ),
    );
  });

  it('a listing needs the seller’s PIN; a wrong PIN lists nothing', async () => {
    const seller = await newPlayer(server, provider, '0');
    const { key_share_user: _share, ...noShare } = seller.pin;
    const without = await list(seller, 0n, noShare);
    expect(without.status).toBe(401);
    expect(without.body).toMatchObject({ success: false, error: 'pin_required' });
    const wrong = await list(seller, 0n, { ...seller.pin, key_share_user: 'ab'.repeat(32) });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ error: 'invalid_pin' });
    const rows = await server.services.database.db
      .selectFrom('market_listings')
      .select('id')
      .where('slot_id', '=', seller.slotId)
      .execute();
    expect(rows).toHaveLength(0);
  });

  it('a buyer who cannot pay gets 409 insufficient_funds and nothing moves, on chain or in the database', async () => {
    const seller = await newPlayer(server, provider, '0');
    const broke = await newPlayer(server, provider, '1');
    const listed = await list(seller, PRICE);
    expect(listed.status).toBe(201);
    const before = {
      seller: await balance(seller.wallet),
      buyer: await balance(broke.wallet),
      listing: await listingRow(listed.body.listing.id),
      slot: await slotRow(seller.slotId),
    };
    const refused = await purchase(listed.body.listing.id, broke);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ success: false, error: 'insufficient_funds' });
    expect(await balance(seller.wallet)).toBe(before.seller);
    expect(await balance(broke.wallet)).toBe(before.buyer);
    expect(await dexOwner(seller.slotId)).toBe(seller.wallet);
    expect(await listingRow(listed.body.listing.id)).toEqual(before.listing);
    expect(await slotRow(seller.slotId)).toEqual(before.slot);
  });

  it('a purchase without the buyer’s PIN trio gets 401 pin_required and nothing moves', async () => {
    const seller = await newPlayer(server, provider, '0');
    const buyer = await newPlayer(server, provider, '3');
    const listed = await list(seller, PRICE);
    expect(listed.status).toBe(201);
    const before = {
      seller: await balance(seller.wallet),
      buyer: await balance(buyer.wallet),
      listing: await listingRow(listed.body.listing.id),
      slot: await slotRow(seller.slotId),
    };
    const { key_share_user: _share, ...noShare } = buyer.pin;
    for (const pin of [{}, noShare]) {
      const refused = await purchase(listed.body.listing.id, buyer, pin);
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({ success: false, error: 'pin_required' });
    }
    expect(await balance(seller.wallet)).toBe(before.seller);
    expect(await balance(buyer.wallet)).toBe(before.buyer);
    expect(await dexOwner(seller.slotId)).toBe(seller.wallet);
    expect(await listingRow(listed.body.listing.id)).toEqual(before.listing);
    expect(await slotRow(seller.slotId)).toEqual(before.slot);
  });

  it('a buyer with a wrong PIN moves nothing and the listing goes back on offer', async () => {
    const seller = await newPlayer(server, provider, '0');
    const buyer = await newPlayer(server, provider, '3');
    const listed = await list(seller, PRICE);
    const before = { seller: await balance(seller.wallet), buyer: await balance(buyer.wallet) };
    const wrong = await purchase(listed.body.listing.id, buyer, {
      ...buyer.pin,
      key_share_user: 'cd'.repeat(32),
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ error: 'invalid_pin' });
    expect(await balance(seller.wallet)).toBe(before.seller);
    expect(await balance(buyer.wallet)).toBe(before.buyer);
    expect(await dexOwner(seller.slotId)).toBe(seller.wallet);
    expect(await listingRow(listed.body.listing.id)).toMatchObject({ status: 'active', buyer_uuid: null });
    expect(await slotRow(seller.slotId)).toMatchObject({
      state: 'active',
      owner_uuid: seller.user.uuid,
      tr_cnt: 0,
    });
    expect((await purchase(listed.body.listing.id, buyer)).status).toBe(200);
  });

  it('sells end to end: exactly the price moves, the dex records the buyer, the content wallet follows', async () => {
    const seller = await newPlayer(server, provider, '2');
    const buyer = await newPlayer(server, provider, '5');
    // The seller bought content tokens for the slot and holds ERC-20 in its content wallet.
    expect((await buy(server, provider, seller, '100000')).status).toBe(200);
    await server.services.chain.faucet.fund({ address: seller.slot, token: 1_000n });
    // Before the sale the seller operates the content wallet (through the dex).
    expect((await transferFromContent(seller, seller, seller.wallet, 10n)).status).toBe(200);
    expect((await transferFromContent(seller, buyer, buyer.wallet, 1n)).status).toBe(403);

    const listed = await list(seller, PRICE);
    expect(listed.status).toBe(201);
    const before = { seller: await balance(seller.wallet), buyer: await balance(buyer.wallet) };
    const sold = await purchase(listed.body.listing.id, buyer);
    expect(sold.status).toBe(200);
    expect(sold.body).toMatchObject({
      success: true,
      listing: { status: 'sold', buyer_id: String(buyer.user.uuid), payment: 'onchain' },
      tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      from_address: seller.wallet,
      to_address: buyer.wallet,
    });
    // Sponsored gas: the main wallets move by exactly the price, in the one transaction.
    expect(await balance(seller.wallet)).toBe(before.seller + PRICE);
    expect(await balance(buyer.wallet)).toBe(before.buyer - PRICE);
    const receipt = await chainClient(server).getTransactionReceipt({
      hash: sold.body.tx_hash as `0x${string}`,
    });
    expect(receipt.status).toBe('success');
    expect(await dexOwner(seller.slotId)).toBe(buyer.wallet);
    expect(await slotRow(seller.slotId)).toMatchObject({ owner_uuid: buyer.user.uuid, tr_cnt: 1 });

    // Only the new owner operates the content wallet now; the seller is refused before any PIN use.
    const refused = await transferFromContent(seller, seller, seller.wallet, 5n);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'not_your_wallet' });
    const moved = await transferFromContent(seller, buyer, buyer.wallet, 40n);
    expect(moved.status).toBe(200);
    expect(await erc20Of(seller.slot)).toBe(950n);
    expect(await erc20Of(buyer.wallet)).toBe(40n);
    expect(
      await chainClient(server).readContract({
        address: seller.slot,
        abi: dauthAccountAbi,
        functionName: 'owner',
      }),
    ).toBe(server.services.chain.info.contracts.dex);

    // The buyer buys for the slot and its content tokens are consumed; the seller can no longer buy for it.
    const boughtSlot: Player = { ...buyer, slotId: seller.slotId, slot: seller.slot };
    expect((await buy(server, provider, boughtSlot, '500')).status).toBe(200);
    expect((await buy(server, provider, { ...seller }, '500')).status).toBe(403);
    const tokensBefore = await onChain(server, provider.cuid, seller.slot);
    const consumed = await consume(server, {
      encrypted_message: encryptPayload(provider, payloadOf(provider, boughtSlot, 300n)),
    });
    expect(consumed.status).toBe(200);
    expect(await onChain(server, provider.cuid, seller.slot)).toEqual({
      balance: tokensBefore.balance - 300n,
      used: tokensBefore.used + 300n,
    });
  });

  it('after an admin transfer ticket only the new owner operates the content wallet and buys its content tokens', async () => {
    // Both can pay for content tokens, so a refusal below is about the slot, not the money.
    const from = await newPlayer(server, provider, '2');
    const to = await newPlayer(server, provider, '2');
    await server.services.chain.faucet.fund({ address: from.slot, token: 100n });
    const binding = {
      cu_id: provider.clientId,
      from_uuid: from.user.uuid,
      to_uuid: to.user.uuid,
      meta_idx: 0,
    };
    const ticket = await post<{ state: string }>(
      server,
      '/v1/admin/transfer-tickets',
      binding,
      admin(server),
    );
    expect(ticket.status).toBe(200);
    const moved = await post(server, '/idex-platform/exchange_token_owner', {
      state: ticket.body.state,
      ...binding,
    });
    expect(moved.status).toBe(200);
    expect(await dexOwner(from.slotId)).toBe(to.wallet);

    expect((await transferFromContent(from, from, from.wallet, 1n)).status).toBe(403);
    expect((await transferFromContent(from, to, to.wallet, 30n)).status).toBe(200);
    expect(await erc20Of(from.slot)).toBe(70n);
    expect(await erc20Of(to.wallet)).toBe(30n);

    // Content tokens follow too: the new owner buys for the slot and consumes them (counted on
    // chain); the former owner can no longer buy for it.
    const movedSlot: Player = { ...to, slotId: from.slotId, slot: from.slot };
    expect((await buy(server, provider, movedSlot, '500')).status).toBe(200);
    const formerBuy = await buy(server, provider, from, '500');
    expect(formerBuy.status).toBe(403);
    expect(formerBuy.body).toMatchObject({ error: 'not_slot_owner' });
    const tokensBefore = await onChain(server, provider.cuid, from.slot);
    expect(tokensBefore.balance).toBeGreaterThanOrEqual(200n);
    const consumed = await consume(server, {
      encrypted_message: encryptPayload(provider, payloadOf(provider, movedSlot, 200n)),
    });
    expect(consumed.status).toBe(200);
    expect(await onChain(server, provider.cuid, from.slot)).toEqual({
      balance: tokensBefore.balance - 200n,
      used: tokensBefore.used + 200n,
    });
  });

  it('two funded buyers racing: exactly one pays, the other gets 409 and keeps its money', async () => {
    const seller = await newPlayer(server, provider, '0');
    const [first, second] = await Promise.all([
      newPlayer(server, provider, '3'),
      newPlayer(server, provider, '3'),
    ]);
    const listed = await list(seller, PRICE);
    const before = await Promise.all([balance(seller.wallet), balance(first.wallet), balance(second.wallet)]);
    const answers = await Promise.all([
      purchase(listed.body.listing.id, first),
      purchase(listed.body.listing.id, second),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const winner = answers[0]!.status === 200 ? first : second;
    const loser = winner === first ? second : first;
    expect((answers[0]!.status === 409 ? answers[0] : answers[1])!.body).toMatchObject({
      error: 'listing_not_available',
    });
    expect(await balance(seller.wallet)).toBe(before[0]! + PRICE);
    expect(await balance(winner.wallet)).toBe((winner === first ? before[1]! : before[2]!) - PRICE);
    expect(await balance(loser.wallet)).toBe(loser === first ? before[1]! : before[2]!);
    expect(await dexOwner(seller.slotId)).toBe(winner.wallet);
  });

  it('hands a legacy content wallet (owned by its first owner’s EOA) to the dex at the holder’s next PIN use', async () => {
    const holder = await newPlayer(server, provider, '0');
    const other = await newPlayer(server, provider, '0');
    const custody = await server.services.custody.custodyOf(holder.user.uuid);
    const eoa = getAddress(custody!.owner);
    // A slot made the old way: its content wallet derives from the user's EOA (counterfactual).
    const slotId = '1234509876123450987';
    const legacy = server.services.chain.gateway.walletAddress(eoa, BigInt(slotId));
    await server.services.slotImport.importAll([
      {
        line: 1,
        id: slotId,
        clientId: provider.clientId,
        ownerUuid: holder.user.uuid,
        contentAddress: legacy,
      },
    ]);
    await server.services.wallets.insert({
      address: legacy,
      userUuid: holder.user.uuid,
      kind: 'slot',
      salt: BigInt(slotId),
      initialOwner: eoa,
      owner: eoa,
      deployed: false,
      createdAt: Date.now(),
    });
    await server.services.chain.faucet.fund({ address: legacy, token: 20n });
    const legacySlot: Player = { ...holder, slotId, slot: legacy };
    // Someone else is refused; the holder's first PIN use hands the wallet over and then runs the call.
    expect((await transferFromContent(legacySlot, other, other.wallet, 1n)).status).toBe(403);
    expect((await transferFromContent(legacySlot, holder, holder.wallet, 5n)).status).toBe(200);
    expect(
      await chainClient(server).readContract({
        address: legacy,
        abi: dauthAccountAbi,
        functionName: 'owner',
      }),
    ).toBe(server.services.chain.info.contracts.dex);
    expect(await server.services.wallets.findByAddress(legacy)).toMatchObject({
      kind: 'content',
      deployed: true,
    });
    expect(await erc20Of(legacy)).toBe(15n);
  });

  /**
   * Imports a slot (meta_idx 1) of `holder` whose content wallet is a legacy one: still counterfactual
   * and derived from an earlier key of the holder (one a PIN recovery has since replaced), so custody
   * cannot sign its hand-over ("unknown owner"). `recordLegacyWallet` writes the wallet's record, which
   * is what tells the service the wallet is still on a user key.
   */
  async function importLegacySlot(holder: Player) {
    const earlierKey = getAddress(`0x${randomBytes(20).toString('hex')}`);
    const slotId = (10n ** 18n + BigInt(`0x${randomBytes(7).toString('hex')}`)).toString();
    const legacy = server.services.chain.gateway.walletAddress(earlierKey, BigInt(slotId));
    const imported = await server.services.slotImport.importAll([
      {
        line: 1,
        id: slotId,
        clientId: provider.clientId,
        ownerUuid: holder.user.uuid,
        contentAddress: legacy,
      },
    ]);
    expect(imported.results[0]).toMatchObject({ status: 'imported', meta_idx: 1 });
    const recordLegacyWallet = () =>
      server.services.wallets.insert({
        address: legacy,
        userUuid: holder.user.uuid,
        kind: 'slot',
        salt: BigInt(slotId),
        initialOwner: earlierKey,
        owner: earlierKey,
        deployed: false,
        createdAt: Date.now(),
      });
    return { slotId, legacy, recordLegacyWallet };
  }

  it('refuses a listing while the slot’s legacy content wallet could not be handed to the dex', async () => {
    const holder = await newPlayer(server, provider, '0');
    const { slotId, legacy, recordLegacyWallet } = await importLegacySlot(holder);
    await recordLegacyWallet();

    const refused = await post<Record<string, unknown>>(
      server,
      '/v1/market/listings',
      {
        user_id: String(holder.user.uuid),
        client_id: provider.clientId,
        price: PRICE.toString(),
        meta_idx: 1,
        ...holder.pin,
      },
      holder.user.token,
    );
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ success: false, error: 'content_wallet_handover_pending' });
    const rows = await server.services.database.db
      .selectFrom('market_listings')
      .select('id')
      .where('slot_id', '=', slotId)
      .execute();
    expect(rows).toHaveLength(0);
    expect(await server.services.wallets.findByAddress(legacy)).toMatchObject({ kind: 'slot' });
    expect(await chainClient(server).getCode({ address: legacy })).toBeUndefined();
    // The holder's other slot, whose content wallet is the dex's, still lists.
    expect((await list(holder, PRICE)).status).toBe(201);
  });

  it('refuses an admin transfer ticket, at issue and at use, while the slot’s content wallet is on a user key', async () => {
    const holder = await newPlayer(server, provider, '0');
    const to = await newPlayer(server, provider, '0');
    const { slotId, recordLegacyWallet } = await importLegacySlot(holder);
    const binding = {
      cu_id: provider.clientId,
      from_uuid: holder.user.uuid,
      to_uuid: to.user.uuid,
      meta_idx: 1,
    };
    // A ticket issued before the wallet's record said it is a legacy one (as before this rule existed).
    const early = await post<{ state: string }>(server, '/v1/admin/transfer-tickets', binding, admin(server));
    expect(early.status).toBe(200);
    await recordLegacyWallet();
    const ownerBefore = await dexOwner(slotId);
    const slotBefore = await slotRow(slotId);

    const issued = await post(server, '/v1/admin/transfer-tickets', binding, admin(server));
    expect(issued.status).toBe(409);
    expect(issued.body).toMatchObject({ success: false, error: 'content_wallet_handover_pending' });
    const used = await post(server, '/idex-platform/exchange_token_owner', {
      state: early.body.state,
      ...binding,
    });
    expect(used.status).toBe(409);
    expect(used.body).toMatchObject({ success: false, error: 'content_wallet_handover_pending' });
    // Nothing moved: the dex, the slot's row, and the ticket (given back, not spent).
    expect(await dexOwner(slotId)).toBe(ownerBefore);
    expect(await slotRow(slotId)).toEqual(slotBefore);
    const tickets = await server.services.database.db
      .selectFrom('transfer_tickets')
      .select('status')
      .where('slot_id', '=', slotId)
      .execute();
    expect(tickets).toEqual([{ status: 'issued' }]);
  });
});
