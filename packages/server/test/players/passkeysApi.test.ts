import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { get, newClient, newUser, post, type User } from '../content/contentSupport.js';
import { type CreationOptions, SoftAuthenticator } from './softAuthenticator.js';

/** The console's first-party binding: only its fresh login JWTs change an account's ways in (decisions §9). */
const CONSOLE = { clientId: 'dauth:console' };

const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;

async function del(server: TestServer, path: string, token: string) {
  const res = await fetch(`${server.url}${path}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

for (const database of ['sqlite', 'postgres'] as const) {
  describe(`passkeys through the JSON API (${database}, software P-256 authenticator)`, () => {
    let server: TestServer;
    let origin: string;
    let rpId: string;

    beforeAll(async () => {
      server = await startTestServer({ postgres: database === 'postgres' });
      origin = new URL(server.url).origin;
      rpId = new URL(server.url).hostname;
    });
    afterAll(() => server?.close());

    const stored = (id: string) =>
      server.services.database.db.selectFrom('passkeys').selectAll().where('id', '=', id).executeTakeFirst();

    async function registered(user: User): Promise<SoftAuthenticator> {
      const authenticator = new SoftAuthenticator(rpId, origin);
      const options = await post<CreationOptions>(
        server,
        '/v1/dev-user/passkeys/registration-options',
        {},
        user.token,
      );
      expect(options.status).toBe(200);
      expect(options.body.rp.id).toBe(rpId);
      const res = await post(
        server,
        '/v1/dev-user/passkeys',
        authenticator.register(options.body),
        user.token,
      );
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ id: authenticator.id, created_at: expect.any(String) });
      return authenticator;
    }

    async function loginOptions(): Promise<string> {
      const res = await post<{ challenge: string; rpId: string; allowCredentials?: unknown[] }>(
        server,
        '/v1/dev-user/passkeys/authentication-options',
        {},
      );
      expect(res.status).toBe(200);
      expect(res.body.rpId).toBe(rpId);
      expect(res.body.allowCredentials ?? []).toEqual([]);
      return res.body.challenge;
    }

    it('registers, lists, signs in (bound to a client when asked) and deletes', async () => {
      const user = await newUser(server, 'pk', CONSOLE);
      const authenticator = await registered(user);
      const list = await get<{ passkeys: { id: string }[] }>(server, '/v1/dev-user/passkeys', user.token);
      expect(list.body.passkeys.map((p) => p.id)).toEqual([authenticator.id]);

      const signedIn = await post<{ success: boolean; token: string; uuid: string }>(
        server,
        '/v1/dev-user/passkeys/login',
        authenticator.assert(await loginOptions()),
      );
      expect(signedIn.status).toBe(200);
      expect(signedIn.body).toEqual({ success: true, token: expect.any(String), uuid: String(user.uuid) });
      expect(claimsOf(signedIn.body.token).azp).toBeUndefined();
      expect((await stored(authenticator.id))?.sign_count).toBe(1);

      const clientId = await newClient(server, user);
      const bound = await post<{ token: string }>(server, '/v1/dev-user/passkeys/login', {
        ...authenticator.assert(await loginOptions()),
        client_id: clientId,
      });
      expect(bound.status).toBe(200);
      expect(claimsOf(bound.body.token)).toMatchObject({ sub: String(user.uuid), azp: clientId });

      expect((await del(server, `/v1/dev-user/passkeys/${authenticator.id}`, user.token)).status).toBe(200);
      const after = await post(
        server,
        '/v1/dev-user/passkeys/login',
        authenticator.assert(await loginOptions()),
      );
      expect(after.status).toBe(401);
      expect(after.body).toMatchObject({ success: false, error: 'passkey_refused' });
    });

    it('refuses a replayed assertion, a second use of a challenge, an expired challenge, a wrong origin and a lowered counter; each changes nothing', async () => {
      const user = await newUser(server, 'pk-attacks', CONSOLE);
      const authenticator = await registered(user);
      const good = authenticator.assert(await loginOptions());
      expect((await post(server, '/v1/dev-user/passkeys/login', good)).status).toBe(200);
      const before = await stored(authenticator.id);
      expect(before?.sign_count).toBe(1);

      const refusedUnchanged = async (body: unknown) => {
        const res = await post(server, '/v1/dev-user/passkeys/login', body);
        expect(res.status).toBe(401);
        expect(res.body).toMatchObject({ success: false, error: 'passkey_refused' });
        expect(res.body).not.toHaveProperty('token');
        expect(await stored(authenticator.id)).toEqual(before);
      };

      // 1. The same assertion again.
      await refusedUnchanged(good);

      // 2. A second, freshly signed assertion over a challenge that was already used.
      const challenge = await loginOptions();
      authenticator.counter = 5;
      const first = authenticator.assert(challenge, { counter: 5 });
      const second = authenticator.assert(challenge, { counter: 6 });
      expect((await post(server, '/v1/dev-user/passkeys/login', first)).status).toBe(200);
      const afterFirst = await stored(authenticator.id);
      expect(afterFirst?.sign_count).toBe(5);
      Object.assign(before!, afterFirst);
      await refusedUnchanged(second);

      // 3. A challenge older than 5 minutes (its stored expiry moved into the past).
      const stale = await loginOptions();
      const row = await server.services.database.db
        .selectFrom('webauthn_challenges')
        .selectAll()
        .where('challenge', '=', stale)
        .executeTakeFirstOrThrow();
      expect(Number(row.expires_at) - Date.now()).toBeGreaterThan(290_000);
      expect(Number(row.expires_at) - Date.now()).toBeLessThanOrEqual(300_000);
      await server.services.database.db
        .updateTable('webauthn_challenges')
        .set({ expires_at: Date.now() - 1 })
        .where('challenge', '=', stale)
        .execute();
      await refusedUnchanged(authenticator.assert(stale, { counter: 7 }));

      // 4. Signed for another origin (a phishing page relaying the challenge).
      await refusedUnchanged(
        authenticator.assert(await loginOptions(), { origin: 'https://dauth.evil.example', counter: 8 }),
      );

      // 5. A lowered signature counter (a cloned authenticator), and an equal one.
      await refusedUnchanged(authenticator.assert(await loginOptions(), { counter: 4 }));
      await refusedUnchanged(authenticator.assert(await loginOptions(), { counter: 5 }));

      // The genuine authenticator, counter growing, still gets in.
      expect(
        (
          await post(
            server,
            '/v1/dev-user/passkeys/login',
            authenticator.assert(await loginOptions(), { counter: 9 }),
          )
        ).status,
      ).toBe(200);
    });

    it("refuses a registration for another origin, another user's challenge, or without a fresh login; nothing stored", async () => {
      const user = await newUser(server, 'pk-reg', CONSOLE);
      const other = await newUser(server, 'pk-other', CONSOLE);
      const authenticator = new SoftAuthenticator(rpId, origin);
      const options = await post<CreationOptions>(
        server,
        '/v1/dev-user/passkeys/registration-options',
        {},
        user.token,
      );
      const wrongOrigin = await post(
        server,
        '/v1/dev-user/passkeys',
        authenticator.register(options.body, 'https://dauth.evil.example'),
        user.token,
      );
      expect(wrongOrigin.status).toBe(400);
      expect(wrongOrigin.body).toMatchObject({ success: false, error: 'passkey_refused' });

      const mine = await post<CreationOptions>(
        server,
        '/v1/dev-user/passkeys/registration-options',
        {},
        user.token,
      );
      const stolen = await post(
        server,
        '/v1/dev-user/passkeys',
        authenticator.register(mine.body),
        other.token,
      );
      expect(stolen.status).toBe(401);
      expect(await stored(authenticator.id)).toBeUndefined();

      const old = await server.services.tokens.issueLoginToken(String(user.uuid), {
        authTime: Math.floor(Date.now() / 1000) - 3600,
        clientId: 'dauth:console',
      });
      const stale = await post(server, '/v1/dev-user/passkeys/registration-options', {}, old.token);
      expect(stale.status).toBe(401);
      expect(stale.body).toMatchObject({ error: 'reauthentication_required' });
    });

    it('a relayed login JWT plants no passkey: unbound and app-bound 403 first_party_required, the fresh console JWT 201 (decisions §9)', async () => {
      const developer = await newUser(server, 'pk-dev-relay');
      const clientId = await newClient(server, developer);
      // The player's tokens as a game backend holds them: the spec's unbound one and one bound to the game.
      const unbound = await newUser(server, 'pk-relay');
      const bound = await server.services.tokens.issueLoginToken(String(unbound.uuid), { clientId });
      const hostile = new SoftAuthenticator(rpId, origin);
      for (const token of [unbound.token, bound.token]) {
        const options = await post(server, '/v1/dev-user/passkeys/registration-options', {}, token);
        expect(options.status).toBe(403);
        expect(options.body).toMatchObject({ success: false, error: 'first_party_required' });
      }
      // Registration options fetched first-party do not open the registration to a relayed token either.
      const console = await server.services.tokens.issueLoginToken(String(unbound.uuid), {
        clientId: 'dauth:console',
      });
      const options = await post<CreationOptions>(
        server,
        '/v1/dev-user/passkeys/registration-options',
        {},
        console.token,
      );
      expect(options.status).toBe(200);
      for (const token of [unbound.token, bound.token]) {
        const planted = await post(server, '/v1/dev-user/passkeys', hostile.register(options.body), token);
        expect(planted.status).toBe(403);
        expect(planted.body).toMatchObject({ error: 'first_party_required' });
      }
      expect(await stored(hostile.id)).toBeUndefined();
      const mine = await post(server, '/v1/dev-user/passkeys', hostile.register(options.body), console.token);
      expect(mine.status).toBe(201);

      // Removing it is first-party and fresh too.
      for (const token of [unbound.token, bound.token]) {
        const removed = await del(server, `/v1/dev-user/passkeys/${hostile.id}`, token);
        expect(removed.status).toBe(403);
        expect(removed.body).toMatchObject({ error: 'first_party_required' });
      }
      const stale = await server.services.tokens.issueLoginToken(String(unbound.uuid), {
        clientId: 'dauth:console',
        authTime: Math.floor(Date.now() / 1000) - server.config.stepUpMaxAgeSeconds - 60,
      });
      const staleRemove = await del(server, `/v1/dev-user/passkeys/${hostile.id}`, stale.token);
      expect(staleRemove.status).toBe(401);
      expect(staleRemove.body).toMatchObject({ error: 'reauthentication_required' });
      expect(await stored(hostile.id)).toBeDefined();
      expect((await del(server, `/v1/dev-user/passkeys/${hostile.id}`, console.token)).status).toBe(200);
    });

    it("a guest's own app-bound token adds its first passkey (the upgrade); once upgraded, the game's token no longer can", async () => {
      const developer = await newUser(server, 'pk-dev-guest');
      const clientId = await newClient(server, developer);
      const guest = await post<{ token: string; uuid: string }>(server, '/v1/dev-user/guest', {
        client_id: clientId,
      });
      const first = new SoftAuthenticator(rpId, origin);
      const options = await post<CreationOptions>(
        server,
        '/v1/dev-user/passkeys/registration-options',
        {},
        guest.body.token,
      );
      expect(options.status).toBe(200);
      const upgraded = await post(
        server,
        '/v1/dev-user/guest/upgrade',
        { passkey: first.register(options.body) },
        guest.body.token,
      );
      expect(upgraded.status).toBe(200);
      const again = await post(server, '/v1/dev-user/passkeys/registration-options', {}, guest.body.token);
      expect(again.status).toBe(403);
      expect(again.body).toMatchObject({ error: 'first_party_required' });
    });

    it("a guest's first passkey through POST /passkeys is its upgrade: the game's token then adds nothing more", async () => {
      const developer = await newUser(server, 'pk-dev-guest2');
      const clientId = await newClient(server, developer);
      const guest = await post<{ token: string; uuid: string; guest_secret: string }>(
        server,
        '/v1/dev-user/guest',
        { client_id: clientId },
      );
      const first = new SoftAuthenticator(rpId, origin);
      const options = await post<CreationOptions>(
        server,
        '/v1/dev-user/passkeys/registration-options',
        {},
        guest.body.token,
      );
      expect(options.status).toBe(200);
      const added = await post(
        server,
        '/v1/dev-user/passkeys',
        first.register(options.body),
        guest.body.token,
      );
      expect(added.status).toBe(201);
      expect(await server.services.guests.isGuest(Number(guest.body.uuid))).toBe(false);
      const secret = await post(server, '/v1/dev-user/guest/login', {
        uuid: guest.body.uuid,
        guest_secret: guest.body.guest_secret,
      });
      expect(secret.status).toBe(401);
      const again = await post(server, '/v1/dev-user/passkeys/registration-options', {}, guest.body.token);
      expect(again.status).toBe(403);
      expect(again.body).toMatchObject({ error: 'first_party_required' });
    });

    it('upgrades a guest by passkey: same uuid, no e-mail, no password; the passkey is the only way in', async () => {
      const developer = await newUser(server, 'pk-dev');
      const clientId = await newClient(server, developer);
      const guest = await post<{ token: string; uuid: string; guest_secret: string }>(
        server,
        '/v1/dev-user/guest',
        {
          client_id: clientId,
        },
      );
      const authenticator = new SoftAuthenticator(rpId, origin);
      const options = await post<CreationOptions>(
        server,
        '/v1/dev-user/passkeys/registration-options',
        {},
        guest.body.token,
      );
      const upgrade = await post(
        server,
        '/v1/dev-user/guest/upgrade',
        { passkey: authenticator.register(options.body) },
        guest.body.token,
      );
      expect(upgrade.status).toBe(200);
      expect(upgrade.body).toEqual({ success: true, uuid: guest.body.uuid });
      const secret = await post(server, '/v1/dev-user/guest/login', {
        uuid: guest.body.uuid,
        guest_secret: guest.body.guest_secret,
      });
      expect(secret.status).toBe(401);

      const signedIn = await post<{ uuid: string; token: string }>(server, '/v1/dev-user/passkeys/login', {
        ...authenticator.assert(await loginOptions()),
        client_id: 'dauth:console',
      });
      expect(signedIn.body.uuid).toBe(guest.body.uuid);
      const user = await server.services.accounts.findUser(Number(guest.body.uuid));
      expect(user?.email).toBeNull();
      // Password paths cope with an account that has neither: a reset request answers as always and
      // sends nothing; the password change refuses.
      const reset = await post(server, '/v1/dev-user/password/reset-request', {
        email: 'nobody@example.com',
      });
      expect(reset.status).toBe(200);
      const change = await post(
        server,
        '/v1/dev-user/password',
        { current_password: 'any guess at all', new_password: 'a new good password' },
        signedIn.body.token,
      );
      expect(change.status).toBe(401);
      expect(change.body).toMatchObject({ error: 'invalid_credentials' });
      expect((await server.services.users.findById(Number(guest.body.uuid)))?.passwordHash).toBe('');

      const last = await del(server, `/v1/dev-user/passkeys/${authenticator.id}`, signedIn.body.token);
      expect(last.status).toBe(409);
      expect(last.body).toMatchObject({ error: 'last_sign_in_method' });
      expect(await stored(authenticator.id)).toBeDefined();
    });
  });
}
