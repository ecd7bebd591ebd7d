import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createClient, createUser, post } from '../helpers/http.js';
import { type OAuth2UpstreamServer, startOAuth2UpstreamServer } from '../helpers/oauth2UpstreamServer.js';
import { type OpenIdSteamServer, startOpenIdSteamServer } from '../helpers/openIdSteamServer.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { type CreationOptions, SoftAuthenticator } from '../players/softAuthenticator.js';

/**
 * The browser flow through dauth's own routes with the other two kinds, against real local upstreams:
 * a Steam-shaped OpenID 2.0 OP (checkid_setup, then check_authentication) and a Discord-shaped OAuth 2.0
 * server with a userinfo endpoint. The "browser" is fetch with the flow cookie carried by hand. The
 * Steam attacks end with nothing created.
 */
describe('Steam and oauth2 sign-ins through dauth', () => {
  let server: TestServer;
  let base: string;
  let steam: OpenIdSteamServer;
  let evilOp: OpenIdSteamServer;
  let discord: OAuth2UpstreamServer;

  const counts = async () => {
    const db = server.services.database.db;
    const users = await db.selectFrom('users').select(db.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const ids = await db
      .selectFrom('federated_identities')
      .select(db.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return { users: Number(users.n), identities: Number(ids.n) };
  };

  /** `start` for the console: the upstream URL and the flow cookie, as a browser would keep them. */
  async function start(provider: string, query = '') {
    const res = await fetch(`${base}/v1/federation/${provider}/start?return_to=/console${query}`, {
      redirect: 'manual',
    });
    expect(res.status).toBe(302);
    return {
      upstream: new URL(res.headers.get('location')!),
      cookie: res.headers.get('set-cookie')!.split(';')[0]!,
    };
  }

  /** The upstream auto-approves: where it sends the browser back (dauth's callback with its answer). */
  async function approve(upstreamUrl: URL): Promise<string> {
    const res = await fetch(upstreamUrl, { redirect: 'manual' });
    expect(res.status).toBe(302);
    return res.headers.get('location')!;
  }

  /** Opens a link URL in the browser that asked for it: with the link cookie its answer set. */
  const startLink = (url: string, linkAnswer: Response) =>
    fetch(url, {
      redirect: 'manual',
      headers: { cookie: linkAnswer.headers.get('set-cookie')!.split(';')[0]! },
    });
  const flowCookieOf = (res: Response) =>
    res.headers
      .getSetCookie()
      .find((c) => c.startsWith('dauth_federation_flow='))!
      .split(';')[0]!;

  const callback = (url: string, cookie: string) =>
    fetch(url, { redirect: 'manual', headers: { cookie, accept: 'application/json' } });

  async function redeem(location: string | null) {
    const ticket = /^\/console#login_ticket=([A-Za-z0-9_-]{43})$/.exec(location ?? '')?.[1];
    expect(ticket, `landed at ${location}`).toBeDefined();
    const res = await post(`${base}/v1/federation/login-ticket`, { ticket });
    expect(res.status).toBe(200);
    return (await res.json()) as { token: string; uuid: string; created: boolean };
  }

  beforeAll(async () => {
    steam = await startOpenIdSteamServer({ steamId: '76561198000000001' });
    evilOp = await startOpenIdSteamServer({ steamId: '76561198000000001', alwaysValid: true });
    discord = await startOAuth2UpstreamServer();
    server = await startTestServer({
      env: {
        IDENTITY_PROVIDERS: JSON.stringify([
          { id: 'steam', op_endpoint: steam.endpoint },
          {
            id: 'discord',
            client_id: discord.clientId,
            client_secret: discord.clientSecret,
            authorization_endpoint: discord.authorizationEndpoint,
            token_endpoint: discord.tokenEndpoint,
            userinfo_endpoint: discord.userinfoEndpoint,
          },
        ]),
      },
    });
    base = server.config.publicUrl;
  });
  afterAll(async () => {
    await server?.close();
    await steam?.close();
    await evilOp?.close();
    await discord?.close();
  });

  it('Steam: the steamid64 becomes the identity of a new account (no e-mail); the next sign-in finds it', async () => {
    const flow = await start('steam');
    expect(flow.upstream.toString().startsWith(steam.endpoint)).toBe(true);
    const landed = await callback(await approve(flow.upstream), flow.cookie);
    const first = await redeem(landed.headers.get('location'));
    expect(first.created).toBe(true);
    const identities = await fetch(`${base}/v1/dev-user/identities`, { headers: bearer(first.token) });
    expect(await identities.json()).toMatchObject({
      identities: [{ provider: 'steam', provider_name: 'Steam', subject: '76561198000000001', email: null }],
    });
    expect((await server.services.users.findById(Number(first.uuid)))?.email).toBeNull();

    const again = await start('steam');
    const second = await redeem(
      (await callback(await approve(again.upstream), again.cookie)).headers.get('location'),
    );
    expect(second).toMatchObject({ uuid: first.uuid, created: false });
  });

  it('Steam: a replayed assertion is refused, in its own flow and carried into a new one; nothing created', async () => {
    steam.steamId = '76561198000000002';
    const flow = await start('steam');
    const assertion = await approve(flow.upstream);
    await redeem((await callback(assertion, flow.cookie)).headers.get('location'));
    const before = await counts();

    // The same callback again: its flow is spent.
    const replay = await callback(assertion, flow.cookie);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: 'invalid_state' });

    // The same assertion under a new flow's state: refused by the provider (return_to and nonce).
    const fresh = await start('steam');
    const carried = new URL(assertion);
    carried.searchParams.set(
      'state',
      fresh.upstream.searchParams.get('openid.return_to')!.split('state=')[1]!,
    );
    const res = await callback(carried.toString(), fresh.cookie);
    expect(res.headers.get('location')).toBe('/console#federation_error=upstream_rejected');
    expect(await counts()).toEqual(before);
  });

  it("Steam: an assertion from another OP (its op_endpoint is not Steam's) is refused without asking it; nothing created", async () => {
    const before = await counts();
    const checksBefore = evilOp.checks.length;
    const flow = await start('steam');
    // The attacker's OP answers dauth's own request (same return_to and realm) with its own assertion.
    const forged = new URL(evilOp.endpoint);
    for (const [key, value] of flow.upstream.searchParams) forged.searchParams.set(key, value);
    const assertion = new URL(await approve(forged));
    expect(assertion.searchParams.get('openid.op_endpoint')).toBe(evilOp.endpoint);
    const res = await callback(assertion.toString(), flow.cookie);
    expect(res.headers.get('location')).toBe('/console#federation_error=upstream_rejected');
    expect(evilOp.checks.length).toBe(checksBefore);
    expect(await counts()).toEqual(before);
  });

  it('oauth2 (Discord-shaped): PKCE code, userinfo; the verified e-mail is the new account’s', async () => {
    const flow = await start('discord');
    expect(flow.upstream.searchParams.get('code_challenge_method')).toBe('S256');
    const landed = await callback(await approve(flow.upstream), flow.cookie);
    const session = await redeem(landed.headers.get('location'));
    expect(session.created).toBe(true);
    expect((await server.services.users.findById(Number(session.uuid)))?.email).toBe('nelly@example.com');
    expect(discord.userinfoRequests).toBeGreaterThan(0);
  });

  it('oauth2: an upstream e-mail that is an account’s → 409 account_exists_link_required, nothing created', async () => {
    const owner = await createUser(base);
    discord.userinfo = { ...discord.userinfo, id: '80351110224678999', email: owner.email, verified: true };
    const before = await counts();
    const flow = await start('discord');
    const res = await callback(await approve(flow.upstream), flow.cookie);
    expect(res.headers.get('location')).toBe('/console#federation_error=account_exists_link_required');
    expect(await counts()).toEqual(before);
  });

  it('link by redirect: the start URL of identities/link links the identity to the signed-in user', async () => {
    const owner = await createUser(base, undefined, { clientId: 'dauth:console' });
    discord.userinfo = {
      ...discord.userinfo,
      id: '80351110224670001',
      email: 'linked@example.com',
      verified: true,
    };
    const res = await post(
      `${base}/v1/dev-user/identities/link`,
      { provider: 'discord' },
      bearer(owner.loginToken),
    );
    const { url } = (await res.json()) as { url: string };
    const started = await startLink(url, res);
    const cookie = flowCookieOf(started);
    const landed = await callback(await approve(new URL(started.headers.get('location')!)), cookie);
    expect(landed.headers.get('location')).toBe('/console#identity_linked=discord');
    const list = await fetch(`${base}/v1/dev-user/identities`, { headers: bearer(owner.loginToken) });
    expect(await list.json()).toMatchObject({
      identities: [{ provider: 'discord', subject: '80351110224670001', email: 'linked@example.com' }],
    });
    // The account's own e-mail is untouched by a link.
    expect((await server.services.users.findById(Number(owner.uuid)))?.email).toBe(owner.email);
  });

  it('link by redirect of an identity another account holds: identity_in_use, nothing linked', async () => {
    const owner = await createUser(base, undefined, { clientId: 'dauth:console' });
    // 80351110224670001 was linked to another account above.
    const res = await post(
      `${base}/v1/dev-user/identities/link`,
      { provider: 'discord' },
      bearer(owner.loginToken),
    );
    const { url } = (await res.json()) as { url: string };
    const started = await startLink(url, res);
    const cookie = flowCookieOf(started);
    const landed = await callback(await approve(new URL(started.headers.get('location')!)), cookie);
    expect(landed.headers.get('location')).toBe('/console#federation_error=identity_in_use');
    const list = await fetch(`${base}/v1/dev-user/identities`, { headers: bearer(owner.loginToken) });
    expect(await list.json()).toEqual({ identities: [] });
  });

  it('Steam and oauth2 say nothing of when the user signed in: a plain sign-in is no fresh login, a step-up is', async () => {
    steam.steamId = '76561198000000004';
    discord.userinfo = { ...discord.userinfo, id: '80351110224670004', email: 'when@example.com' };
    for (const provider of ['steam', 'discord']) {
      const plain = await start(provider);
      const stale = await redeem(
        (await callback(await approve(plain.upstream), plain.cookie)).headers.get('location'),
      );
      const refused = await post(
        `${base}/v1/dev-user/passkeys/registration-options`,
        {},
        bearer(stale.token),
      );
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ error: 'reauthentication_required' });

      const stepUp = await start(provider, '&reauthenticate=true');
      const fresh = await redeem(
        (await callback(await approve(stepUp.upstream), stepUp.cookie)).headers.get('location'),
      );
      expect(fresh.uuid).toBe(stale.uuid);
      const options = await post(
        `${base}/v1/dev-user/passkeys/registration-options`,
        {},
        bearer(fresh.token),
      );
      expect(options.status).toBe(200);
    }
  });

  it('a Steam account (no e-mail, no password) may delete its passkey while its identity remains, then keeps that identity', async () => {
    steam.steamId = '76561198000000003';
    // A step-up sign-in: Steam says nothing of when the user signed in, so only that one is a fresh login.
    const flow = await start('steam', '&reauthenticate=true');
    const session = await redeem(
      (await callback(await approve(flow.upstream), flow.cookie)).headers.get('location'),
    );
    const authenticator = new SoftAuthenticator(new URL(base).hostname, new URL(base).origin);
    const options = await post(
      `${base}/v1/dev-user/passkeys/registration-options`,
      {},
      bearer(session.token),
    );
    expect(options.status).toBe(200);
    const registered = await post(
      `${base}/v1/dev-user/passkeys`,
      authenticator.register((await options.json()) as CreationOptions),
      bearer(session.token),
    );
    expect(registered.status).toBe(201);
    const removed = await fetch(`${base}/v1/dev-user/passkeys/${authenticator.id}`, {
      method: 'DELETE',
      headers: bearer(session.token),
    });
    expect(removed.status).toBe(200);
    const { identities } = (await (
      await fetch(`${base}/v1/dev-user/identities`, { headers: bearer(session.token) })
    ).json()) as { identities: { id: string }[] };
    const unlink = await fetch(`${base}/v1/dev-user/identities/${identities[0]!.id}`, {
      method: 'DELETE',
      headers: bearer(session.token),
    });
    expect(unlink.status).toBe(409);
    expect(await unlink.json()).toMatchObject({ error: 'last_sign_in_method' });
  });

  it('a guest upgrades by a link-by-redirect: same uuid, verified e-mail set, guest secret dead', async () => {
    const owner = await createUser(base);
    const app = await createClient(base, owner, ['http://127.0.0.1:9/cb']);
    const guest = (await (await post(`${base}/v1/dev-user/guest`, { client_id: app.clientId })).json()) as {
      token: string;
      uuid: string;
      guest_secret: string;
    };
    discord.userinfo = {
      ...discord.userinfo,
      id: '80351110224670777',
      email: 'guest-up@example.com',
      verified: true,
    };
    const res = await post(
      `${base}/v1/dev-user/identities/link`,
      { provider: 'discord' },
      bearer(guest.token),
    );
    expect(res.status).toBe(200);
    const { url } = (await res.json()) as { url: string };
    const started = await startLink(url, res);
    const cookie = flowCookieOf(started);
    const landed = await callback(await approve(new URL(started.headers.get('location')!)), cookie);
    expect(landed.headers.get('location')).toBe('/console#identity_linked=discord');
    expect(await server.services.guests.isGuest(Number(guest.uuid))).toBe(false);
    expect((await server.services.users.findById(Number(guest.uuid)))?.email).toBe('guest-up@example.com');
    const secret = await post(`${base}/v1/dev-user/guest/login`, {
      uuid: guest.uuid,
      guest_secret: guest.guest_secret,
    });
    expect(secret.status).toBe(401);
    // The Discord sign-in now opens the same account.
    const flow = await start('discord');
    const session = await redeem(
      (await callback(await approve(flow.upstream), flow.cookie)).headers.get('location'),
    );
    expect(session).toMatchObject({ uuid: guest.uuid, created: false });
  });
});
