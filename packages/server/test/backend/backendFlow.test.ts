import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashCode } from '../../src/services/backendIntegration/backendAuthorizeService.js';
import { postgresAvailable } from '../helpers/environment.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  bearer,
  type CallbackServer,
  createClient,
  createUser,
  dexOwnerOf,
  expiredLoginJwt,
  getToken,
  metaAuthorize,
  post,
  rawSlotId,
  registerWallet,
  slotInfoFor,
  startCallbackServer,
  type TestClient,
  type TestUser,
} from './support.js';

const databases = postgresAvailable ? [{ postgres: false }, { postgres: true }] : [{ postgres: false }];

describe.each(databases)('backend integration flow (postgres: $postgres)', (opts) => {
  let server: TestServer;
  let callbacks: CallbackServer;
  let developer: TestUser;
  let client: TestClient;
  let otherClient: TestClient;
  let cb: string;
  let getOnly: string;

  beforeAll(async () => {
    server = await startTestServer(opts);
    callbacks = await startCallbackServer({ getOnlyPath: '/get-only', failingPath: '/failing' });
    cb = callbacks.url('/dauth/callback');
    getOnly = callbacks.url('/get-only');
    developer = await createUser(server.url, 'Developer');
    client = await createClient(server.url, developer, [cb, getOnly, callbacks.url('/failing')]);
    otherClient = await createClient(server.url, developer, [callbacks.url('/other/callback')]);
  });
  afterAll(async () => {
    await callbacks?.close();
    await server?.close();
  });

  const authorizeParams = (overrides: Record<string, string | undefined> = {}) => ({
    client_id: client.clientId,
    redirect_uri: cb,
    respose_type: 'code',
    state: randomBytes(12).toString('base64url'),
    ...overrides,
  });

  async function slotRows(userUuid: string) {
    return server.services.database.db
      .selectFrom('slots')
      .selectAll()
      .where('owner_uuid', '=', Number(userUuid))
      .execute();
  }

  it('authorize → callback → get_token gives SlotInfo; the slot is on chain; refresh and logout work', async () => {
    const alice = await createUser(server.url, 'Alice');
    const wallet = await registerWallet(server.url, alice);

    const first = await slotInfoFor(server, callbacks, alice, client, cb);
    expect(first.authorize.body).toMatchObject({
      code: 1,
      message: { res: 'created', status_code: 201, status_msg: 'slot created', meta_idx: 0, tr_cnt: 0 },
    });
    // The callback carried exactly {success: 1, code, state}.
    const callback = callbacks.requests.find((r) => r.body.includes(first.code))!;
    expect(callback.method).toBe('POST');
    expect(Object.keys(JSON.parse(callback.body)).sort()).toEqual(['code', 'state', 'success']);
    expect(JSON.parse(callback.body).success).toBe(1);

    const { token } = first;
    expect(token.status).toBe(200);
    // The envelope code is a JSON number and the new slot's id a raw 19-digit number.
    expect(token.text).toMatch(/^\{"code":1,/);
    const raw = rawSlotId(token.text)!;
    expect(raw.quoted).toBe(false);
    expect(raw.digits).toMatch(/^[1-9]\d{18}$/);
    expect(rawSlotId(first.authorize.text)).toEqual(raw);
    const info = token.body.data[0]!;
    expect(info).toMatchObject({
      content_address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
      token_nickname: 'Alice',
      tr_cnt: 0,
      code: first.code,
      expires_in: 3600,
    });
    expect(Object.keys(info).sort()).toEqual(
      [
        'access_token',
        'code',
        'content_address',
        'expires_in',
        'id',
        'refresh_token',
        'token_nickname',
        'tr_cnt',
      ].sort(),
    );

    // The slot row, its content wallet (C_SALT = id for the owner's EOA) and the dex agree.
    const [row] = await slotRows(alice.uuid);
    expect(row).toMatchObject({
      id: raw.digits,
      client_id: client.clientId,
      meta_idx: 0,
      imported: 0,
      state: 'active',
    });
    const content = await server.services.wallets.findByAddress(info.content_address as string);
    // The content wallet's first owner is the dex: it follows the slot (decisions §7).
    const dex = server.services.chain.info.contracts.dex;
    expect(content).toMatchObject({
      kind: 'content',
      salt: BigInt(raw.digits),
      userUuid: Number(alice.uuid),
      owner: dex,
    });
    const main = await server.services.wallets.mainWallet(Number(alice.uuid));
    expect(main!.address).toBe(wallet);
    expect(info.content_address).toBe(server.services.chain.gateway.walletAddress(dex, BigInt(raw.digits)));
    expect(await dexOwnerOf(server, raw.digits)).toBe(wallet);

    // The access token is a live OAuth access token for this app.
    const validate = await fetch(`${server.url}/v1/oauth/validate`, {
      headers: bearer(info.access_token as string),
    });
    expect(validate.status).toBe(200);
    expect(await validate.json()).toMatchObject({ user_id: alice.uuid, client_id: client.clientId });

    // A second authorize finds the same slot.
    const again = await slotInfoFor(server, callbacks, alice, client, cb);
    expect(again.authorize.body.message).toMatchObject({ res: 'existing', status_code: 200 });
    expect(rawSlotId(again.token.text)).toEqual(raw);
    expect(await slotRows(alice.uuid)).toHaveLength(1);

    // Refresh: same route, grant_type refresh_token.
    const refreshed = await getToken(server.url, {
      client_id: client.clientId,
      client_secret: client.clientSecret,
      grant_type: 'refresh_token',
      refresh_token: info.refresh_token as string,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.code).toBe(1);
    expect(rawSlotId(refreshed.text)).toEqual(raw);
    const renewed = refreshed.body.data[0]!;
    expect(renewed.access_token).not.toBe(info.access_token);
    expect(renewed.refresh_token).not.toBe(info.refresh_token);

    // Logout revokes that pair and sets the status to logged_out.
    await post(
      `${server.url}/v1/oauth/status/login`,
      { user_id: alice.uuid, client_id: client.clientId },
      bearer(renewed.access_token as string),
    );
    expect((await server.services.loginStatus.getStatus(alice.uuid, client.clientId)).status).toBe(
      'logged_in',
    );
    const logout = await fetch(`${server.url}/v1/oauth-meta/user/logout`, {
      method: 'POST',
      headers: bearer(renewed.access_token as string),
    });
    expect(logout.status).toBe(200);
    expect(await logout.json()).toMatchObject({
      code: 1,
      data: [{ user_id: alice.uuid, status: 'logged_out' }],
    });
    expect((await server.services.loginStatus.getStatus(alice.uuid, client.clientId)).status).toBe(
      'logged_out',
    );
    expect(
      (await fetch(`${server.url}/v1/oauth/validate`, { headers: bearer(renewed.access_token as string) }))
        .status,
    ).toBe(401);
    const deadRefresh = await getToken(server.url, {
      client_id: client.clientId,
      client_secret: client.clientSecret,
      grant_type: 'refresh_token',
      refresh_token: renewed.refresh_token as string,
    });
    expect(deadRefresh.body.code).toBe(510);
    // The other pair (from the second authorize) was not touched.
    expect(
      (
        await fetch(`${server.url}/v1/oauth/validate`, {
          headers: bearer(again.token.body.data[0]!.access_token as string),
        })
      ).status,
    ).toBe(200);
  });

  it('answers each get_token envelope code, and a refused exchange leaves the code usable', async () => {
    const bob = await createUser(server.url, 'Bob');
    await registerWallet(server.url, bob);
    const state = randomBytes(12).toString('base64url');
    const authorize = await metaAuthorize(server.url, bob.loginToken, authorizeParams({ state }));
    expect(authorize.status).toBe(200);
    const { code } = await callbacks.waitFor(state);
    const exchange = (body: Record<string, string>) =>
      getToken(server.url, { grant_type: 'authorization_code', code, ...body });

    const unknownClient = await exchange({ client_id: 'nope', client_secret: client.clientSecret });
    expect([unknownClient.status, unknownClient.body.code]).toEqual([401, 570]);
    expect(unknownClient.text).toMatch(/"code":570,/);
    const wrongSecret = await exchange({ client_id: client.clientId, client_secret: 'x'.repeat(43) });
    expect([wrongSecret.status, wrongSecret.body.code]).toEqual([401, 410]);
    const otherClientsCode = await exchange({
      client_id: otherClient.clientId,
      client_secret: otherClient.clientSecret,
    });
    expect([otherClientsCode.status, otherClientsCode.body.code]).toEqual([400, 410]);
    const unknownCode = await getToken(server.url, {
      client_id: client.clientId,
      client_secret: client.clientSecret,
      grant_type: 'authorization_code',
      code: randomBytes(32).toString('base64url'),
    });
    expect([unknownCode.status, unknownCode.body.code]).toEqual([400, 570]);
    for (const refused of [unknownClient, wrongSecret, otherClientsCode, unknownCode]) {
      expect(refused.body.data).toEqual([]);
      expect(typeof refused.body.message).toBe('string');
    }
    // None of that spent the code.
    const stored = await server.services.database.db
      .selectFrom('backend_codes')
      .select('used_at')
      .where('code_hash', '=', hashCode(code))
      .executeTakeFirstOrThrow();
    expect(stored.used_at).toBeNull();

    const ok = await exchange({ client_id: client.clientId, client_secret: client.clientSecret });
    expect([ok.status, ok.body.code]).toEqual([200, 1]);
    const firstAccess = ok.body.data[0]!.access_token as string;

    // Used: 510, and the replay revokes what the first exchange issued.
    const used = await exchange({ client_id: client.clientId, client_secret: client.clientSecret });
    expect([used.status, used.body.code]).toEqual([400, 510]);
    expect((await fetch(`${server.url}/v1/oauth/validate`, { headers: bearer(firstAccess) })).status).toBe(
      401,
    );

    // Expired: a code whose lifetime is over is 510 as well, and stays unused.
    const state2 = randomBytes(12).toString('base64url');
    await metaAuthorize(server.url, bob.loginToken, authorizeParams({ state: state2 }));
    const { code: code2 } = await callbacks.waitFor(state2);
    await server.services.database.db
      .updateTable('backend_codes')
      .set({ expires_at: Date.now() - 1 })
      .where('code_hash', '=', hashCode(code2))
      .execute();
    const expired = await getToken(server.url, {
      client_id: client.clientId,
      client_secret: client.clientSecret,
      grant_type: 'authorization_code',
      code: code2,
    });
    expect([expired.status, expired.body.code]).toEqual([400, 510]);
  });

  it("get_token reads the app from the client cache and re-checks it in the exchange's commit", async () => {
    // Another replica's change whose invalidation is still in flight is played by writing the row directly
    // (no message reaches this replica's cache): the held row must never be used for it.
    const carol = await createUser(server.url, 'Carol');
    await registerWallet(server.url, carol);
    const cache = server.services.clients.cache!;
    const db = server.services.database.db;
    const app = await createClient(server.url, developer, [cb]);
    const codeFor = async () => {
      const state = randomBytes(12).toString('base64url');
      expect(
        (
          await metaAuthorize(
            server.url,
            carol.loginToken,
            authorizeParams({ client_id: app.clientId, state }),
          )
        ).status,
      ).toBe(200);
      return (await callbacks.waitFor(state)).code;
    };
    const exchange = (code: string, secret = app.clientSecret) =>
      getToken(server.url, {
        client_id: app.clientId,
        client_secret: secret,
        grant_type: 'authorization_code',
        code,
      });
    expect((await exchange(await codeFor())).body.code).toBe(1);
    expect(cache.holds(app.clientId)).toBe(true);

    // The secret replaced (no grace) elsewhere: the old secret is refused at once, the new one accepted at once.
    const code = await codeFor();
    const { secret_hash: otherHash } = await db
      .selectFrom('oauth_clients')
      .select('secret_hash')
      .where('client_id', '=', otherClient.clientId)
      .executeTakeFirstOrThrow();
    await db
      .updateTable('oauth_clients')
      .set({ secret_hash: otherHash })
      .where('client_id', '=', app.clientId)
      .execute();
    expect(cache.holds(app.clientId)).toBe(true);
    const stale = await exchange(code);
    expect([stale.status, stale.body.code]).toEqual([401, 410]);
    expect(cache.holds(app.clientId)).toBe(false);
    expect((await exchange(code, otherClient.clientSecret)).body.code).toBe(1);

    // The app deleted elsewhere while this replica holds its row: refused at once, the code left unspent.
    const beforeDelete = await codeFor();
    expect(cache.holds(app.clientId)).toBe(true);
    await db
      .updateTable('oauth_clients')
      .set({ deleted_at: Date.now() })
      .where('client_id', '=', app.clientId)
      .execute();
    const gone = await exchange(beforeDelete, otherClient.clientSecret);
    expect([gone.status, gone.body.code]).toEqual([401, 570]);
    const row = await db
      .selectFrom('backend_codes')
      .select('used_at')
      .where('code_hash', '=', hashCode(beforeDelete))
      .executeTakeFirstOrThrow();
    expect(row.used_at).toBeNull();
  });

  it("authorize reads the app from the client cache and re-checks it in the code's insert", async () => {
    const dave = await createUser(server.url, 'Dave');
    await registerWallet(server.url, dave);
    const cache = server.services.clients.cache!;
    const db = server.services.database.db;
    const second = callbacks.url('/dauth/second');
    const app = await createClient(server.url, developer, [cb, second]);
    const authorize = (redirectUri: string) =>
      metaAuthorize(
        server.url,
        dave.loginToken,
        authorizeParams({ client_id: app.clientId, redirect_uri: redirectUri }),
      );
    const codesOfApp = async () =>
      (
        await db
          .selectFrom('backend_codes')
          .select('code_hash')
          .where('client_id', '=', app.clientId)
          .execute()
      ).length;
    // The first authorize makes the slot (from the stored row); the second is served from the cache.
    expect((await authorize(cb)).status).toBe(200);
    expect((await authorize(cb)).status).toBe(200);
    expect(cache.holds(app.clientId)).toBe(true);
    expect(await codesOfApp()).toBe(2);

    // A redirect URI removed elsewhere (no invalidation reaches this replica): refused at once, no code.
    await db
      .updateTable('oauth_clients')
      .set({ redirect_uris: JSON.stringify([second]) })
      .where('client_id', '=', app.clientId)
      .execute();
    expect(cache.holds(app.clientId)).toBe(true);
    const removed = await authorize(cb);
    expect([removed.status, removed.body.message]).toEqual([401, 'redirect_uri mismatch']);
    expect(cache.holds(app.clientId)).toBe(false);
    expect(await codesOfApp()).toBe(2);
    expect((await authorize(second)).status).toBe(200);
    expect(cache.holds(app.clientId)).toBe(true);

    // The app deleted elsewhere: refused at once, no code.
    await db
      .updateTable('oauth_clients')
      .set({ deleted_at: Date.now() })
      .where('client_id', '=', app.clientId)
      .execute();
    expect((await authorize(second)).status).toBe(401);
    expect(await codesOfApp()).toBe(3);
  });

  it('sends the callback to a GET-only route once: 405, no retry, and its code can never be exchanged', async () => {
    const carol = await createUser(server.url, 'Carol');
    await registerWallet(server.url, carol);
    const state = randomBytes(12).toString('base64url');
    const before = callbacks.requests.length;
    const authorize = await metaAuthorize(
      server.url,
      carol.loginToken,
      authorizeParams({ redirect_uri: getOnly, state }),
    );
    expect(authorize.status).toBe(200);
    await expect
      .poll(() => callbacks.requests.slice(before).filter((r) => r.path === '/get-only').length)
      .toBe(1);
    const [attempt] = callbacks.requests.slice(before).filter((r) => r.path === '/get-only');
    expect(attempt!.method).toBe('POST');
    const { code } = JSON.parse(attempt!.body) as { code: string };
    // The code that reached nobody is dead: exchanging it (as if intercepted) is 510.
    await expect
      .poll(
        async () =>
          (
            await server.services.database.db
              .selectFrom('backend_codes')
              .select('used_at')
              .where('code_hash', '=', hashCode(code))
              .executeTakeFirstOrThrow()
          ).used_at,
      )
      .not.toBeNull();
    const exchange = await getToken(server.url, {
      client_id: client.clientId,
      client_secret: client.clientSecret,
      grant_type: 'authorization_code',
      code,
    });
    expect(exchange.body.code).toBe(510);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(callbacks.requests.slice(before).filter((r) => r.path === '/get-only')).toHaveLength(1);
  });

  it('retries a 5xx callback a bounded number of times', async () => {
    const dave = await createUser(server.url, 'Dave');
    await registerWallet(server.url, dave);
    const before = callbacks.requests.length;
    const authorize = await metaAuthorize(
      server.url,
      dave.loginToken,
      authorizeParams({ redirect_uri: callbacks.url('/failing') }),
    );
    expect(authorize.status).toBe(200);
    await expect
      .poll(() => callbacks.requests.slice(before).filter((r) => r.path === '/failing').length, {
        timeout: 5_000,
      })
      .toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(callbacks.requests.slice(before).filter((r) => r.path === '/failing')).toHaveLength(3);
  });

  it('refuses a redirect_uri mismatch with 401, an expired JWT with EXPIRED_TOKEN, and response_type with 400', async () => {
    const erin = await createUser(server.url, 'Erin');
    await registerWallet(server.url, erin);
    const before = callbacks.requests.length;

    for (const redirect_uri of [
      `${cb}/`,
      cb.replace('127.0.0.1', 'localhost'),
      callbacks.url('/other/callback'),
    ]) {
      const mismatch = await metaAuthorize(server.url, erin.loginToken, authorizeParams({ redirect_uri }));
      expect(mismatch.status).toBe(401);
      expect(mismatch.body).toEqual({ code: 401, message: 'redirect_uri mismatch', data: [] });
    }
    const unknownClient = await metaAuthorize(
      server.url,
      erin.loginToken,
      authorizeParams({ client_id: 'unknown' }),
    );
    expect(unknownClient.status).toBe(401);
    expect(unknownClient.body.message).toBe('redirect_uri mismatch');

    const expiredJwt = await expiredLoginJwt(server, erin.uuid);
    const expired = await metaAuthorize(server.url, expiredJwt, authorizeParams());
    expect(expired.status).toBe(401);
    expect(expired.body).toEqual({ code: 401, message: 'EXPIRED_TOKEN', data: [] });

    const noToken = await metaAuthorize(server.url, undefined, authorizeParams());
    expect(noToken.status).toBe(401);
    expect(noToken.body.code).toBe(401);

    const spelledRight = await metaAuthorize(
      server.url,
      erin.loginToken,
      authorizeParams({ respose_type: undefined, response_type: 'code' }),
    );
    expect(spelledRight.status).toBe(400);
    expect(spelledRight.body.code).toBe(400);
    expect(spelledRight.body.message).toMatch(/respose_type/);
    const wrongValue = await metaAuthorize(
      server.url,
      erin.loginToken,
      authorizeParams({ respose_type: 'token' }),
    );
    expect([wrongValue.status, wrongValue.body.code]).toEqual([400, 400]);

    // None of those made a slot, issued a code or sent a callback.
    expect(await slotRows(erin.uuid)).toHaveLength(0);
    const codes = await server.services.database.db
      .selectFrom('backend_codes')
      .select('code_hash')
      .where('user_uuid', '=', Number(erin.uuid))
      .execute();
    expect(codes).toHaveLength(0);
    expect(callbacks.requests.length).toBe(before);

    // Spelled as the interface spells it, the same request is accepted.
    const accepted = await metaAuthorize(server.url, erin.loginToken, authorizeParams());
    expect([accepted.status, accepted.body.code]).toEqual([200, 1]);
  });

  it('refuses a user without a wallet with 409 wallet_required and makes no slot', async () => {
    const frank = await createUser(server.url, 'Frank');
    const res = await metaAuthorize(server.url, frank.loginToken, authorizeParams());
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ code: 409, message: 'wallet_required', data: [] });
    expect(await slotRows(frank.uuid)).toHaveLength(0);
  });

  it('writes an imported slot id as a decimal string', async () => {
    const grace = await createUser(server.url, 'Grace');
    const wallet = await registerWallet(server.url, grace);
    // An earlier-issued id (18 digits here: imported ids may be shorter than 19).
    const id = String(10n ** 17n + (randomBytes(8).readBigUInt64BE() % (9n * 10n ** 17n)));
    const summary = await server.services.slotImport.importAll([
      {
        line: 1,
        id,
        clientId: client.clientId,
        ownerUuid: Number(grace.uuid),
        tokenNickname: 'Old deck',
        trCnt: 4,
      },
    ]);
    expect(summary).toMatchObject({ success: true, imported: 1 });
    expect(await dexOwnerOf(server, id)).toBe(wallet);

    const { authorize, token } = await slotInfoFor(server, callbacks, grace, client, cb);
    expect(authorize.body.message).toMatchObject({ res: 'existing' });
    expect(rawSlotId(token.text)).toEqual({ digits: id, quoted: true });
    expect(token.body.data[0]).toMatchObject({ id, token_nickname: 'Old deck', tr_cnt: 4 });
  });
});
