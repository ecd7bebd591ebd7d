import { createHash, randomBytes } from 'node:crypto';
import { getAddress, parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContentTokenGateway } from '../../src/chain/contentTokenGateway.js';
import {
  bearer,
  createClient,
  createUser,
  post,
  registerWallet,
  slotInfoFor,
  startCallbackServer,
  type CallbackServer,
  type TestClient,
  type TestUser,
} from '../backend/support.js';
import {
  admin,
  buy,
  consume,
  encryptPayload,
  newPlayer,
  newProvider,
  payloadOf,
  post as contentPost,
} from '../content/contentSupport.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { Webhook } from 'standardwebhooks';
import { WebhookReceiver } from './receiver.js';
import { verifyWebhook } from '../../../sdk/src/index.js';

const ALL = [
  'grant.created',
  'grant.revoked',
  'status.changed',
  'slot.created',
  'slot.transferred',
  'market.listing.sold',
  'content.purchased',
  'content.consumed',
  'content.released',
];

/** Fast retries and a short timeout, so the retry and hang cases take well under a second each. */
const env = {
  WEBHOOK_RETRY_BASE_MS: '40',
  WEBHOOK_RETRY_MAX_MS: '120',
  WEBHOOK_TIMEOUT_MS: '400',
  WEBHOOK_WORKER_INTERVAL_MS: '25',
};

async function register(
  server: TestServer,
  receiver: WebhookReceiver,
  owner: { loginToken: string },
  clientId: string,
  path: string,
  events = ALL,
) {
  const res = await post(
    `${server.url}/v1/dev-user/clients/${clientId}/webhooks`,
    { url: `${receiver.url}${path}`, events },
    bearer(owner.loginToken),
  );
  const body = (await res.json()) as { id: string; secret: string; events: string[] };
  expect(res.status, JSON.stringify(body)).toBe(201);
  expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  receiver.secrets.set(path, body.secret);
  return body;
}

