import { createHash, randomBytes } from 'node:crypto';
import { getAddress, parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable } from '../helpers/environment.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  bearer,
  type CallbackServer,
  createClient,
  createUser,
  dexOwnerOf,
  post,
  rawSlotId,
  slotInfoFor,
  startCallbackServer,
  type TestClient,
  type TestUser,
} from '../backend/support.js';

const databases = postgresAvailable ? [{ postgres: false }, { postgres: true }] : [{ postgres: false }];

interface Pin {
  pin_hash: string;
  pin_salt: string;
  key_share_user: string;
}

interface Seller {
  user: TestUser;
  wallet: string;
  pin: Pin;
  slotId: string;
  accessToken: string;
}

/** `POST /v1/pin/register`, keeping the PIN trio a listing or a purchase needs. */
async function registerWallet(baseUrl: string, user: TestUser): Promise<{ wallet: `0x${string}`; pin: Pin }> {
  const pinSalt = randomBytes(32).toString('hex');
  const pinHash = createHash('sha256').update(`123456${pinSalt}`, 'utf8').digest('hex');
  const res = await post(
    `${baseUrl}/v1/pin/register`,
    { user_uuid: Number(user.uuid), pin_hash: pinHash, pin_salt: pinSalt },
    bearer(user.loginToken),
  );
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: { address: string; key_share_user: string }[] };
  return {
    wallet: getAddress(body.data[0]!.address),
    pin: { pin_hash: pinHash, pin_salt: pinSalt, key_share_user: body.data[0]!.key_share_user },
  };
}

