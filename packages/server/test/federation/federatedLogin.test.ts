import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createClient, createUser, post, type TestUser } from '../helpers/http.js';
import {
  newSigningKey,
  type OidcUpstream,
  signIdToken,
  startOidcUpstream,
  startStaticIssuer,
  type StaticIssuer,
} from '../helpers/oidcUpstream.js';
import { freePort, startTestServer, type TestServer } from '../helpers/server.js';
import { authorizeUrl, exchange } from '../oauth/support.js';
import { createOidcClient } from '../oidc/support.js';

/** The JWT's claims, read without verifying (the server verified it). */
const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;

const now = () => Math.floor(Date.now() / 1000);
let counter = 0;
const uniqueSub = () => `sub-${Date.now()}-${++counter}`;

interface LoginAnswer {
  success: boolean;
  token: string;
  uuid: string;
  created: boolean;
}

/**
 * Native sign-in with an upstream id_token (`POST /v1/dev-user/federated-login`), linking, unlinking and
 * the attacks, against a real dauth (SQLite, embedded chain) whose `oidc` providers are a real
 * oidc-provider (its discovery and JWKS over HTTP; the id_tokens here are signed with its own key) and a
 * small issuer whose keys the test rotates.
 */
describe('federated sign-in with an upstream id_token', () => {
  let server: TestServer;
  let base: string;
  let upstream: OidcUpstream;
  let rotating: StaticIssuer;

  /**
   * An id_token the upstream would issue for the iOS app: its key, its issuer, fresh, and (as every real
   * one) unlike any other it issued, so a token is presented twice only where a test replays it.
   */
  const upstreamToken = (claims: Record<string, unknown>) =>
    signIdToken(upstream.key, {
      iss: upstream.issuer,
      aud: 'dauth-ios',
      exp: now() + 600,
      jti: randomUUID(),
      ...claims,
    });

  const federatedLogin = (body: Record<string, unknown>) =>
    post(`${base}/v1/dev-user/federated-login`, { provider: 'upstream', ...body });

  const rowCounts = async () => {
    const db = server.services.database.db;
    const users = await db.selectFrom('users').select(db.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const identities = await db
      .selectFrom('federated_identities')
      .select(db.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return { users: Number(users.n), identities: Number(identities.n) };
  };

  beforeAll(async () => {
    const port = await freePort();
    const upstreamPort = await freePort();
    const downPort = await freePort(); // nothing listens there: a provider that is down
    upstream = await startOidcUpstream({
      port: upstreamPort,
      redirectUris: [`http://127.0.0.1:${port}/v1/federation/upstream/callback`],
    });
    rotating = await startStaticIssuer();
    server = await startTestServer({
      env: {
        PORT: String(port),
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        // The suite signs in far more often than a player would; the limits are rateLimitsDoc's to test.
        RATE_LIMITS: 'login_address=1000/1m,federated_login=1000/1m,federation=1000/1m',
        IDENTITY_PROVIDERS: JSON.stringify([
          {
            id: 'upstream',
            kind: 'oidc',
            name: 'Upstream ID',
            client_id: upstream.clientId,
            client_ids: [upstream.clientId, 'dauth-ios'],
            client_secret: upstream.clientSecret,
            issuer: upstream.issuer,
          },
          { id: 'rotating', kind: 'oidc', name: 'Rotating', client_id: 'rot-app', issuer: rotating.issuer },
          { id: 'down', kind: 'oidc', name: 'Down', client_id: 'x', issuer: `http://127.0.0.1:${downPort}` },
          {
            id: 'plain',
            kind: 'oauth2',
            name: 'Plain OAuth',
            client_id: 'c',
            client_secret: 's',
            authorization_endpoint: `http://127.0.0.1:${downPort}/authorize`,
            token_endpoint: `http://127.0.0.1:${downPort}/token`,
            userinfo_endpoint: `http://127.0.0.1:${downPort}/userinfo`,
          },
        ]),
      },
    });
    base = server.config.publicUrl;
  });
  afterAll(async () => {
    await server?.close();
    await upstream?.close();
    await rotating?.close();
  });

  it('lists the configured providers anonymously', async () => {
    const res = await fetch(`${base}/v1/federation/providers`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      providers: [
        { id: 'upstream', kind: 'oidc', name: 'Upstream ID' },
        { id: 'rotating', kind: 'oidc', name: 'Rotating' },
        { id: 'down', kind: 'oidc', name: 'Down' },
        { id: 'plain', kind: 'oauth2', name: 'Plain OAuth' },
      ],
    });
  });

  it('creates the account on the first sign-in (verified e-mail kept and verified), then signs in to it', async () => {
    const sub = uniqueSub();
    const email = `${sub}@Upstream.Example`;
    const idToken = await upstreamToken({ sub, email, email_verified: true, name: 'Ann Upstream' });
    const first = await federatedLogin({ id_token: idToken, client_id: 'dauth:console' });
    expect(first.status).toBe(200);
    const body = (await first.json()) as LoginAnswer;
    expect(body).toEqual({
      success: true,
      token: expect.any(String),
      uuid: expect.stringMatching(/^\d+$/),
      created: true,
    });
    expect(claimsOf(body.token)).toMatchObject({ sub: body.uuid, token_use: 'login', azp: 'dauth:console' });
    const user = await server.services.users.findById(Number(body.uuid));
    expect(user).toMatchObject({ email: email.toLowerCase(), nickname: 'Ann Upstream', passwordHash: '' });
    expect(await server.services.users.emailVerified(Number(body.uuid))).toBe(true);

    // Audited with the account it made, never with the id_token.
    await expect
      .poll(async () =>
        server.services.database.db
          .selectFrom('audit_log')
          .selectAll()
          .where('action', '=', 'account.federated_login')
          .where('actor_user', '=', body.uuid)
          .execute(),
      )
      .toHaveLength(1);
    const [entry] = await server.services.database.db
      .selectFrom('audit_log')
      .selectAll()
      .where('actor_user', '=', body.uuid)
      .execute();
    expect(JSON.parse(entry!.details)).toEqual({
      provider: 'upstream',
      client_id: 'dauth:console',
      created: true,
    });
    expect(entry!.details).not.toContain(idToken.split('.')[1]!);

    const again = await federatedLogin({
      id_token: await upstreamToken({ sub, email, email_verified: true }),
    });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ uuid: body.uuid, created: false });

    const list = await fetch(`${base}/v1/dev-user/identities`, { headers: bearer(body.token) });
    expect(await list.json()).toEqual({
      identities: [
        {
          id: expect.stringMatching(/^fid_[0-9a-f]{32}$/),
          provider: 'upstream',
          provider_name: 'Upstream ID',
          subject: sub,
          email: email.toLowerCase(),
          created_at: expect.any(String),
        },
      ],
    });
  });

  describe('each id_token once, and its own authentication time (decisions §9)', () => {
    it('a replayed id_token: 401 id_token_replayed; the first login JWT has the upstream auth_time', async () => {
      const authTime = now() - 1_234;
      const idToken = await upstreamToken({ sub: uniqueSub(), auth_time: authTime, iat: now() - 60 });
      const first = await federatedLogin({ id_token: idToken, client_id: 'dauth:console' });
      expect(first.status).toBe(200);
      const { token, uuid } = (await first.json()) as LoginAnswer;
      expect(claimsOf(token).auth_time).toBe(authTime);
      // So a stolen copy is no step-up: the login is as old as the upstream sign-in it stands for.
      const link = await post(`${base}/v1/dev-user/identities/link`, { provider: 'upstream' }, bearer(token));
      expect(link.status).toBe(401);
      expect(await link.json()).toMatchObject({ error: 'reauthentication_required' });

      const before = await rowCounts();
      const replay = await federatedLogin({ id_token: idToken, client_id: 'dauth:console' });
      expect(replay.status).toBe(401);
      const body = (await replay.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ success: false, error: 'id_token_replayed' });
      expect(body).not.toHaveProperty('token');
      expect(await rowCounts()).toEqual(before);

      // What is kept is a hash until the token expires, never the token.
      const markers = await server.services.database.db.selectFrom('federation_nonces').selectAll().execute();
      const [, payload, signature] = idToken.split('.');
      expect(JSON.stringify(markers)).not.toContain(payload!.slice(0, 40));
      expect(JSON.stringify(markers)).not.toContain(signature!.slice(0, 40));
      // The same identity with a new id_token signs in as before.
      const again = await federatedLogin({ id_token: await upstreamToken({ sub: claimsOf(idToken).sub }) });
      expect(await again.json()).toMatchObject({ uuid, created: false });
    });

    it('the OpenAPI document names id_token_replayed among the 401s of both routes', async () => {
      const doc = (await (await fetch(`${base}/docs/json`)).json()) as {
        paths: Record<string, { post: { responses: Record<string, { description: string }> } }>;
      };
      for (const path of ['/v1/dev-user/federated-login', '/v1/dev-user/identities']) {
        expect(doc.paths[path]!.post.responses['401']!.description).toContain('id_token_replayed');
      }
    });

    it('without auth_time the id_token’s iat is the authentication time', async () => {
      const iat = now() - 300;
      const res = await federatedLogin({ id_token: await upstreamToken({ sub: uniqueSub(), iat }) });
      expect(res.status).toBe(200);
      expect(claimsOf(((await res.json()) as LoginAnswer).token).auth_time).toBe(iat);
    });

    it('concurrent presentations of one id_token: exactly one signs in', async () => {
      const idToken = await upstreamToken({ sub: uniqueSub() });
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => federatedLogin({ id_token: idToken }).then((r) => r.status)),
      );
      expect(answers.filter((s) => s === 200)).toHaveLength(1);
      expect(answers.filter((s) => s === 401)).toHaveLength(5);
    });

    it('an id_token used to sign in does not link, and one used to link does not sign in', async () => {
      const owner = await createUser(base, undefined, { clientId: 'dauth:console' });
      const signedIn = await upstreamToken({ sub: uniqueSub() });
      expect((await federatedLogin({ id_token: signedIn })).status).toBe(200);
      const link = await post(
        `${base}/v1/dev-user/identities`,
        { provider: 'upstream', id_token: signedIn },
        bearer(owner.loginToken),
      );
      expect(link.status).toBe(401);
      expect(await link.json()).toMatchObject({ error: 'id_token_replayed' });

      const linking = await upstreamToken({ sub: uniqueSub() });
      const linked = await post(
        `${base}/v1/dev-user/identities`,
        { provider: 'upstream', id_token: linking },
        bearer(owner.loginToken),
      );
      expect(linked.status).toBe(201);
      const login = await federatedLogin({ id_token: linking });
      expect(login.status).toBe(401);
      expect(await login.json()).toMatchObject({ error: 'id_token_replayed' });
    });
  });

  it('concurrent first sign-ins with one identity make one account, and every one of them signs in to it', async () => {
    const sub = uniqueSub();
    const answers = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const res = await federatedLogin({ id_token: await upstreamToken({ sub }) });
        expect(res.status).toBe(200);
        return (await res.json()) as LoginAnswer;
      }),
    );
    expect(new Set(answers.map((a) => a.uuid)).size).toBe(1);
    expect(answers.filter((a) => a.created)).toHaveLength(1);
    const rows = await server.services.database.db
      .selectFrom('federated_identities')
      .select('user_uuid')
      .where('subject', '=', sub)
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('keeps an unverified upstream e-mail off the account', async () => {
    const sub = uniqueSub();
    const res = await federatedLogin({
      id_token: await upstreamToken({ sub, email: `${sub}@upstream.example`, email_verified: false }),
    });
    expect(res.status).toBe(200);
    const { uuid } = (await res.json()) as LoginAnswer;
    expect((await server.services.users.findById(Number(uuid)))?.email).toBeNull();
  });

  it('binds the login JWT to a registered app, and refuses an unknown client_id before anything', async () => {
    const owner = await createUser(base);
    const app = await createClient(base, owner, ['http://127.0.0.1:9/cb']);
    const res = await federatedLogin({
      id_token: await upstreamToken({ sub: uniqueSub() }),
      client_id: app.clientId,
    });
    expect(res.status).toBe(200);
    expect(claimsOf(((await res.json()) as LoginAnswer).token).azp).toBe(app.clientId);
    const before = await rowCounts();
    const unknown = await federatedLogin({
      id_token: await upstreamToken({ sub: uniqueSub() }),
      client_id: 'nope',
    });
    expect(unknown.status).toBe(400);
    expect(await rowCounts()).toEqual(before);
  });

  describe('attacks: each refused with 401 invalid_id_token and nothing created', () => {
    const refusedWithNothingCreated = async (idToken: string) => {
      const before = await rowCounts();
      const res = await federatedLogin({ id_token: idToken });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ success: false, error: 'invalid_id_token' });
      expect(await rowCounts()).toEqual(before);
    };

    it('an id_token for another audience', async () => {
      await refusedWithNothingCreated(await upstreamToken({ sub: uniqueSub(), aud: 'someone-elses-app' }));
    });

    it('an expired id_token', async () => {
      await refusedWithNothingCreated(
        await upstreamToken({ sub: uniqueSub(), iat: now() - 7200, exp: now() - 3600 }),
      );
    });

    it('an id_token signed by another key under the upstream key id, and under a key id of its own', async () => {
      const forger = await newSigningKey(upstream.key.kid);
      const claims = { sub: uniqueSub(), iss: upstream.issuer, aud: 'dauth-ios', exp: now() + 600 };
      await refusedWithNothingCreated(await signIdToken(forger, claims));
      await refusedWithNothingCreated(await signIdToken(await newSigningKey('forged-kid'), claims));
    });

    it('an id_token from another issuer, and one whose several audiences name another party (azp)', async () => {
      await refusedWithNothingCreated(await upstreamToken({ sub: uniqueSub(), iss: 'https://evil.example' }));
      await refusedWithNothingCreated(
        await upstreamToken({ sub: uniqueSub(), aud: ['dauth-ios', 'evil-app'], azp: 'evil-app' }),
      );
    });

    it('an unsigned (alg none) and a shared-secret (HS256) id_token', async () => {
      const payload = Buffer.from(
        JSON.stringify({
          sub: uniqueSub(),
          iss: upstream.issuer,
          aud: 'dauth-ios',
          exp: now() + 600,
          iat: now(),
        }),
      ).toString('base64url');
      const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`;
      await refusedWithNothingCreated(none);
      const { SignJWT } = await import('jose');
      const hs = await new SignJWT({
        sub: uniqueSub(),
        iss: upstream.issuer,
        aud: 'dauth-ios',
        exp: now() + 600,
      })
        .setProtectedHeader({ alg: 'HS256', kid: upstream.key.kid })
        .setIssuedAt()
        .sign(new TextEncoder().encode(upstream.clientSecret));
      await refusedWithNothingCreated(hs);
    });
  });

  it('an upstream e-mail equal to an existing account’s: 409 account_exists_link_required, nothing created or linked', async () => {
    const owner = await createUser(base);
    for (const emailVerified of [true, false]) {
      const before = await rowCounts();
      const res = await federatedLogin({
        id_token: await upstreamToken({
          sub: uniqueSub(),
          email: owner.email.toUpperCase(),
          email_verified: emailVerified,
        }),
      });
      expect(res.status).toBe(409);
      expect(await res.json()).toMatchObject({ success: false, error: 'account_exists_link_required' });
      expect(await rowCounts()).toEqual(before);
    }
    const identities = await fetch(`${base}/v1/dev-user/identities`, { headers: bearer(owner.loginToken) });
    expect(await identities.json()).toEqual({ identities: [] });
  });

  describe('linking and unlinking', () => {
    let owner: TestUser;

    beforeAll(async () => {
      owner = await createUser(base, undefined, { clientId: 'dauth:console' });
    });

    it('the owner, signed in, links the identity by id_token; it then signs in to that account', async () => {
      const sub = uniqueSub();
      const linked = await post(
        `${base}/v1/dev-user/identities`,
        {
          provider: 'upstream',
          id_token: await upstreamToken({ sub, email: owner.email, email_verified: true }),
        },
        bearer(owner.loginToken),
      );
      expect(linked.status).toBe(201);
      expect(await linked.json()).toMatchObject({ provider: 'upstream', subject: sub, email: owner.email });
      const login = await federatedLogin({
        id_token: await upstreamToken({ sub, email: owner.email, email_verified: true }),
      });
      expect(login.status).toBe(200);
      expect(await login.json()).toMatchObject({ uuid: owner.uuid, created: false });

      // The same identity for another account: 409 identity_in_use, nothing linked.
      const other = await createUser(base, undefined, { clientId: 'dauth:console' });
      const stolen = await post(
        `${base}/v1/dev-user/identities`,
        { provider: 'upstream', id_token: await upstreamToken({ sub }) },
        bearer(other.loginToken),
      );
      expect(stolen.status).toBe(409);
      expect(await stolen.json()).toMatchObject({ error: 'identity_in_use' });
      const list = await fetch(`${base}/v1/dev-user/identities`, { headers: bearer(other.loginToken) });
      expect(await list.json()).toEqual({ identities: [] });
    });

    it('a link refuses a bad id_token (401) and a provider without id_tokens (400 id_token_unsupported)', async () => {
      const bad = await post(
        `${base}/v1/dev-user/identities`,
        { provider: 'upstream', id_token: await upstreamToken({ sub: uniqueSub(), aud: 'other' }) },
        bearer(owner.loginToken),
      );
      expect(bad.status).toBe(401);
      const plain = await federatedLogin({ provider: 'plain', id_token: 'x.y.z' });
      expect(plain.status).toBe(400);
      expect(await plain.json()).toMatchObject({ error: 'id_token_unsupported' });
      const unknown = await federatedLogin({ provider: 'nobody', id_token: 'x.y.z' });
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toMatchObject({ error: 'unknown_provider' });
    });

    it('unlinks an identity of an account with a password; never the last way in', async () => {
      const list = (await (
        await fetch(`${base}/v1/dev-user/identities`, { headers: bearer(owner.loginToken) })
      ).json()) as { identities: { id: string }[] };
      expect(list.identities).toHaveLength(1);
      const removed = await fetch(`${base}/v1/dev-user/identities/${list.identities[0]!.id}`, {
        method: 'DELETE',
        headers: bearer(owner.loginToken),
      });
      expect(removed.status).toBe(200);

      // An account made by a federated sign-in has no password: its only identity stays.
      const made = (await (
        await federatedLogin({
          id_token: await upstreamToken({ sub: uniqueSub() }),
          client_id: 'dauth:console',
        })
      ).json()) as LoginAnswer;
      const own = (await (
        await fetch(`${base}/v1/dev-user/identities`, { headers: bearer(made.token) })
      ).json()) as { identities: { id: string }[] };
      const last = await fetch(`${base}/v1/dev-user/identities/${own.identities[0]!.id}`, {
        method: 'DELETE',
        headers: bearer(made.token),
      });
      expect(last.status).toBe(409);
      expect(await last.json()).toMatchObject({ error: 'last_sign_in_method' });
      const after = (await (
        await fetch(`${base}/v1/dev-user/identities`, { headers: bearer(made.token) })
      ).json()) as { identities: unknown[] };
      expect(after.identities).toHaveLength(1);
      // Someone else's identity id is not found for this user.
      const foreign = await fetch(`${base}/v1/dev-user/identities/${own.identities[0]!.id}`, {
        method: 'DELETE',
        headers: bearer(owner.loginToken),
      });
      expect(foreign.status).toBe(404);
    });

    it('a guest upgrades by linking: same uuid, the verified free e-mail set, the guest secret dead', async () => {
      const app = await createClient(base, owner, ['http://127.0.0.1:9/cb']);
      const guest = (await (await post(`${base}/v1/dev-user/guest`, { client_id: app.clientId })).json()) as {
        token: string;
        uuid: string;
        guest_secret: string;
      };
      const sub = uniqueSub();
      const email = `${sub}@upstream.example`;
      const linked = await post(
        `${base}/v1/dev-user/identities`,
        { provider: 'upstream', id_token: await upstreamToken({ sub, email, email_verified: true }) },
        bearer(guest.token),
      );
      expect(linked.status).toBe(201);
      expect(await server.services.guests.isGuest(Number(guest.uuid))).toBe(false);
      expect((await server.services.users.findById(Number(guest.uuid)))?.email).toBe(email);
      const secretLogin = await post(`${base}/v1/dev-user/guest/login`, {
        uuid: guest.uuid,
        guest_secret: guest.guest_secret,
      });
      expect(secretLogin.status).toBe(401);
      const login = await federatedLogin({ id_token: await upstreamToken({ sub }) });
      expect(await login.json()).toMatchObject({ uuid: guest.uuid, created: false });
    });

    it('linking needs a fresh login (STEP_UP_MAX_AGE)', async () => {
      const { token } = await server.services.tokens.issueLoginToken(owner.uuid, {
        authTime: now() - 3600,
        clientId: 'dauth:console',
      });
      const res = await post(`${base}/v1/dev-user/identities/link`, { provider: 'upstream' }, bearer(token));
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: 'reauthentication_required' });
    });

    it('a relayed login JWT links nothing: unbound and app-bound get 403 first_party_required on every identity change (decisions §9)', async () => {
      const player = await createUser(base);
      const app = await createClient(base, owner, ['http://127.0.0.1:9/cb']);
      const appBound = await server.services.tokens.issueLoginToken(player.uuid, { clientId: app.clientId });
      const consoleToken = await server.services.tokens.issueLoginToken(player.uuid, {
        clientId: 'dauth:console',
      });
      const sub = uniqueSub();
      for (const token of [player.loginToken, appBound.token]) {
        const byIdToken = await post(
          `${base}/v1/dev-user/identities`,
          { provider: 'upstream', id_token: await upstreamToken({ sub }) },
          bearer(token),
        );
        expect(byIdToken.status).toBe(403);
        expect(await byIdToken.json()).toMatchObject({ success: false, error: 'first_party_required' });
        const byRedirect = await post(
          `${base}/v1/dev-user/identities/link`,
          { provider: 'upstream' },
          bearer(token),
        );
        expect(byRedirect.status).toBe(403);
        expect(await byRedirect.json()).toMatchObject({ error: 'first_party_required' });
      }
      const listed = async () =>
        (
          (await (
            await fetch(`${base}/v1/dev-user/identities`, { headers: bearer(player.loginToken) })
          ).json()) as {
            identities: { id: string }[];
          }
        ).identities;
      expect(await listed()).toEqual([]);
      const linked = await post(
        `${base}/v1/dev-user/identities`,
        { provider: 'upstream', id_token: await upstreamToken({ sub }) },
        bearer(consoleToken.token),
      );
      expect(linked.status).toBe(201);
      const [identity] = await listed();
      for (const token of [player.loginToken, appBound.token]) {
        const unlink = await fetch(`${base}/v1/dev-user/identities/${identity!.id}`, {
          method: 'DELETE',
          headers: bearer(token),
        });
        expect(unlink.status).toBe(403);
        expect(await unlink.json()).toMatchObject({ error: 'first_party_required' });
      }
      expect(await listed()).toHaveLength(1);
    });
  });

  it('an unknown kid refetches the JWKS once (a key rotation), and not again for every forged kid', async () => {
    const login = (key: Awaited<ReturnType<typeof newSigningKey>>) =>
      signIdToken(key, { sub: uniqueSub(), iss: rotating.issuer, aud: 'rot-app', exp: now() + 600 }).then(
        (t) => post(`${base}/v1/dev-user/federated-login`, { provider: 'rotating', id_token: t }),
      );
    const first = rotating.keys[0]!;
    expect((await login(first)).status).toBe(200);
    expect(rotating.jwksFetches).toBe(1);
    expect((await login(first)).status).toBe(200);
    expect(rotating.jwksFetches).toBe(1); // cached

    const next = await newSigningKey('static-2');
    rotating.keys = [next];
    expect((await login(next)).status).toBe(200);
    expect(rotating.jwksFetches).toBe(2); // refreshed once for the new kid

    expect((await login(await newSigningKey('static-3'))).status).toBe(401);
    expect((await login(await newSigningKey('static-4'))).status).toBe(401);
    expect(rotating.jwksFetches).toBe(2); // within the cooldown: no fetch per forged kid
    expect(rotating.discoveryFetches).toBe(1);
  });

  it('a provider that is down fails only its own sign-ins (503), the start included; the others work', async () => {
    const native = await post(`${base}/v1/dev-user/federated-login`, { provider: 'down', id_token: 'a.b.c' });
    expect(native.status).toBe(503);
    expect(await native.json()).toMatchObject({ error: 'provider_unavailable' });
    const start = await fetch(`${base}/v1/federation/down/start?return_to=/console`, { redirect: 'manual' });
    expect(start.status).toBe(302);
    expect(start.headers.get('location')).toBe('/console#federation_error=provider_unavailable');
    const ok = await federatedLogin({ id_token: await upstreamToken({ sub: uniqueSub() }) });
    expect(ok.status).toBe(200);
  });

  describe('browser flow checks', () => {
    /** Starts a console flow as a browser would: the upstream URL and this browser's flow cookie. */
    const startFlow = async () => {
      const res = await fetch(`${base}/v1/federation/upstream/start?return_to=/console`, {
        redirect: 'manual',
      });
      expect(res.status).toBe(302);
      const location = new URL(res.headers.get('location')!);
      const cookie = res.headers.get('set-cookie')!;
      expect(cookie).toMatch(/^dauth_federation_flow=[A-Za-z0-9_-]{43};/);
      expect(cookie).toMatch(/HttpOnly/i);
      expect(cookie).toMatch(/SameSite=Lax/i);
      expect(cookie).toMatch(/Path=\/v1\/federation/);
      return { location, cookie: cookie.split(';')[0]! };
    };

    it('sends the browser to the upstream with PKCE (S256), state and nonce; stores only the state’s hash', async () => {
      const { location } = await startFlow();
      expect(location.origin).toBe(upstream.issuer);
      expect(Object.fromEntries(location.searchParams)).toMatchObject({
        response_type: 'code',
        client_id: upstream.clientId,
        redirect_uri: `${base}/v1/federation/upstream/callback`,
        scope: 'openid email profile',
        code_challenge_method: 'S256',
        state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        nonce: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      });
      const state = location.searchParams.get('state')!;
      const rows = await server.services.database.db.selectFrom('federation_flows').selectAll().execute();
      expect(JSON.stringify(rows)).not.toContain(state);
    });

    it('refuses return_to other than /console or an authorize request of a registered app', async () => {
      for (const returnTo of [
        'https://evil.example/',
        '//evil.example',
        '/v1/dev-user/identities',
        '/oauth/authorize?client_id=nope&redirect_uri=x',
      ]) {
        const res = await fetch(
          `${base}/v1/federation/upstream/start?return_to=${encodeURIComponent(returnTo)}`,
          {
            redirect: 'manual',
            headers: { accept: 'application/json' },
          },
        );
        expect(res.status).toBe(400);
        expect(await res.json()).toMatchObject({ error: 'invalid_request', field: 'return_to' });
      }
    });

    it("Apple's form_post: the POSTed answer is sent on to the GET callback, where the Lax flow cookie rides", async () => {
      const res = await fetch(`${base}/v1/federation/upstream/callback`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ state: 'the-state', code: 'the-code', user: '{"name":{}}' }),
      });
      expect(res.status).toBe(303);
      const location = new URL(res.headers.get('location')!, base);
      expect(location.pathname).toBe('/v1/federation/upstream/callback');
      expect(Object.fromEntries(location.searchParams)).toEqual({
        state: 'the-state',
        code: 'the-code',
        user: '{"name":{}}',
      });
    });

    it('refuses a forged state', async () => {
      const before = await rowCounts();
      const res = await fetch(`${base}/v1/federation/upstream/callback?state=forged-state&code=whatever`, {
        redirect: 'manual',
        headers: { accept: 'application/json' },
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'invalid_state' });
      expect(await rowCounts()).toEqual(before);
    });

    it('refuses a callback in a browser other than the one that started the flow (no cookie, or its own)', async () => {
      const before = await rowCounts();
      const victim = await startFlow();
      const attacker = await startFlow();
      for (const cookie of [undefined, attacker.cookie]) {
        const flow = cookie === undefined ? victim : await startFlow();
        const res = await fetch(
          `${base}/v1/federation/upstream/callback?state=${flow.location.searchParams.get('state')}&code=c`,
          { redirect: 'manual', headers: cookie ? { cookie } : {} },
        );
        expect(res.status).toBe(302);
        expect(res.headers.get('location')).toBe('/console#federation_error=flow_browser_mismatch');
      }
      // The state is used up by that attempt: the flow is gone, even for the browser that started it.
      const replay = await fetch(
        `${base}/v1/federation/upstream/callback?state=${victim.location.searchParams.get('state')}&code=c`,
        { redirect: 'manual', headers: { cookie: victim.cookie, accept: 'application/json' } },
      );
      expect(replay.status).toBe(400);
      expect(await replay.json()).toMatchObject({ error: 'invalid_state' });
      expect(await rowCounts()).toEqual(before);
    });

    describe('step-up (reauthenticate=true): the provider must sign the user in again', () => {
      /** A step-up flow with the scripted issuer: its upstream URL and this browser's cookie. */
      const startStepUp = async () => {
        const res = await fetch(
          `${base}/v1/federation/rotating/start?return_to=/console&reauthenticate=true`,
          { redirect: 'manual' },
        );
        expect(res.status).toBe(302);
        return {
          location: new URL(res.headers.get('location')!),
          cookie: res.headers.get('set-cookie')!.split(';')[0]!,
        };
      };
      /** The callback of `flow` after the issuer's token endpoint answers an id_token with `authTime`. */
      const answerWith = async (authTime: number | undefined) => {
        const flow = await startStepUp();
        const sub = uniqueSub();
        rotating.tokenResponse = async () => ({
          token_type: 'Bearer',
          access_token: 'at',
          id_token: await signIdToken(rotating.keys[0]!, {
            iss: rotating.issuer,
            aud: 'rot-app',
            sub,
            exp: now() + 600,
            nonce: flow.location.searchParams.get('nonce'),
            ...(authTime === undefined ? {} : { auth_time: authTime }),
          }),
        });
        const res = await fetch(
          `${base}/v1/federation/rotating/callback?state=${flow.location.searchParams.get('state')}&code=c`,
          { redirect: 'manual', headers: { cookie: flow.cookie } },
        );
        expect(res.status).toBe(302);
        return { location: res.headers.get('location')!, sub };
      };
      const identityOf = (sub: string) =>
        server.services.database.db
          .selectFrom('federated_identities')
          .select('user_uuid')
          .where('provider', '=', 'rotating')
          .where('subject', '=', sub)
          .executeTakeFirst();

      it('asks the provider for a new sign-in: prompt=login and max_age=0; a plain start does not', async () => {
        const { location } = await startStepUp();
        expect(location.searchParams.get('prompt')).toBe('login');
        expect(location.searchParams.get('max_age')).toBe('0');
        const plain = await fetch(`${base}/v1/federation/rotating/start?return_to=/console`, {
          redirect: 'manual',
        });
        const url = new URL(plain.headers.get('location')!);
        expect(url.searchParams.has('prompt')).toBe(false);
        // Only so that the id_token says when the user signed in (auth_time): 30 days.
        expect(url.searchParams.get('max_age')).toBe('2592000');
      });

      it('refuses an answer from the provider’s session (auth_time before the step-up) or without auth_time; nothing created', async () => {
        for (const authTime of [now() - 3_600, undefined]) {
          const before = await rowCounts();
          const { location, sub } = await answerWith(authTime);
          expect(location).toBe('/console#federation_error=upstream_rejected');
          expect(await identityOf(sub)).toBeUndefined();
          expect(await rowCounts()).toEqual(before);
        }
      });

      it('signs in when the provider authenticated the user after the step-up started', async () => {
        const { location, sub } = await answerWith(now());
        expect(location).toMatch(/^\/console#login_ticket=[A-Za-z0-9_-]{43}$/);
        expect(await identityOf(sub)).toBeDefined();
      });

      it('refuses a reauthenticate value other than true or false', async () => {
        const res = await fetch(
          `${base}/v1/federation/rotating/start?return_to=/console&reauthenticate=yes`,
          {
            redirect: 'manual',
            headers: { accept: 'application/json' },
          },
        );
        expect(res.status).toBe(400);
        expect(await res.json()).toMatchObject({ error: 'invalid_request' });
      });
    });

    it("back at an app's authorize request, the page session and the app's id_token keep the upstream's auth_time", async () => {
      const owner = await createUser(base);
      const redirectUri = 'http://127.0.0.1:9/callback';
      const app = await createOidcClient(base, owner, [redirectUri]);
      const authorize = new URL(
        authorizeUrl(base, {
          client_id: app.clientId,
          redirect_uri: redirectUri,
          response_type: 'code',
          state: 'st',
          scope: 'openid',
        }),
      );
      const started = await fetch(
        `${base}/v1/federation/rotating/start?return_to=${encodeURIComponent(authorize.pathname + authorize.search)}`,
        { redirect: 'manual' },
      );
      expect(started.status).toBe(302);
      const upstreamUrl = new URL(started.headers.get('location')!);
      // The provider answers from its own session: the password was typed an hour ago.
      const authTime = now() - 3_600;
      const sub = uniqueSub();
      rotating.tokenResponse = async () => ({
        token_type: 'Bearer',
        access_token: 'at',
        id_token: await signIdToken(rotating.keys[0]!, {
          iss: rotating.issuer,
          aud: 'rot-app',
          sub,
          exp: now() + 600,
          nonce: upstreamUrl.searchParams.get('nonce'),
          auth_time: authTime,
        }),
      });
      const back = await fetch(
        `${base}/v1/federation/rotating/callback?state=${upstreamUrl.searchParams.get('state')}&code=c`,
        { redirect: 'manual', headers: { cookie: started.headers.get('set-cookie')!.split(';')[0]! } },
      );
      expect(back.status).toBe(303);
      expect(back.headers.get('location')).toMatch(/^\/oauth\/authorize\?/);
      const session = back.headers
        .getSetCookie()
        .find((c) => c.startsWith('dauth_session='))!
        .split(';')[0]!;
      // The consent page is not under test: the new account has consented already.
      const { user_uuid: userUuid } = await server.services.database.db
        .selectFrom('federated_identities')
        .select('user_uuid')
        .where('provider', '=', 'rotating')
        .where('subject', '=', sub)
        .executeTakeFirstOrThrow();
      await server.services.database.db
        .insertInto('oauth_consents')
        .values({ user_uuid: userUuid, client_id: app.clientId, granted_at: Date.now(), scope: 'openid' })
        .execute();

      const coded = await fetch(new URL(back.headers.get('location')!, base), {
        redirect: 'manual',
        headers: { cookie: session },
      });
      expect(coded.status).toBe(302);
      const code = new URL(coded.headers.get('location')!).searchParams.get('code');
      expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const tokens = (await (await exchange(base, app, code!)).json()) as { id_token: string };
      expect(claimsOf(tokens.id_token).auth_time).toBe(authTime);
    });

    it("an app's max_age or prompt=login makes the login page's provider links ask for a new sign-in, which satisfies it", async () => {
      const owner = await createUser(base);
      const redirectUri = 'http://127.0.0.1:9/callback';
      const app = await createOidcClient(base, owner, [redirectUri]);
      const authorize = (extra: Record<string, string>) =>
        authorizeUrl(base, {
          client_id: app.clientId,
          redirect_uri: redirectUri,
          response_type: 'code',
          state: 'st',
          scope: 'openid',
          ...extra,
        });
      /** The login page's "Continue with" link for the scripted issuer. */
      const providerLink = async (extra: Record<string, string>) => {
        const res = await fetch(authorize(extra), { redirect: 'manual' });
        expect(res.status).toBe(200);
        const href = /id="federation-rotating"\s+href="([^"]+)"/.exec(await res.text())?.[1];
        expect(href).toBeDefined();
        return new URL(href!.replaceAll('&amp;', '&'), base);
      };
      expect((await providerLink({})).searchParams.has('reauthenticate')).toBe(false);
      expect((await providerLink({ prompt: 'login' })).searchParams.get('reauthenticate')).toBe('true');
      const link = await providerLink({ max_age: '60' });
      expect(link.searchParams.get('reauthenticate')).toBe('true');

      const started = await fetch(link, { redirect: 'manual' });
      expect(started.status).toBe(302);
      const upstreamUrl = new URL(started.headers.get('location')!);
      expect(upstreamUrl.searchParams.get('prompt')).toBe('login');
      const authTime = now();
      const sub = uniqueSub();
      rotating.tokenResponse = async () => ({
        token_type: 'Bearer',
        access_token: 'at',
        id_token: await signIdToken(rotating.keys[0]!, {
          iss: rotating.issuer,
          aud: 'rot-app',
          sub,
          exp: now() + 600,
          nonce: upstreamUrl.searchParams.get('nonce'),
          auth_time: authTime,
        }),
      });
      const back = await fetch(
        `${base}/v1/federation/rotating/callback?state=${upstreamUrl.searchParams.get('state')}&code=c`,
        { redirect: 'manual', headers: { cookie: started.headers.get('set-cookie')!.split(';')[0]! } },
      );
      expect(back.status).toBe(303);
      const session = back.headers
        .getSetCookie()
        .find((c) => c.startsWith('dauth_session='))!
        .split(';')[0]!;
      const { user_uuid: userUuid } = await server.services.database.db
        .selectFrom('federated_identities')
        .select('user_uuid')
        .where('provider', '=', 'rotating')
        .where('subject', '=', sub)
        .executeTakeFirstOrThrow();
      await server.services.database.db
        .insertInto('oauth_consents')
        .values({ user_uuid: userUuid, client_id: app.clientId, granted_at: Date.now(), scope: 'openid' })
        .execute();
      const coded = await fetch(new URL(back.headers.get('location')!, base), {
        redirect: 'manual',
        headers: { cookie: session },
      });
      expect(coded.status).toBe(302);
      const code = new URL(coded.headers.get('location')!).searchParams.get('code')!;
      const tokens = (await (await exchange(base, app, code)).json()) as { id_token: string };
      expect(claimsOf(tokens.id_token).auth_time).toBe(authTime);
    });

    it('a link URL works only with the link cookie of the browser that asked for it, and once', async () => {
      const owner = await createUser(base, undefined, { clientId: 'dauth:console' });
      const res = await post(
        `${base}/v1/dev-user/identities/link`,
        { provider: 'upstream' },
        bearer(owner.loginToken),
      );
      expect(res.status).toBe(200);
      const { url } = (await res.json()) as { url: string };
      expect(url).toMatch(
        new RegExp(`^${base}/v1/federation/upstream/start\\?link_ticket=[A-Za-z0-9_-]{43}$`),
      );
      const setCookie = res.headers.get('set-cookie')!;
      expect(setCookie).toMatch(/^dauth_federation_link=[A-Za-z0-9_-]{43};/);
      expect(setCookie).toMatch(/HttpOnly/i);
      expect(setCookie).toMatch(/SameSite=Lax/i);
      expect(setCookie).toMatch(/Path=\/v1\/federation(;|$)/);
      expect(setCookie).not.toMatch(/Secure/i); // PUBLIC_URL is http here
      const binder = setCookie.split(';')[0]!;
      const rows = await server.services.database.db.selectFrom('federation_tickets').selectAll().execute();
      expect(JSON.stringify(rows)).not.toContain(binder.split('=')[1]!);

      // Another browser (no link cookie, or its own from another link request): the error page, no flow.
      const elsewhere = await post(
        `${base}/v1/dev-user/identities/link`,
        { provider: 'upstream' },
        bearer(owner.loginToken),
      );
      const otherBinder = elsewhere.headers.get('set-cookie')!.split(';')[0]!;
      for (const cookie of [undefined, otherBinder, 'dauth_federation_link=']) {
        const refused = await fetch(url, {
          redirect: 'manual',
          headers: { accept: 'text/html', ...(cookie ? { cookie } : {}) },
        });
        expect(refused.status).toBe(400);
        expect(refused.headers.get('content-type')).toMatch(/text\/html/);
        expect(refused.headers.get('set-cookie') ?? '').not.toContain('dauth_federation_flow=');
        expect(await refused.text()).toContain('link_browser_mismatch');
      }

      // The browser that asked: the ticket is still there for it (a refused attempt does not spend it).
      const first = await fetch(url, { redirect: 'manual', headers: { cookie: binder } });
      expect(new URL(first.headers.get('location')!).origin).toBe(upstream.issuer);
      expect(first.headers.get('set-cookie')).toMatch(/dauth_federation_link=;/);
      const second = await fetch(url, { redirect: 'manual', headers: { cookie: binder } });
      expect(second.headers.get('location')).toBe('/console#federation_error=invalid_link_ticket');
    });

    it('a console login ticket is redeemed once for a console-bound login JWT', async () => {
      const user = await createUser(base);
      const ticket = await server.services.federation.consoleTicket(Number(user.uuid), false, now());
      const first = await post(`${base}/v1/federation/login-ticket`, { ticket });
      expect(first.status).toBe(200);
      const body = (await first.json()) as LoginAnswer;
      expect(body).toMatchObject({ success: true, uuid: user.uuid, created: false });
      expect(claimsOf(body.token).azp).toBe('dauth:console');
      const second = await post(`${base}/v1/federation/login-ticket`, { ticket });
      expect(second.status).toBe(401);
      expect(await second.json()).toMatchObject({ error: 'invalid_login_ticket' });
    });
  });
});