describe('webhooks: each event from its real flow, verified by the standardwebhooks package', () => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  let callbacks: CallbackServer;
  let developer: TestUser;
  let client: TestClient;

  beforeAll(async () => {
    server = await startTestServer({ env });
    receiver = new WebhookReceiver();
    await receiver.start();
    callbacks = await startCallbackServer();
    developer = await createUser(server.url);
    client = await createClient(server.url, developer, [callbacks.url()]);
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
    await callbacks?.close();
  });

  it('backend flow: slot.created, grant.created; logout: grant.revoked and status.changed, in order and signed', async () => {
    await register(server, receiver, developer, client.clientId, '/backend');
    const player = await createUser(server.url);
    await registerWallet(server.url, player);
    const { token } = await slotInfoFor(server, callbacks, player, client, callbacks.url());
    expect(token.body.code, token.text).toBe(1);
    const pair = token.body.data[0] as { access_token: string };
    const logout = await fetch(`${server.url}/v1/oauth-meta/user/logout`, {
      method: 'POST',
      headers: bearer(pair.access_token),
    });
    expect(logout.status).toBe(200);

    await receiver.waitFor(() => receiver.unique('/backend').length >= 4);
    const got = receiver.unique('/backend');
    expect(got.every((r) => r.verified)).toBe(true);
    const byType = new Map(got.map((r) => [r.event.type, r]));
    const slot = byType.get('slot.created')!.event.data;
    expect(slot).toMatchObject({ client_id: client.clientId, user_id: player.uuid });
    expect(slot.slot_id).toMatch(/^\d{19}$/);
    const grant = byType.get('grant.created')!.event.data;
    expect(grant).toMatchObject({ client_id: client.clientId, user_id: player.uuid, slot_id: slot.slot_id });
    expect(typeof grant.grant_id).toBe('string');
    expect(byType.get('grant.revoked')!.event.data).toMatchObject({
      client_id: client.clientId,
      grant_id: grant.grant_id,
      user_id: player.uuid,
    });
    expect(byType.get('status.changed')!.event.data).toMatchObject({
      client_id: client.clientId,
      user_id: player.uuid,
      status: 'logged_out',
    });
    for (const r of got) {
      // The TypeScript SDK's helper accepts the live delivery too, and gives the typed event.
      const headers = {
        'webhook-id': r.id,
        'webhook-timestamp': r.timestamp,
        'webhook-signature': r.signature,
      };
      const typed = verifyWebhook(r.body, headers, receiver.secrets.get('/backend')!, { now: () => r.at });
      expect(typed).toEqual({ id: r.id, ...r.event });
      expect(r.id).toMatch(/^msg_/);
      expect(Math.abs(Number(r.timestamp) * 1000 - r.at)).toBeLessThan(5_000);
      expect(r.signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(Number.isNaN(Date.parse(r.event.timestamp))).toBe(false);
    }
    // The deliveries API shows them delivered, with their one attempt each.
    const endpoints = (await (
      await fetch(`${server.url}/v1/dev-user/clients/${client.clientId}/webhooks`, {
        headers: bearer(developer.loginToken),
      })
    ).json()) as { webhooks: { id: string; failing: boolean }[] };
    expect(endpoints.webhooks).toHaveLength(1);
    expect(endpoints.webhooks[0]!.failing).toBe(false);
    const deliveries = (await (
      await fetch(
        `${server.url}/v1/dev-user/clients/${client.clientId}/webhooks/${endpoints.webhooks[0]!.id}/deliveries`,
        { headers: bearer(developer.loginToken) },
      )
    ).json()) as {
      deliveries: { id: string; state: string; attempt_log: { outcome: string; status: number }[] }[];
    };
    expect(deliveries.deliveries.length).toBeGreaterThanOrEqual(4);
    for (const d of deliveries.deliveries) {
      expect(d.state).toBe('delivered');
      expect(d.attempt_log.at(-1)).toMatchObject({ outcome: 'delivered', status: 200 });
    }
  });

  /** A PIN wallet for `user`, keeping the PIN trio a listing or a purchase needs. */
  async function pinWallet(user: TestUser) {
    const pinSalt = randomBytes(32).toString('hex');
    const pinHash = createHash('sha256').update(`123456${pinSalt}`, 'utf8').digest('hex');
    const res = await post(
      `${server.url}/v1/pin/register`,
      { user_uuid: Number(user.uuid), pin_hash: pinHash, pin_salt: pinSalt },
      bearer(user.loginToken),
    );
    const body = (await res.json()) as { data: { address: string; key_share_user: string }[] };
    return {
      wallet: body.data[0]!.address,
      pin: { pin_hash: pinHash, pin_salt: pinSalt, key_share_user: body.data[0]!.key_share_user },
    };
  }

  it('marketplace sale: slot.transferred (tx_hash) then market.listing.sold with its price, in slot order', async () => {
    await register(server, receiver, developer, client.clientId, '/market', [
      'slot.created',
      'slot.transferred',
      'market.listing.sold',
    ]);
    const seller = await createUser(server.url);
    const { pin: sellerPin } = await pinWallet(seller);
    const { token } = await slotInfoFor(server, callbacks, seller, client, callbacks.url());
    const access = (token.body.data[0] as { access_token: string }).access_token;
    const logout = await post(
      `${server.url}/v1/oauth/status/logout`,
      { user_id: seller.uuid, client_id: client.clientId },
      bearer(access),
    );
    expect(logout.status).toBe(200);
    const price = '1234500000000000000';
    const listed = await post(
      `${server.url}/v1/market/listings`,
      { user_id: seller.uuid, client_id: client.clientId, price, ...sellerPin },
      bearer(access),
    );
    const listing = ((await listed.json()) as { listing: { id: string } }).listing;
    expect(listed.status).toBe(201);
    const buyer = await createUser(server.url);
    const { wallet, pin } = await pinWallet(buyer);
    await server.services.chain.faucet.fund({ address: wallet as `0x${string}`, native: parseEther('2') });
    const sold = await post(
      `${server.url}/v1/market/listings/${listing.id}/purchase`,
      pin,
      bearer(buyer.loginToken),
    );
    const sale = (await sold.json()) as { tx_hash: string };
    expect(sold.status, JSON.stringify(sale)).toBe(200);

    await receiver.waitFor(() =>
      receiver.unique('/market').some((r) => r.event.type === 'market.listing.sold'),
    );
    const got = receiver.unique('/market');
    expect(got.every((r) => r.verified)).toBe(true);
    expect(got.map((r) => r.event.type)).toEqual(['slot.created', 'slot.transferred', 'market.listing.sold']);
    const slotId = got[0]!.event.data.slot_id as string;
    expect(got[1]!.event.data).toEqual({
      client_id: client.clientId,
      slot_id: slotId,
      from_user_id: seller.uuid,
      to_user_id: buyer.uuid,
      tx_hash: sale.tx_hash,
    });
    expect(got[2]!.event.data).toEqual({
      client_id: client.clientId,
      listing_id: listing.id,
      slot_id: slotId,
      seller_user_id: seller.uuid,
      buyer_user_id: buyer.uuid,
      price,
      tx_hash: sale.tx_hash,
    });
  });

  it('content: content.purchased with its price and tx_hash, content.consumed once on chain', async () => {
    const provider = await newProvider(server, 40);
    const dev = { loginToken: provider.developer.token };
    await register(server, receiver, dev, provider.clientId, '/content');
    const player = await newPlayer(server, provider);
    const bought = await buy(server, provider, player, '0.5');
    expect(bought.status).toBe(200);
    const used = await consume(server, {
      encrypted_message: encryptPayload(provider, payloadOf(provider, player, 123n)),
    });
    expect(used.status).toBe(200);

    await receiver.waitFor(() =>
      ['content.purchased', 'content.consumed'].every((t) =>
        receiver.unique('/content').some((r) => r.event.type === t),
      ),
    );
    let got = receiver.unique('/content');
    expect(got.every((r) => r.verified)).toBe(true);
    const purchased = got.find((r) => r.event.type === 'content.purchased')!.event.data;
    expect(purchased).toEqual({
      client_id: provider.clientId,
      cuid: provider.cuid,
      slot_id: player.slotId,
      slot_address: player.slot,
      user_id: String(player.user.uuid),
      amount: bought.body.token_amount,
      native_paid: '500000000000000000',
      platform_fee: bought.body.platform_fee,
      provider_received: bought.body.provider_received,
      tx_hash: bought.body.tx_hash,
    });
    const consumed = got.find((r) => r.event.type === 'content.consumed')!.event.data;
    expect(consumed).toMatchObject({
      client_id: provider.clientId,
      cuid: provider.cuid,
      slot_id: player.slotId,
      amount: '123',
      tx_hash: used.body.tx_hash,
      used_after: used.body.used_balances,
      balance_after: used.body.balance,
    });
    // A release, once on chain: content.released with the amount paid and its transaction.
    expect(
      (
        await contentPost(
          server,
          '/v1/admin/content/release',
          { cuid: provider.cuid, enabled: true },
          admin(server),
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await contentPost(
          server,
          '/v1/admin/content/pool',
          { cuid: provider.cuid, amount: '1000000000000000000' },
          admin(server),
        )
      ).status,
    ).toBe(200);
    const released = await contentPost<{ released_amount: string; tx_hash: string }>(
      server,
      '/v1/development-api/release_used_balance',
      { client_id: provider.clientId, cuid: provider.cuid, slot: player.slot },
      provider.developer.token,
    );
    expect(released.status).toBe(200);
    await receiver.waitFor(() =>
      receiver.unique('/content').some((r) => r.event.type === 'content.released'),
    );
    expect(receiver.unique('/content').find((r) => r.event.type === 'content.released')!.event.data).toEqual({
      client_id: provider.clientId,
      cuid: provider.cuid,
      slot_address: player.slot,
      usage: '123',
      amount: released.body.released_amount,
      tx_hash: released.body.tx_hash,
    });
    // What the intents' recovery reads after a crash (the gateway's log queries) finds exactly these
    // changes; a terms change's settlement of the same slot is not taken for a release.
    const more = await consume(server, {
      encrypted_message: encryptPayload(provider, payloadOf(provider, player, 7n)),
    });
    expect(more.status).toBe(200);
    const terms = await contentPost(
      server,
      '/v1/admin/content/terms',
      { cuid: provider.cuid, release_per: 50, owner_addr: provider.ownerAddr },
      admin(server),
    );
    expect(terms.status, JSON.stringify(terms.body)).toBe(200);
    const gateway = new ContentTokenGateway(
      server.services.chain.gateway,
      server.services.chain.operator,
      server.services.chain.calls,
    );
    const slot = getAddress(player.slot);
    const purchases = await gateway.findPurchases({
      cuid: provider.cuid,
      slot,
      buyer: getAddress(player.wallet),
      fromBlock: 0n,
    });
    expect(purchases.map((p) => [p.txHash, p.amount.toString(), p.platformFee.toString()])).toEqual([
      [bought.body.tx_hash, bought.body.token_amount, bought.body.platform_fee],
    ]);
    const releases = await gateway.findReleases({ cuid: provider.cuid, slot, fromBlock: 0n });
    expect(releases.map((r) => [r.txHash, r.usage, r.paid.toString()])).toEqual([
      [released.body.tx_hash, 123n, released.body.released_amount],
    ]);
    // slot.created came first for this slot (newPlayer made it).
    got = receiver.unique('/content');
    expect(got.findIndex((r) => r.event.type === 'slot.created')).toBeLessThan(
      got.findIndex((r) => r.event.type === 'content.purchased'),
    );
  });

  it('a receiver that answers 500 three times then 200 gets the same webhook-id four times', async () => {
    receiver.behaviours.set('/flaky', { statuses: [500, 500, 500, 200] });
    await register(server, receiver, developer, client.clientId, '/flaky', ['status.changed']);
    await server.services.loginStatus.setStatus(Number(developer.uuid), client.clientId, 'logged_out');
    await receiver.waitFor((all) => all.filter((r) => r.path === '/flaky').length >= 4);
    const got = receiver.received.filter((r) => r.path === '/flaky');
    expect(got).toHaveLength(4);
    expect(new Set(got.map((r) => r.id)).size).toBe(1);
    expect(got.every((r) => r.verified)).toBe(true);
    // Exponential backoff: each wait is at least half its step (40, 80, 120 ms caps).
    const gaps = got.slice(1).map((r, i) => r.at - got[i]!.at);
    expect(gaps[0]).toBeGreaterThanOrEqual(15);
    expect(gaps[1]).toBeGreaterThanOrEqual(35);
    const endpoint = [...receiver.secrets.keys()].indexOf('/flaky');
    expect(endpoint).toBeGreaterThanOrEqual(0);
  });

  it('a receiver that hangs is timed out and retried with the same webhook-id', async () => {
    receiver.behaviours.set('/hang', { hang: true });
    const hook = await register(server, receiver, developer, client.clientId, '/hang', ['status.changed']);
    const started = Date.now();
    await server.services.loginStatus.setStatus(Number(developer.uuid), client.clientId, 'logged_in');
    await receiver.waitFor((all) => all.filter((r) => r.path === '/hang').length >= 2, 10_000);
    const got = receiver.received.filter((r) => r.path === '/hang');
    expect(new Set(got.map((r) => r.id)).size).toBe(1);
    // The second attempt came only after the first timed out (400 ms).
    expect(got[1]!.at - started).toBeGreaterThanOrEqual(400);
    type Deliveries = { deliveries: { state: string; attempt_log: { outcome: string; error: string }[] }[] };
    await expect
      .poll(async () => {
        const again = (await (
          await fetch(`${server.url}/v1/dev-user/clients/${client.clientId}/webhooks/${hook.id}/deliveries`, {
            headers: bearer(developer.loginToken),
          })
        ).json()) as Deliveries;
        return again.deliveries[0]?.attempt_log[0]?.outcome;
      })
      .toBe('timeout');
  });

  it('refuses a metadata, link-local or malformed URL and an unknown event type at registration (400, nothing stored)', async () => {
    const attempts: [string, string[], string][] = [
      ['http://169.254.169.254/latest/meta-data', ['grant.created'], 'invalid_webhook_url'],
      ['http://[fd00:ec2::254]/', ['grant.created'], 'invalid_webhook_url'],
      ['http://[fe80::1]/hook', ['grant.created'], 'invalid_webhook_url'],
      ['http://100.64.0.1/hook', ['grant.created'], 'invalid_webhook_url'],
      ['ftp://example.com/hook', ['grant.created'], 'invalid_webhook_url'],
      ['https://user:pw@example.com/hook', ['grant.created'], 'invalid_webhook_url'],
      [`${receiver.url}/x`, ['grant.exploded'], 'invalid_request'],
    ];
    for (const [url, events, code] of attempts) {
      const res = await post(
        `${server.url}/v1/dev-user/clients/${client.clientId}/webhooks`,
        { url, events },
        bearer(developer.loginToken),
      );
      expect(res.status, url).toBe(400);
      expect(await res.json()).toMatchObject({ success: false, error: code });
    }
    const list = (await (
      await fetch(`${server.url}/v1/dev-user/clients/${client.clientId}/webhooks`, {
        headers: bearer(developer.loginToken),
      })
    ).json()) as { webhooks: { url: string }[] };
    expect(list.webhooks.map((w) => w.url).some((u) => !u.startsWith(receiver.url))).toBe(false);
  });

  it('after a secret rotation both secrets sign until the grace ends (standardwebhooks verifies with either)', async () => {
    const hook = await register(server, receiver, developer, client.clientId, '/rotate', ['status.changed']);
    const oldSecret = hook.secret;
    const rotated = await post(
      `${server.url}/v1/dev-user/clients/${client.clientId}/webhooks/${hook.id}/rotate-secret`,
      {},
      bearer(developer.loginToken),
    );
    const { secret: newSecret, previous_secret_valid_until } = (await rotated.json()) as {
      secret: string;
      previous_secret_valid_until: string;
    };
    expect(rotated.status).toBe(200);
    expect(Date.parse(previous_secret_valid_until) - Date.now()).toBeGreaterThan(86_000_000);
    await server.services.loginStatus.setStatus(Number(developer.uuid), client.clientId, 'logged_out');
    await receiver.waitFor((all) => all.some((r) => r.path === '/rotate'));
    const delivery = receiver.received.find((r) => r.path === '/rotate')!;
    expect(delivery.signature.split(' ')).toHaveLength(2);
    const headers = {
      'webhook-id': delivery.id,
      'webhook-timestamp': delivery.timestamp,
      'webhook-signature': delivery.signature,
    };
    for (const secret of [oldSecret, newSecret]) {
      expect(new Webhook(secret).verify(delivery.body, headers)).toMatchObject({ type: 'status.changed' });
    }
    expect(() =>
      new Webhook(`whsec_${randomBytes(32).toString('base64')}`).verify(delivery.body, headers),
    ).toThrow();
  });

  it("another developer's app is client_not_found; the secret is never shown again", async () => {
    const other = await createUser(server.url);
    const res = await post(
      `${server.url}/v1/dev-user/clients/${client.clientId}/webhooks`,
      { url: `${receiver.url}/steal`, events: ['grant.created'] },
      bearer(other.loginToken),
    );
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'client_not_found' });
    const list = await fetch(`${server.url}/v1/dev-user/clients/${client.clientId}/webhooks`, {
      headers: bearer(developer.loginToken),
    });
    expect(await list.text()).not.toContain('whsec_');
  });
});