describe.each(databases)('marketplace (postgres: $postgres)', (opts) => {
  let server: TestServer;
  let callbacks: CallbackServer;
  let client: TestClient;
  let cb: string;

  beforeAll(async () => {
    server = await startTestServer(opts);
    callbacks = await startCallbackServer();
    cb = callbacks.url('/cb');
    client = await createClient(server.url, await createUser(server.url, 'Dev'), [cb]);
  });
  afterAll(async () => {
    await callbacks?.close();
    await server?.close();
  });

  async function seller(nickname: string): Promise<Seller> {
    const user = await createUser(server.url, nickname);
    const { wallet, pin } = await registerWallet(server.url, user);
    const { token } = await slotInfoFor(server, callbacks, user, client, cb);
    return {
      user,
      wallet,
      pin,
      slotId: rawSlotId(token.text)!.digits,
      accessToken: token.body.data[0]!.access_token as string,
    };
  }

  /** A buyer whose main wallet holds 2 ether (the default price is 1). */
  async function buyer(nickname: string): Promise<{ user: TestUser; wallet: string; pin: Pin }> {
    const user = await createUser(server.url, nickname);
    const { wallet, pin } = await registerWallet(server.url, user);
    await server.services.chain.faucet.fund({ address: wallet, native: parseEther('2') });
    return { user, wallet, pin };
  }

  const setStatus = async (s: Seller, status: 'login' | 'logout') => {
    const res = await post(
      `${server.url}/v1/oauth/status/${status}`,
      { user_id: s.user.uuid, client_id: client.clientId },
      bearer(s.accessToken),
    );
    expect(res.status).toBe(200);
  };
  const list = (s: Seller, price = '1000000000000000000', token = s.accessToken, pin: Partial<Pin> = s.pin) =>
    post(
      `${server.url}/v1/market/listings`,
      { user_id: s.user.uuid, client_id: client.clientId, price, ...pin },
      bearer(token),
    );
  const purchase = (listingId: string, token: string, pin?: Pin) =>
    post(`${server.url}/v1/market/listings/${listingId}/purchase`, pin ?? {}, bearer(token));
  const listingRows = (slotId: string) =>
    server.services.database.db
      .selectFrom('market_listings')
      .selectAll()
      .where('slot_id', '=', slotId)
      .execute();
  const slotRow = (id: string) =>
    server.services.database.db
      .selectFrom('slots')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  it('lists only while the status is logged_out, only for the token’s own user and app', async () => {
    const alice = await seller('Alice');
    await setStatus(alice, 'login');
    const refused = await list(alice);
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ success: false, error: 'status_not_logged_out' });
    expect(await listingRows(alice.slotId)).toHaveLength(0);

    await setStatus(alice, 'logout');
    const other = await seller('Mallory');
    const foreign = await post(
      `${server.url}/v1/market/listings`,
      { user_id: alice.user.uuid, client_id: client.clientId, price: '5' },
      bearer(other.accessToken),
    );
    expect(foreign.status).toBe(403);
    // The attack of issue 12: an app's access token alone (no seller PIN) listing the slot for 0.
    const appTokenOnly = await list(alice, '0', alice.accessToken, {});
    expect(appTokenOnly.status).toBe(401);
    expect(await appTokenOnly.json()).toMatchObject({ success: false, error: 'pin_required' });
    const badPrice = await list(alice, '1.5');
    expect(badPrice.status).toBe(400);
    expect(await badPrice.json()).toMatchObject({ field: 'price' });
    expect(await listingRows(alice.slotId)).toHaveLength(0);

    const created = await list(alice, '2500');
    expect(created.status).toBe(201);
    const text = await created.text();
    expect(rawSlotId(text, 'slot_id')).toEqual({ digits: alice.slotId, quoted: false });
    const { listing } = JSON.parse(text) as { listing: Record<string, unknown> };
    expect(listing).toMatchObject({
      user_id: alice.user.uuid,
      client_id: client.clientId,
      price: '2500',
      status: 'active',
    });
    expect((await list(alice, '2600')).status).toBe(409);

    // Public: no token needed.
    const publicList = await fetch(`${server.url}/v1/market/listings?client_id=${client.clientId}`);
    expect(publicList.status).toBe(200);
    const publicText = await publicList.text();
    expect(publicText).toContain(`"slot_id":${alice.slotId}`);
    expect((JSON.parse(publicText) as { listings: { id: string }[] }).listings.map((l) => l.id)).toContain(
      listing.id,
    );
    // Only the seller withdraws: another user is refused (login JWT, or an access token for the
    // same app) and the listing stays on offer.
    for (const token of [other.user.loginToken, other.accessToken]) {
      const notYours = await fetch(`${server.url}/v1/market/listings/${listing.id as string}`, {
        method: 'DELETE',
        headers: bearer(token),
      });
      expect(notYours.status).toBe(403);
      expect(await notYours.json()).toMatchObject({ success: false, error: 'forbidden' });
    }
    expect(await listingRows(alice.slotId)).toMatchObject([{ id: listing.id, status: 'active' }]);
    const stillOnOffer = await fetch(`${server.url}/v1/market/listings/${listing.id as string}`);
    expect(await stillOnOffer.json()).toMatchObject({ listing: { status: 'active' } });
    // The seller's login JWT (with the PIN) lists too, once the first listing is withdrawn.
    const withdrawn = await fetch(`${server.url}/v1/market/listings/${listing.id as string}`, {
      method: 'DELETE',
      headers: bearer(alice.user.loginToken),
    });
    expect(withdrawn.status).toBe(200);
    expect((await list(alice, '2600', alice.user.loginToken)).status).toBe(201);
  });

  it('sells a listing to exactly one of two concurrent buyers and revokes the seller’s tokens', async () => {
    const carol = await seller('Carol');
    await setStatus(carol, 'logout');
    const listed = (await (await list(carol)).json()) as { listing: { id: string } };
    const bob = await buyer('Bob');
    const dan = await buyer('Dan');

    const [first, second] = await Promise.all([
      purchase(listed.listing.id, bob.user.loginToken, bob.pin),
      purchase(listed.listing.id, dan.user.loginToken, dan.pin),
    ]);
    const results = [
      { who: bob, res: first, text: await first.text() },
      { who: dan, res: second, text: await second.text() },
    ];
    expect(results.map((r) => r.res.status).sort()).toEqual([200, 409]);
    const winner = results.find((r) => r.res.status === 200)!;
    const loser = results.find((r) => r.res.status === 409)!;
    expect(JSON.parse(loser.text)).toMatchObject({ success: false, error: 'listing_not_available' });
    expect(JSON.parse(winner.text)).toMatchObject({
      success: true,
      listing: { id: listed.listing.id, status: 'sold', buyer_id: winner.who.user.uuid },
      from_address: carol.wallet,
      to_address: winner.who.wallet,
      tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });

    expect(await dexOwnerOf(server, carol.slotId)).toBe(winner.who.wallet);
    expect(await slotRow(carol.slotId)).toMatchObject({
      owner_uuid: Number(winner.who.user.uuid),
      tr_cnt: 1,
      meta_idx: 0,
    });
    // The buyer's backend now gets the bought slot through the backend flow, transfer counted.
    const winnerInfo = await slotInfoFor(server, callbacks, winner.who.user, client, cb);
    expect(winnerInfo.authorize.body.message).toMatchObject({ res: 'existing', tr_cnt: 1 });
    expect(winnerInfo.token.status).toBe(200);
    expect(rawSlotId(winnerInfo.token.text)).toEqual({ digits: carol.slotId, quoted: false });
    expect(winnerInfo.token.body.data[0]).toMatchObject({
      tr_cnt: 1,
      content_address: (await slotRow(carol.slotId)).content_address,
    });
    const loserSlots = await server.services.database.db
      .selectFrom('slots')
      .select('id')
      .where('owner_uuid', '=', Number(loser.who.user.uuid))
      .execute();
    expect(loserSlots).toHaveLength(0);
    // The seller's access token for the app no longer works.
    expect(
      (await fetch(`${server.url}/v1/oauth/validate`, { headers: bearer(carol.accessToken) })).status,
    ).toBe(401);
    const stillListed = (await (await fetch(`${server.url}/v1/market/listings`)).json()) as {
      listings: { id: string }[];
    };
    expect(stillListed.listings.map((l) => l.id)).not.toContain(listed.listing.id);
    // Sold is final.
    expect((await purchase(listed.listing.id, loser.who.user.loginToken, loser.who.pin)).status).toBe(409);
  });

  it('re-checks logged_out at purchase and keeps the listing when the sale is refused', async () => {
    const erin = await seller('Erin');
    await setStatus(erin, 'logout');
    const listed = (await (await list(erin)).json()) as { listing: { id: string } };
    await setStatus(erin, 'login');
    const frank = await buyer('Frank');

    const refused = await purchase(listed.listing.id, frank.user.loginToken, frank.pin);
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: 'status_not_logged_out' });
    expect(await listingRows(erin.slotId)).toMatchObject([{ status: 'active', buyer_uuid: null }]);
    expect(await dexOwnerOf(server, erin.slotId)).toBe(erin.wallet);

    expect((await purchase(listed.listing.id, erin.user.loginToken, erin.pin)).status).toBe(409);
    expect((await purchase(listed.listing.id, erin.accessToken, erin.pin)).status).toBe(401);

    await setStatus(erin, 'logout');
    const bought = await purchase(listed.listing.id, frank.user.loginToken, frank.pin);
    expect(bought.status).toBe(200);
    expect(await dexOwnerOf(server, erin.slotId)).toBe(frank.wallet);
  });

  it('puts the listing back on offer when the chain step fails', async () => {
    const gina = await seller('Gina');
    await setStatus(gina, 'logout');
    const listed = (await (await list(gina)).json()) as { listing: { id: string } };
    const hank = await buyer('Hank');
    const embedded = server.services.chain.embedded!;
    await embedded.stop();
    try {
      const down = await purchase(listed.listing.id, hank.user.loginToken, hank.pin);
      expect(down.status).toBe(503);
    } finally {
      await embedded.start();
    }
    expect(await listingRows(gina.slotId)).toMatchObject([{ status: 'active', buyer_uuid: null }]);
    expect(await slotRow(gina.slotId)).toMatchObject({
      owner_uuid: Number(gina.user.uuid),
      state: 'active',
      tr_cnt: 0,
    });
    expect(
      (await fetch(`${server.url}/v1/oauth/validate`, { headers: bearer(gina.accessToken) })).status,
    ).toBe(200);
    const bought = await purchase(listed.listing.id, hank.user.loginToken, hank.pin);
    expect(bought.status).toBe(200);
  });

  it('settles a claim left by a purchase that stopped before the chain step', async () => {
    const ivy = await seller('Ivy');
    await setStatus(ivy, 'logout');
    const listed = (await (await list(ivy)).json()) as { listing: { id: string } };
    const gone = await buyer('Gone');
    // A purchase claimed the listing, then its process died: the listing is stuck `pending`.
    await server.services.database.db
      .updateTable('market_listings')
      .set({ status: 'pending', buyer_uuid: Number(gone.user.uuid), updated_at: Date.now() - 10 * 60_000 })
      .where('id', '=', listed.listing.id)
      .execute();
    const jon = await buyer('Jon');
    const bought = await purchase(listed.listing.id, jon.user.loginToken, jon.pin);
    expect(bought.status).toBe(200);
    expect(await bought.json()).toMatchObject({ listing: { status: 'sold', buyer_id: jon.user.uuid } });
    expect(await dexOwnerOf(server, ivy.slotId)).toBe(jon.wallet);
  });
});
