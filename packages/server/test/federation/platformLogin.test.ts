import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createClient, createUser, post, type TestUser } from '../helpers/http.js';
import { type OpenIdSteamServer, startOpenIdSteamServer } from '../helpers/openIdSteamServer.js';
import { type PlatformFakes, startPlatformFakes } from '../helpers/platformFakes.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { stepNow, totpCode, totpSecretOf } from '../helpers/totp.js';

const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;

let counter = 0;
/** A SteamID64 no other test uses. */
const steamId = () => `7656119${String(Date.now() % 1e9).padStart(9, '0')}${++counter % 10}`;
const unique = (prefix: string) => `${prefix}-${Date.now()}-${++counter}`;

/**
 * Platform sign-in inside the game (`POST /v1/dev-user/platform-login`, decisions §9) against a real
 * dauth (SQLite, embedded chain) whose four platform kinds point at local servers speaking each
 * platform's protocol (test/helpers/platformFakes.ts), with every refusal the platforms document, and
 * the Steam web identity (the OpenID kind's test OP) being the same account as the Steam ticket's.
 */
describe('platform sign-in inside the game', () => {
  let server: TestServer;
  let base: string;
  let fakes: PlatformFakes;
  let steamWeb: OpenIdSteamServer;
  let clientId: string;
  let owner: TestUser;

  const platformLogin = (provider: string, credential: Record<string, unknown>, client = clientId) =>
    post(`${base}/v1/dev-user/platform-login`, { provider, client_id: client, credential });
  const errorOf = async (res: Response) => ((await res.json()) as { error: string }).error;
  const userCount = async () => {
    const db = server.services.database.db;
    const row = await db.selectFrom('users').select(db.fn.countAll().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  };

  beforeAll(async () => {
    fakes = await startPlatformFakes();
    steamWeb = await startOpenIdSteamServer();
    server = await startTestServer({
      env: {
        RATE_LIMITS: 'platform_login=1000/1m,federation=1000/1m,login_address=1000/1m',
        IDENTITY_PROVIDERS: JSON.stringify([
          { id: 'steam', op_endpoint: steamWeb.endpoint },
          ...fakes.entries(),
          {
            id: 'gc-strict',
            kind: 'game_center',
            bundle_id: fakes.bundleId,
            trust_anchor: fakes.gameCenter.anchorPem,
          },
          {
            id: 'gc-one-root',
            kind: 'game_center',
            bundle_id: fakes.bundleId,
            trust_anchor: fakes.gameCenter.firstRootPem,
            public_key_host: '127.0.0.1',
          },
          {
            id: 'steam-vac-ok',
            kind: 'steam_ticket',
            app_id: fakes.steam.appId,
            web_api_key: fakes.steam.key,
            identity: fakes.steam.identity,
            api_base_url: fakes.steam.base,
            allow_vac_banned: true,
          },
          {
            id: 'steam-bad-key',
            kind: 'steam_ticket',
            app_id: fakes.steam.appId,
            web_api_key: 'NOT-THE-PUBLISHER-KEY',
            identity: fakes.steam.identity,
            api_base_url: fakes.steam.base,
          },
          {
            id: 'steam-other-app',
            kind: 'steam_ticket',
            app_id: '999999',
            web_api_key: fakes.steam.key,
            identity: fakes.steam.identity,
            api_base_url: fakes.steam.base,
          },
        ]),
      },
    });
    base = server.config.publicUrl;
    owner = await createUser(base, undefined, { clientId: 'dauth:console' });
    clientId = (await createClient(base, owner, ['http://127.0.0.1:9/cb'])).clientId;
  });
  afterAll(async () => {
    await server?.close();
    await fakes?.close();
    await steamWeb?.close();
  });

  it('platform kinds are not "Continue with …" buttons', async () => {
    const res = await fetch(`${base}/v1/federation/providers`);
    expect(await res.json()).toEqual({ providers: [{ id: 'steam', kind: 'steam', name: 'Steam' }] });
  });

  describe('steam_ticket', () => {
    it('a ticket signs the SteamID64 in (created, then found), bound to the app, the publisher key sent', async () => {
      const id = steamId();
      const first = await platformLogin('steam-game', { ticket: fakes.steam.issue({ steamid: id }) });
      expect(first.status).toBe(200);
      const body = (await first.json()) as {
        success: boolean;
        token: string;
        uuid: string;
        created: boolean;
      };
      expect(body).toEqual({
        success: true,
        token: expect.any(String),
        uuid: expect.stringMatching(/^\d+$/),
        created: true,
      });
      expect(claimsOf(body.token)).toMatchObject({ azp: clientId, amr: ['fed'] });
      const asked = fakes.steam.requests.at(-1)!;
      expect(Object.fromEntries(asked)).toMatchObject({
        key: fakes.steam.key,
        appid: '480',
        identity: 'dauth',
      });
      const again = await platformLogin('steam-game', { ticket: fakes.steam.issue({ steamid: id }) });
      expect(await again.json()).toMatchObject({ uuid: body.uuid, created: false });
      const identities = await fetch(`${base}/v1/dev-user/identities`, { headers: bearer(body.token) });
      expect(await identities.json()).toMatchObject({
        identities: [{ provider: 'steam', provider_name: 'Steam', subject: id, email: null }],
      });
    });

    it('refuses a ticket for another app id or identity, an unknown ticket, a replayed one: 401 platform_rejected', async () => {
      const before = await userCount();
      const otherApp = fakes.steam.issue({ steamid: steamId(), appId: '12345' });
      expect(await errorOf(await platformLogin('steam-game', { ticket: otherApp }))).toBe(
        'platform_rejected',
      );
      const otherIdentity = fakes.steam.issue({ steamid: steamId(), identity: 'someone-else' });
      expect(await errorOf(await platformLogin('steam-game', { ticket: otherIdentity }))).toBe(
        'platform_rejected',
      );
      // The entry configured for another app asks Steam with its app id: Steam refuses the ticket.
      const ours = fakes.steam.issue({ steamid: steamId() });
      const wrongEntry = await platformLogin('steam-other-app', { ticket: ours });
      expect(wrongEntry.status).toBe(401);
      expect(await errorOf(wrongEntry)).toBe('platform_rejected');
      expect(await errorOf(await platformLogin('steam-game', { ticket: 'ABCDEF0123456789' }))).toBe(
        'platform_rejected',
      );
      expect(await errorOf(await platformLogin('steam-game', { ticket: 'not hex' }))).toBe(
        'platform_rejected',
      );
      expect(await userCount()).toBe(before);
      const good = fakes.steam.issue({ steamid: steamId() });
      expect((await platformLogin('steam-game', { ticket: good })).status).toBe(200);
      const replay = await platformLogin('steam-game', { ticket: good });
      expect(replay.status).toBe(401);
      expect(await errorOf(replay)).toBe('platform_rejected');
    });

    it('publisher-banned → 403 platform_banned; VAC-banned too unless allow_vac_banned', async () => {
      const before = await userCount();
      const pub = await platformLogin('steam-game', {
        ticket: fakes.steam.issue({ steamid: steamId(), publisherbanned: true }),
      });
      expect(pub.status).toBe(403);
      expect(await pub.json()).toMatchObject({
        success: false,
        error: 'platform_banned',
        reason: 'publisher_banned',
      });
      const pubAllowed = await platformLogin('steam-vac-ok', {
        ticket: fakes.steam.issue({ steamid: steamId(), publisherbanned: true }),
      });
      expect(pubAllowed.status).toBe(403);
      const vac = await platformLogin('steam-game', {
        ticket: fakes.steam.issue({ steamid: steamId(), vacbanned: true }),
      });
      expect(vac.status).toBe(403);
      expect(await vac.json()).toMatchObject({ error: 'platform_banned', reason: 'vac_banned' });
      expect(await userCount()).toBe(before);
      const vacAllowed = await platformLogin('steam-vac-ok', {
        ticket: fakes.steam.issue({ steamid: steamId(), vacbanned: true }),
      });
      expect(vacAllowed.status).toBe(200);
    });

    it("a wrong publisher key (Steam's 403) is dauth's problem, not the player's: 503 provider_unavailable", async () => {
      const res = await platformLogin('steam-bad-key', { ticket: fakes.steam.issue({ steamid: steamId() }) });
      expect(res.status).toBe(503);
      expect(await errorOf(res)).toBe('provider_unavailable');
    });

    it('family sharing: the borrower signs in as themselves, not as the owner', async () => {
      const borrower = steamId();
      const owner64 = steamId();
      const res = await platformLogin('steam-game', {
        ticket: fakes.steam.issue({ steamid: borrower, ownersteamid: owner64 }),
      });
      const body = (await res.json()) as { uuid: string };
      const identity = await server.services.federation.listIdentities(Number(body.uuid));
      expect(identity.map((i) => [i.provider, i.subject])).toEqual([['steam', borrower]]);
    });

    it('the Steam web identity (OpenID) and the ticket identity are the same account', async () => {
      const id = steamId();
      steamWeb.steamId = id;
      const start = await fetch(`${base}/v1/federation/steam/start?return_to=/console`, {
        redirect: 'manual',
      });
      const cookie = start.headers.get('set-cookie')!.split(';')[0]!;
      const approved = await fetch(start.headers.get('location')!, { redirect: 'manual' });
      const landed = await fetch(approved.headers.get('location')!, {
        redirect: 'manual',
        headers: { cookie },
      });
      const ticket = /login_ticket=([A-Za-z0-9_-]+)/.exec(landed.headers.get('location') ?? '')?.[1];
      const web = (await (await post(`${base}/v1/federation/login-ticket`, { ticket })).json()) as {
        uuid: string;
        created: boolean;
      };
      expect(web.created).toBe(true);
      const game = await platformLogin('steam-game', { ticket: fakes.steam.issue({ steamid: id }) });
      expect(await game.json()).toMatchObject({ uuid: web.uuid, created: false });
    });
  });

  describe('epic', () => {
    it('an EOS ID token signs the product user id in; its iat is the auth_time', async () => {
      const puid = unique('0002');
      const iat = Math.floor(Date.now() / 1000) - 120;
      const res = await platformLogin('epic', { id_token: await fakes.eos.mint(puid, { iat }) });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { token: string; uuid: string; created: boolean };
      expect(body.created).toBe(true);
      expect(claimsOf(body.token).auth_time).toBe(iat);
      const again = await platformLogin('epic', { id_token: await fakes.eos.mint(puid) });
      expect(await again.json()).toMatchObject({ uuid: body.uuid, created: false });
    });

    it('refuses expired, foreign-key, wrong-audience, wrong-issuer, unsigned and replayed tokens', async () => {
      const before = await userCount();
      const now = Math.floor(Date.now() / 1000);
      const refused = [
        await fakes.eos.mint(unique('p'), { iat: now - 7200, exp: now - 3600 }),
        await fakes.eos.mint(unique('p'), {}, fakes.eos.foreignKey),
        await fakes.eos.mint(unique('p'), { aud: 'another-eos-client' }),
        await fakes.eos.mint(unique('p'), { iss: 'https://api.epicgames.dev/epic/oauth/v1' }),
        // alg none: header {"alg":"none"} and no signature.
        `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: 'x', aud: fakes.eos.clientId, iss: fakes.eos.issuer, exp: now + 60, iat: now })).toString('base64url')}.`,
      ];
      for (const token of refused) {
        const res = await platformLogin('epic', { id_token: token });
        expect(res.status).toBe(401);
        expect(await errorOf(res)).toBe('platform_rejected');
      }
      expect(await userCount()).toBe(before);
      const good = await fakes.eos.mint(unique('p'));
      expect((await platformLogin('epic', { id_token: good })).status).toBe(200);
      expect(await errorOf(await platformLogin('epic', { id_token: good }))).toBe('platform_rejected');
    });
  });

  describe('game_center', () => {
    const sign = (extra: Partial<Parameters<PlatformFakes['gameCenter']['sign']>[0]> = {}) =>
      fakes.gameCenter.sign({ teamPlayerId: unique('T:_team'), bundleId: fakes.bundleId, ...extra });

    it('a signature chained to the anchor signs the team player id in; the timestamp is the auth_time', async () => {
      const credential = sign({ teamPlayerId: 'T:_abc123' });
      const res = await platformLogin('game-center', credential);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { token: string; uuid: string; created: boolean };
      expect(body.created).toBe(true);
      expect(claimsOf(body.token).auth_time).toBe(Math.floor(Number(credential.timestamp) / 1000));
      const identities = await fetch(`${base}/v1/dev-user/identities`, { headers: bearer(body.token) });
      expect(await identities.json()).toMatchObject({
        identities: [{ provider: 'game-center', provider_name: 'Game Center', subject: 'T:_abc123' }],
      });
      const again = await platformLogin('game-center', sign({ teamPlayerId: 'T:_abc123' }));
      expect(await again.json()).toMatchObject({ uuid: body.uuid, created: false });
    });

    it('refuses a replayed signature, a stale timestamp, another bundle id, a tampered field, a foreign chain', async () => {
      const before = await userCount();
      const good = sign();
      expect((await platformLogin('game-center', good)).status).toBe(200);
      const cases: Record<string, unknown>[] = [
        good, // replayed
        sign({ timestamp: Date.now() - 6 * 60_000 }),
        sign({ timestamp: Date.now() + 6 * 60_000 }),
        sign({ bundleId: 'com.example.other' }),
        { ...sign(), team_player_id: 'T:_someone-else' },
        sign({ foreign: true }),
        { ...sign(), public_key_url: `${fakes.gameCenter.base}/public-key/missing.cer` },
      ];
      for (const credential of cases) {
        const res = await platformLogin('game-center', credential);
        expect(res.status, JSON.stringify(credential)).toBe(401);
        expect(await errorOf(res)).toBe('platform_rejected');
      }
      expect(await userCount()).toBe(before + 1);
    });

    it("a leaf issued by an intermediate the anchor lacks: fetched through the leaf's AIA, accepted when the anchor issued it", async () => {
      const before = fakes.gameCenter.fetches.filter((f) => f === '/ca/intermediate.der').length;
      const res = await platformLogin('game-center', sign({ chained: true }));
      expect(res.status).toBe(200);
      expect(fakes.gameCenter.fetches.filter((f) => f === '/ca/intermediate.der').length).toBe(before + 1);
      // An anchor without that root: the intermediate is fetched, and refused.
      const refused = await platformLogin('gc-one-root', sign({ chained: true }));
      expect(refused.status).toBe(401);
      expect(await errorOf(refused)).toBe('platform_rejected');
      // The same anchor accepts a leaf its root issued directly.
      expect((await platformLogin('gc-one-root', sign())).status).toBe(200);
    });

    it('the production rule: public_key_url only over https on apple.com (never fetched otherwise)', async () => {
      const fetchedBefore = fakes.gameCenter.fetches.length;
      for (const url of [
        fakes.gameCenter.trustedUrl, // loopback http: only the test entry allows it
        'http://static.gc.apple.com/public-key/gc-prod-10.cer',
        'https://static.gc.apple.com.evil.example/public-key/gc-prod-10.cer',
        'https://evilapple.com/public-key/gc-prod-10.cer',
        'https://user@static.gc.apple.com/public-key/gc-prod-10.cer',
      ]) {
        const res = await platformLogin('gc-strict', { ...sign(), public_key_url: url });
        expect(res.status, url).toBe(401);
        expect(await errorOf(res)).toBe('platform_rejected');
      }
      expect(fakes.gameCenter.fetches.length).toBe(fetchedBefore);
    });
  });

  describe('google_play_games', () => {
    it('a server auth code is exchanged and the player id read', async () => {
      const playerId = unique('g');
      const res = await platformLogin('play-games', {
        server_auth_code: fakes.playGames.issueCode(playerId, 'Ace'),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { uuid: string; created: boolean };
      expect(body.created).toBe(true);
      expect(Object.fromEntries(fakes.playGames.tokenRequests.at(-1)!)).toMatchObject({
        grant_type: 'authorization_code',
        client_id: fakes.playGames.clientId,
      });
      expect((await server.services.users.findById(Number(body.uuid)))?.nickname).toBe('Ace');
      const again = await platformLogin('play-games', {
        server_auth_code: fakes.playGames.issueCode(playerId),
      });
      expect(await again.json()).toMatchObject({ uuid: body.uuid, created: false });
    });

    it('an invalid or used auth code → 401 platform_rejected, nothing created', async () => {
      const before = await userCount();
      const res = await platformLogin('play-games', { server_auth_code: '4/0Anever-issued' });
      expect(res.status).toBe(401);
      expect(await errorOf(res)).toBe('platform_rejected');
      const code = fakes.playGames.issueCode(unique('g'));
      expect((await platformLogin('play-games', { server_auth_code: code })).status).toBe(200);
      expect(await errorOf(await platformLogin('play-games', { server_auth_code: code }))).toBe(
        'platform_rejected',
      );
      expect(await userCount()).toBe(before + 1);
    });
  });

  describe('accounts', () => {
    it('unknown provider 404, a browser kind 400 platform_unsupported, a client_id that is no app refused', async () => {
      expect((await platformLogin('nope', { ticket: 'AB' })).status).toBe(404);
      const browser = await platformLogin('steam', { ticket: 'AB' });
      expect(browser.status).toBe(400);
      expect(await errorOf(browser)).toBe('platform_unsupported');
      const idToken = await post(`${base}/v1/dev-user/federated-login`, {
        provider: 'epic',
        id_token: 'x.y.z',
      });
      expect(idToken.status).toBe(400);
      expect(await errorOf(idToken)).toBe('id_token_unsupported');
      const noApp = await platformLogin(
        'epic',
        { id_token: await fakes.eos.mint(unique('p')) },
        'no-such-client',
      );
      expect(noApp.status).toBeGreaterThanOrEqual(400);
    });

    it("a guest upgrades by linking a platform identity: same uuid, the guest secret dead, the game's sign-in finds it", async () => {
      const guest = (await (await post(`${base}/v1/dev-user/guest`, { client_id: clientId })).json()) as {
        token: string;
        uuid: string;
        guest_secret: string;
      };
      const playerId = unique('g');
      const linked = await post(
        `${base}/v1/dev-user/identities`,
        { provider: 'play-games', credential: { server_auth_code: fakes.playGames.issueCode(playerId) } },
        bearer(guest.token),
      );
      expect(linked.status).toBe(201);
      expect(await linked.json()).toMatchObject({
        provider: 'play-games',
        provider_name: 'Google Play Games',
        subject: playerId,
      });
      expect(await server.services.guests.isGuest(Number(guest.uuid))).toBe(false);
      const secretLogin = await post(`${base}/v1/dev-user/guest/login`, {
        uuid: guest.uuid,
        guest_secret: guest.guest_secret,
      });
      expect(secretLogin.status).toBe(401);
      const game = await platformLogin('play-games', {
        server_auth_code: fakes.playGames.issueCode(playerId),
      });
      expect(await game.json()).toMatchObject({ uuid: guest.uuid, created: false });
    });

    it('an account links from the console (first-party), then its platform sign-in takes the TOTP second step', async () => {
      const user = await createUser(base, undefined, { clientId: 'dauth:console' });
      const id = steamId();
      const appToken = (await (
        await post(`${base}/v1/dev-user/login_devuser`, {
          email: user.email,
          password: user.password,
          client_id: clientId,
        })
      ).json()) as { token: string };
      const refused = await post(
        `${base}/v1/dev-user/identities`,
        { provider: 'steam-game', credential: { ticket: fakes.steam.issue({ steamid: id }) } },
        bearer(appToken.token),
      );
      expect(refused.status).toBe(403);
      const linked = await post(
        `${base}/v1/dev-user/identities`,
        { provider: 'steam-game', credential: { ticket: fakes.steam.issue({ steamid: id }) } },
        bearer(user.loginToken),
      );
      expect(linked.status).toBe(201);
      expect(await linked.json()).toMatchObject({ provider: 'steam', provider_name: 'Steam', subject: id });
      const both = await post(
        `${base}/v1/dev-user/identities`,
        { provider: 'steam-game', id_token: 'x', credential: { ticket: 'AB' } },
        bearer(user.loginToken),
      );
      expect(both.status).toBe(400);

      const started = (await (
        await post(`${base}/v1/dev-user/mfa/totp`, {}, bearer(user.loginToken))
      ).json()) as { otpauth_uri: string };
      const secret = totpSecretOf(started.otpauth_uri);
      const confirmed = await post(
        `${base}/v1/dev-user/mfa/totp/confirm`,
        { code: totpCode(secret, stepNow()) },
        bearer(user.loginToken),
      );
      expect(confirmed.status).toBe(200);
      const signIn = await platformLogin('steam-game', { ticket: fakes.steam.issue({ steamid: id }) });
      expect(signIn.status).toBe(200);
      const body = (await signIn.json()) as Record<string, unknown>;
      expect(body).toMatchObject({
        success: true,
        mfa_required: true,
        mfa_token: expect.any(String),
        created: false,
      });
      expect(body.token).toBeUndefined();
    });
  });
});
