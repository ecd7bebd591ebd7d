import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSlotId } from '../../src/services/slots/slotId.js';
import { SlotStore } from '../../src/stores/slotStore.js';
import { postgresAvailable } from '../helpers/environment.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  bearer,
  type CallbackServer,
  createClient,
  createUser,
  dexOwnerOf,
  dexTransferCount,
  metaAuthorize,
  post,
  rawSlotId,
  registerWallet,
  slotInfoFor,
  startCallbackServer,
  type TestClient,
  type TestUser,
} from '../backend/support.js';

const databases = postgresAvailable ? [{ postgres: false }, { postgres: true }] : [{ postgres: false }];

describe.each(databases)('slot transfers (postgres: $postgres)', (opts) => {
  let server: TestServer;
  let callbacks: CallbackServer;
  let client: TestClient;
  let cb: string;
  let adminKey: string;

  beforeAll(async () => {
    server = await startTestServer(opts);
    adminKey = server.services.secrets.adminApiKey;
    callbacks = await startCallbackServer();
    cb = callbacks.url('/cb');
    client = await createClient(server.url, await createUser(server.url, 'Dev'), [cb]);
  });
  afterAll(async () => {
    await callbacks?.close();
    await server?.close();
  });

  async function userWithSlot(nickname: string): Promise<{ user: TestUser; wallet: string; slotId: string }> {
    const user = await createUser(server.url, nickname);
    const wallet = await registerWallet(server.url, user);
    const { token } = await slotInfoFor(server, callbacks, user, client, cb);
    return { user, wallet, slotId: rawSlotId(token.text)!.digits };
  }

  const issueTicket = (body: Record<string, unknown>, key = adminKey) =>
    post(`${server.url}/v1/admin/transfer-tickets`, body, bearer(key));
  const exchange = async (body: Record<string, unknown>) => {
    const res = await post(`${server.url}/idex-platform/exchange_token_owner`, body);
    const text = await res.text();
    return { status: res.status, text, body: JSON.parse(text) as Record<string, unknown> };
  };
  const slotRow = (id: string) =>
    server.services.database.db
      .selectFrom('slots')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const ticketRows = () => server.services.database.db.selectFrom('transfer_tickets').selectAll().execute();

  it('moves a slot on chain and in the record with a ticket, which then cannot be used again', async () => {
    const alice = await userWithSlot('Alice');
    const bob = await createUser(server.url, 'Bob');
    const bobWallet = await registerWallet(server.url, bob);
    expect(await dexOwnerOf(server, alice.slotId)).toBe(alice.wallet);

    const binding = { cu_id: client.clientId, from_uuid: alice.user.uuid, to_uuid: bob.uuid, meta_idx: 0 };
    const issued = await issueTicket(binding);
    expect(issued.status).toBe(200);
    const ticket = (await issued.json()) as { success: boolean; state: string; expires_at: string };
    expect(ticket.success).toBe(true);
    expect(ticket.state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(ticket.expires_at)).toBeGreaterThan(Date.now());

    const moved = await exchange({ state: ticket.state, ...binding });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body).toMatchObject({
      success: true,
      tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      user_op_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      from_address: alice.wallet,
      to_address: bobWallet,
    });
    expect(rawSlotId(moved.text, 'slot_id')).toEqual({ digits: alice.slotId, quoted: false });

    // The dex now names Bob's main wallet and counted the transfer; so does the record.
    expect(await dexOwnerOf(server, alice.slotId)).toBe(bobWallet);
    expect(await dexTransferCount(server, alice.slotId)).toBe(1n);
    expect(await slotRow(alice.slotId)).toMatchObject({
      owner_uuid: Number(bob.uuid),
      tr_cnt: 1,
      meta_idx: 0,
      state: 'active',
    });

    // Bob's backend now gets this slot, with tr_cnt 1 and the content address it was created with.
    const bobInfo = await slotInfoFor(server, callbacks, bob, client, cb);
    expect(bobInfo.authorize.body.message).toMatchObject({ res: 'existing' });
    expect(rawSlotId(bobInfo.token.text)!.digits).toBe(alice.slotId);
    expect(bobInfo.token.body.data[0]).toMatchObject({ tr_cnt: 1 });

    // The same ticket again: refused, nothing changes.
    const again = await exchange({
      state: ticket.state,
      ...binding,
      from_uuid: bob.uuid,
      to_uuid: alice.user.uuid,
    });
    expect(again.status).toBe(403);
    const replay = await exchange({ state: ticket.state, ...binding });
    expect(replay.status).toBe(409);
    expect(replay.body).toMatchObject({ success: false, error: 'ticket_used' });
    expect(await dexOwnerOf(server, alice.slotId)).toBe(bobWallet);
    expect(await slotRow(alice.slotId)).toMatchObject({ owner_uuid: Number(bob.uuid), tr_cnt: 1 });
  });

  it('refuses forged and mismatched tickets without consuming anything, and only one of concurrent uses wins', async () => {
    const carol = await userWithSlot('Carol');
    const dave = await createUser(server.url, 'Dave');
    const daveWallet = await registerWallet(server.url, dave);
    const erin = await createUser(server.url, 'Erin');
    await registerWallet(server.url, erin);
    const binding = { cu_id: client.clientId, from_uuid: carol.user.uuid, to_uuid: dave.uuid, meta_idx: 0 };
    const { state } = (await (await issueTicket(binding)).json()) as { state: string };
    const ticketsBefore = await ticketRows();

    const forged = await exchange({ state: randomBytes(32).toString('base64url'), ...binding });
    expect(forged.status).toBe(401);
    expect(forged.body).toMatchObject({ success: false, error: 'invalid_ticket' });
    for (const wrong of [
      { to_uuid: erin.uuid },
      { meta_idx: 1 },
      { cu_id: 'another-app' },
      { from_uuid: dave.uuid },
    ]) {
      const mismatch = await exchange({ state, ...binding, ...wrong });
      expect(mismatch.status, JSON.stringify(wrong)).toBe(403);
      expect(mismatch.body).toMatchObject({ error: 'ticket_mismatch' });
    }
    expect(await ticketRows()).toEqual(ticketsBefore);
    expect(await dexOwnerOf(server, carol.slotId)).toBe(carol.wallet);
    expect(await slotRow(carol.slotId)).toMatchObject({ owner_uuid: Number(carol.user.uuid), tr_cnt: 0 });

    const attempts = await Promise.all(Array.from({ length: 4 }, () => exchange({ state, ...binding })));
    expect(attempts.map((a) => a.status).sort()).toEqual([200, 409, 409, 409]);
    expect(await dexOwnerOf(server, carol.slotId)).toBe(daveWallet);
    expect(await dexTransferCount(server, carol.slotId)).toBe(1n);
    expect(await slotRow(carol.slotId)).toMatchObject({ owner_uuid: Number(dave.uuid), tr_cnt: 1 });
  });

  it('guards ticket issuance with the admin key and checks what the ticket names', async () => {
    const frank = await userWithSlot('Frank');
    const gina = await createUser(server.url, 'Gina');
    const binding = { cu_id: client.clientId, from_uuid: frank.user.uuid, to_uuid: gina.uuid, meta_idx: 0 };
    expect((await post(`${server.url}/v1/admin/transfer-tickets`, binding)).status).toBe(401);
    expect((await issueTicket(binding, 'not-the-admin-key-0000')).status).toBe(401);
    const unknownApp = await issueTicket({ ...binding, cu_id: 'no-such-app' });
    expect(unknownApp.status).toBe(404);
    expect(await unknownApp.json()).toMatchObject({ error: 'unknown_cu_id' });
    const noSlot = await issueTicket({ ...binding, meta_idx: 3 });
    expect(noSlot.status).toBe(404);
    expect(await noSlot.json()).toMatchObject({ error: 'slot_not_found' });
    const self = await issueTicket({ ...binding, to_uuid: frank.user.uuid });
    expect(self.status).toBe(400);
    const badBody = await issueTicket({ ...binding, meta_idx: '0' });
    expect(badBody.status).toBe(400);
    expect(await badBody.json()).toMatchObject({ error: 'invalid_request', field: 'meta_idx' });
    expect(
      await ticketRows().then((rows) => rows.filter((r) => r.from_uuid === Number(frank.user.uuid))),
    ).toHaveLength(0);
    // A receiver without a wallet: the ticket is issued, but the exchange is refused and changes nothing.
    const { state } = (await (await issueTicket(binding)).json()) as { state: string };
    const refused = await exchange({ state, ...binding });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: 'wallet_required' });
    expect(await slotRow(frank.slotId)).toMatchObject({
      owner_uuid: Number(frank.user.uuid),
      state: 'active',
    });
  });

  it('answers 503 and changes nothing while the chain is down, for authorize and for transfers', async () => {
    const embedded = server.services.chain.embedded!;
    const henry = await userWithSlot('Henry');
    const iris = await createUser(server.url, 'Iris');
    const irisWallet = await registerWallet(server.url, iris);
    const jack = await createUser(server.url, 'Jack');
    await registerWallet(server.url, jack);
    const binding = { cu_id: client.clientId, from_uuid: henry.user.uuid, to_uuid: iris.uuid, meta_idx: 0 };
    const { state } = (await (await issueTicket(binding)).json()) as { state: string };
    const callbacksBefore = callbacks.requests.length;

    await embedded.stop();
    try {
      const down = await exchange({ state, ...binding });
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ success: false, error: 'chain_unavailable' });
      expect(await slotRow(henry.slotId)).toMatchObject({
        owner_uuid: Number(henry.user.uuid),
        tr_cnt: 0,
        state: 'active',
      });
      const [ticket] = (await ticketRows()).filter((t) => t.from_uuid === Number(henry.user.uuid));
      expect(ticket).toMatchObject({ status: 'issued', tx_hash: null });

      // A first authorize: the slot cannot be recorded on chain, so none is made.
      const authorize = await metaAuthorize(server.url, jack.loginToken, {
        client_id: client.clientId,
        redirect_uri: cb,
        respose_type: 'code',
        state: 'jack-1',
      });
      expect(authorize.status).toBe(503);
      expect(authorize.body).toMatchObject({ code: 503, data: [] });
      const jackSlots = await server.services.database.db
        .selectFrom('slots')
        .select('id')
        .where('owner_uuid', '=', Number(jack.uuid))
        .execute();
      expect(jackSlots).toHaveLength(0);
      expect(callbacks.requests.length).toBe(callbacksBefore);
    } finally {
      await embedded.start();
    }

    // Back up: the same ticket works, and the first authorize creates the slot.
    const moved = await exchange({ state, ...binding });
    expect(moved.status, moved.text).toBe(200);
    expect(await dexOwnerOf(server, henry.slotId)).toBe(irisWallet);
    const jackInfo = await slotInfoFor(server, callbacks, jack, client, cb);
    expect(jackInfo.authorize.body.message).toMatchObject({ res: 'created' });
  });

  it('finishes a slot creation that stopped half-way, whether or not it reached the dex', async () => {
    const store = new SlotStore(server.services.database.db);
    const { chain, wallets } = server.services;
    for (const reachedChain of [true, false]) {
      const user = await createUser(server.url, `Crash${reachedChain}`);
      const wallet = await registerWallet(server.url, user);
      const main = await wallets.mainWallet(Number(user.uuid));
      const id = newSlotId();
      expect(main).toBeDefined();
      const contentAddress = chain.gateway.walletAddress(chain.info.contracts.dex, BigInt(id));
      const stale = Date.now() - 10 * 60_000;
      // What a process that died between the row and the activation leaves behind.
      await store.insert({
        id,
        clientId: client.clientId,
        ownerUuid: Number(user.uuid),
        contentAddress,
        trCnt: 0,
        tokenNickname: user.nickname,
        metaIdx: 0,
        imported: false,
        state: 'pending',
        stateSince: stale,
        createdAt: stale,
        updatedAt: stale,
      });
      if (reachedChain) {
        const result = await chain.operator.execute([
          chain.calls.platform('dex', 'buy_slot', [wallet, BigInt(id), contentAddress]),
        ]);
        expect(result.success).toBe(true);
      }
      const info = await slotInfoFor(server, callbacks, user, client, cb);
      expect(info.authorize.body.message).toMatchObject({ res: 'recovered' });
      expect(rawSlotId(info.token.text)!.digits).toBe(id);
      expect(info.token.body.data[0]).toMatchObject({ content_address: contentAddress });
      expect(await slotRow(id)).toMatchObject({ state: 'active' });
      expect(await dexOwnerOf(server, id)).toBe(wallet);
      expect(await wallets.findByAddress(contentAddress)).toMatchObject({
        kind: 'content',
        salt: BigInt(id),
      });
    }
  });

  it('completes a transfer that reached the chain before its process stopped', async () => {
    const leo = await userWithSlot('Leo');
    const mia = await createUser(server.url, 'Mia');
    const miaWallet = await registerWallet(server.url, mia);
    const binding = { cu_id: client.clientId, from_uuid: leo.user.uuid, to_uuid: mia.uuid, meta_idx: 0 };
    const { state } = (await (await issueTicket(binding)).json()) as { state: string };
    // The dex moved the slot, but the process stopped before recording it: the row is still `moving`.
    const { chain, database } = server.services;
    const result = await chain.operator.execute([
      chain.calls.platform('dex', 'init_self', [leo.wallet as `0x${string}`, BigInt(leo.slotId), miaWallet]),
    ]);
    expect(result.success).toBe(true);
    await database.db
      .updateTable('slots')
      .set({ state: 'moving', state_since: Date.now() - 10 * 60_000 })
      .where('id', '=', leo.slotId)
      .execute();

    const settled = await exchange({ state, ...binding });
    expect(settled.status, settled.text).toBe(200);
    expect(settled.body).toMatchObject({ success: true, to_address: miaWallet, tx_hash: null });
    expect(await slotRow(leo.slotId)).toMatchObject({
      owner_uuid: Number(mia.uuid),
      tr_cnt: 1,
      state: 'active',
    });
    expect(await dexTransferCount(server, leo.slotId)).toBe(1n);
    expect((await exchange({ state, ...binding })).status).toBe(409);
  });
});
