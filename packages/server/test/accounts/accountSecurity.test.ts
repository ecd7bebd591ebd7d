import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable } from '../helpers/environment.js';
import { bearer, post, type TestClient, type TestUser } from '../helpers/http.js';
import { signIdToken, startStaticIssuer, type StaticIssuer } from '../helpers/oidcUpstream.js';
import { waitForMail } from '../helpers/outbox.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { authorizeWithBearer, exchange } from '../oauth/support.js';
import { registerPin } from '../pin/pinHelpers.js';
import { type CreationOptions, SoftAuthenticator } from '../players/softAuthenticator.js';
import { newApp, request, tokenTransferPolicy } from '../sessionKeys/support.js';

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a whole new battery staple';
const AGENT = 'SecurityTest/1.0 (hijack suite)';
const now = () => Math.floor(Date.now() / 1000);

/**
 * Decisions §9 "Ways in": a first mailbox proof (password reset, address verification) purges every way in
 * added before it and ends every session; every change to the ways in, the password and every session-key
 * grant mails the verified address with a "this wasn't me" link whose confirmation ends everything and holds
 * sign-in until a password reset. A real dauth (SQLite, and PostgreSQL when reachable; the embedded chain),
 * its outbox, a software passkey and an OpenID issuer for linked identities.
 */
describe.each(postgresAvailable ? [{ postgres: false }, { postgres: true }] : [{ postgres: false }])(
  'account security: mailbox proof purge, security mail, /account/secure (postgres: $postgres)',
  (opts) => {
    let server: TestServer;
    let base: string;
    let issuer: StaticIssuer;
    let app: { dev: TestUser; client: TestClient };

    beforeAll(async () => {
      issuer = await startStaticIssuer();
      server = await startTestServer({
        ...opts,
        env: {
          CALLBACK_ALLOW_PRIVATE: 'true',
          RATE_LIMITS: 'login_address=1000/1m,password_reset=1000/1m,federated_login=1000/1m',
          IDENTITY_PROVIDERS: JSON.stringify([
            { id: 'upstream', kind: 'oidc', name: 'Upstream', client_id: 'up-app', issuer: issuer.issuer },
          ]),
        },
      });
      base = server.url;
      app = await newApp(server);
      const policy = await request(
        server,
        'PUT',
        `/v1/dev-user/clients/${app.client.clientId}/wallet-policy`,
        app.dev.loginToken,
        tokenTransferPolicy(server.services.chainInfo.contracts.token, '1000'),
      );
      expect(policy.status).toBe(200);
    }, 120_000);
    afterAll(async () => {
      await server?.close();
      await issuer?.close();
    });

    const send = (path: string, body: unknown, token?: string, headers: Record<string, string> = {}) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': AGENT,
          ...(token ? bearer(token) : {}),
          ...headers,
        },
        body: JSON.stringify(body),
      });
    const login = async (email: string, password: string) =>
      send('/v1/dev-user/login_devuser', { email, password, client_id: 'dauth:console' });
    const consoleToken = async (email: string, password: string) => {
      const res = await login(email, password);
      expect(res.status).toBe(200);
      return ((await res.json()) as { token: string }).token;
    };
    const authed = async (token: string) =>
      (await fetch(`${base}/v1/dev-user/passkeys`, { headers: bearer(token) })).status;

    async function signUp(email: string): Promise<{ uuid: number; token: string }> {
      const reg = await send('/v1/dev-user/register', { email, password: PASSWORD });
      expect(reg.status).toBe(201);
      const token = await consoleToken(email, PASSWORD);
      const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sub: string };
      return { uuid: Number(claims.sub), token };
    }

    async function addPasskey(token: string): Promise<SoftAuthenticator> {
      const authenticator = new SoftAuthenticator(new URL(base).hostname, new URL(base).origin);
      const options = await send('/v1/dev-user/passkeys/registration-options', {}, token);
      expect(options.status).toBe(200);
      const res = await send(
        '/v1/dev-user/passkeys',
        authenticator.register((await options.json()) as CreationOptions),
        token,
      );
      expect(res.status).toBe(201);
      return authenticator;
    }

    async function passkeySignIn(authenticator: SoftAuthenticator) {
      const options = await send('/v1/dev-user/passkeys/authentication-options', {});
      const { challenge } = (await options.json()) as { challenge: string };
      const res = await send('/v1/dev-user/passkeys/login', authenticator.assert(challenge));
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    }

    const upstreamToken = (sub: string) =>
      signIdToken(issuer.keys[0]!, { iss: issuer.issuer, aud: 'up-app', sub, exp: now() + 600 });

    async function linkIdentity(token: string, sub: string): Promise<string> {
      const res = await send(
        '/v1/dev-user/identities',
        { provider: 'upstream', id_token: await upstreamToken(sub) },
        token,
      );
      expect(res.status).toBe(201);
      return ((await res.json()) as { id: string }).id;
    }

    async function resetPassword(email: string): Promise<void> {
      const since = Date.now();
      expect((await send('/v1/dev-user/password/reset-request', { email })).status).toBe(200);
      const { text } = await waitForMail(server.dataDir, email, { since, includes: 'reset code' });
      const code = /reset code is (\d{8})/.exec(text)![1]!;
      const res = await send('/v1/dev-user/password/reset', { email, code, new_password: NEW_PASSWORD });
      expect(res.status).toBe(200);
    }

    const identitiesOf = (uuid: number) =>
      server.services.database.db
        .selectFrom('federated_identities')
        .selectAll()
        .where('user_uuid', '=', uuid)
        .execute();

    /** An app grant (refresh token) and a live session key of `user`, as a player of the suite's app. */
    async function playerParts(user: TestUser) {
      const wallet = await registerPin(server, {
        uuid: Number(user.uuid),
        email: user.email,
        token: user.loginToken,
      });
      // The authorize request takes an unbound login JWT (a console-bound one is the console's own).
      const unbound = await send('/v1/dev-user/login_devuser', {
        email: user.email,
        password: user.password,
      });
      expect(unbound.status).toBe(200);
      const appUser = { ...user, loginToken: ((await unbound.json()) as { token: string }).token };
      const { code } = await authorizeWithBearer(base, appUser, app.client);
      const tokens = (await (await exchange(base, app.client, code)).json()) as { refresh_token: string };
      const granted = await request(server, 'POST', '/v1/wallet/session-keys', user.loginToken, {
        client_id: app.client.clientId,
        ...wallet.pin,
        key_share_user: wallet.key_share_user,
      });
      expect(granted.status).toBe(201);
      return { refreshToken: tokens.refresh_token, sessionKey: granted.body.session_key as string };
    }

    const refresh = (refreshToken: string) =>
      post(`${base}/oauth/token`, {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: app.client.clientId,
        client_secret: app.client.clientSecret,
      });

    async function keyRevoked(sessionKey: string): Promise<void> {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const row = await server.services.database.db
          .selectFrom('session_keys')
          .select(['state', 'revoke_tx_hash'])
          .where('key_address', '=', sessionKey.toLowerCase())
          .executeTakeFirstOrThrow();
        if (row.state === 'revoked') return;
        expect(row.state).toBe('revoking'); // off chain it is refused from the purge on
        if (Date.now() > deadline) throw new Error('session key not revoked on chain');
        await new Promise((r) => setTimeout(r, 100));
      }
    }

    it('pre-hijack by sign-up: the owner’s password reset removes the squatter’s passkey and identity and ends their JWT, refresh token and session key', async () => {
      const victim = `victim-${randomBytes(5).toString('hex')}@example.com`;
      const attacker = await signUp(victim);
      const passkey = await addPasskey(attacker.token);
      await linkIdentity(attacker.token, `squat-${randomBytes(4).toString('hex')}`);
      const parts = await playerParts({
        email: victim,
        password: PASSWORD,
        nickname: 'x',
        uuid: String(attacker.uuid),
        loginToken: attacker.token,
      });
      expect((await passkeySignIn(passkey)).status).toBe(200);

      await resetPassword(victim);

      expect(await passkeySignIn(passkey)).toMatchObject({ status: 401, body: { error: 'passkey_refused' } });
      expect(await identitiesOf(attacker.uuid)).toEqual([]);
      expect(await authed(attacker.token)).toBe(401);
      expect((await refresh(parts.refreshToken)).status).toBe(400);
      await keyRevoked(parts.sessionKey);
      expect(await server.services.users.emailVerified(attacker.uuid)).toBe(true);
      const mail = await waitForMail(server.dataDir, victim, {
        includes: 'that was added before this confirmation was removed',
      });
      expect(mail.text).toContain('- a passkey (credential');
      expect(mail.text).toContain('- the linked upstream identity');
      // The owner now signs in with the new password; the squatter's old one is gone.
      expect((await login(victim, NEW_PASSWORD)).status).toBe(200);
      expect((await login(victim, PASSWORD)).status).toBe(401);
    }, 120_000);

    it('pre-hijack by guest upgrade: a scanner opening the verification link purges nothing; the owner confirming it on its page purges the passkey added before', async () => {
      const victim = `guestvictim-${randomBytes(5).toString('hex')}@example.com`;
      const guest = await send('/v1/dev-user/guest', { client_id: app.client.clientId });
      expect(guest.status).toBe(201);
      const { token: guestToken, uuid } = (await guest.json()) as { token: string; uuid: string };
      const upgraded = await send(
        '/v1/dev-user/guest/upgrade',
        { email: victim, password: PASSWORD },
        guestToken,
      );
      expect(upgraded.status).toBe(200);
      const attackerToken = await consoleToken(victim, PASSWORD);
      const passkey = await addPasskey(attackerToken);
      expect((await passkeySignIn(passkey)).status).toBe(200);

      // The owner asks for the verification mail (the upgrade's own mail, if any, works the same).
      const since = Date.now();
      expect((await send('/v1/dev-user/verify-email/resend', {}, attackerToken)).status).toBe(200);
      const { text } = await waitForMail(server.dataDir, victim, { since, includes: 'verify-email?token=' });
      const [link, token] = /(http\S+\/v1\/dev-user\/verify-email\?token=([A-Za-z0-9_-]+))/
        .exec(text)!
        .slice(1);
      // The attacker's mail scanner (or a link preview) opens the link: that proves nothing, and purges nothing.
      expect((await fetch(link!)).status).toBe(200);
      expect((await passkeySignIn(passkey)).status).toBe(200);
      expect(await authed(attackerToken)).toBe(200);
      expect(await server.services.users.emailVerified(Number(uuid))).toBe(false);

      // The owner presses the page's button.
      const confirmed = await fetch(`${base}/v1/dev-user/verify-email/confirm`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'text/html',
          origin: new URL(base).origin,
        },
        body: new URLSearchParams({ token: token! }).toString(),
      });
      expect(confirmed.status).toBe(200);

      expect(await passkeySignIn(passkey)).toMatchObject({ status: 401, body: { error: 'passkey_refused' } });
      expect(await authed(attackerToken)).toBe(401);
      expect(await server.services.users.emailVerified(Number(uuid))).toBe(true);
      await waitForMail(server.dataDir, victim, {
        includes: 'that was added before this confirmation was removed',
      });
    }, 60_000);

    it('a verification code presented with the account’s own login JWT keeps that JWT; every other one ends', async () => {
      const email = `coder-${randomBytes(5).toString('hex')}@example.com`;
      const { token: other } = await signUp(email);
      const presenter = await consoleToken(email, PASSWORD);
      const passkey = await addPasskey(other);
      const { text } = await waitForMail(server.dataDir, email, { includes: 'enter the code' });
      const code = /enter the code (\d{6})/.exec(text)![1]!;
      expect((await send('/v1/dev-user/verify-email', { code }, presenter)).status).toBe(200);
      expect(await authed(presenter)).toBe(200);
      expect(await authed(other)).toBe(401);
      expect((await passkeySignIn(passkey)).status).toBe(401);
    });

    /** A verified account (its sign-up code used) and a fresh console JWT. */
    async function verifiedAccount(label: string) {
      const email = `${label}-${randomBytes(5).toString('hex')}@example.com`;
      const { uuid, token } = await signUp(email);
      const { text } = await waitForMail(server.dataDir, email, { includes: 'enter the code' });
      const code = /enter the code (\d{6})/.exec(text)![1]!;
      expect((await send('/v1/dev-user/verify-email', { code }, token)).status).toBe(200);
      return { email, uuid, token };
    }

    const secureLinkOf = (text: string) =>
      /(http\S+\/account\/secure\?token=([A-Za-z0-9_-]{43}))/.exec(text)!;

    it('mails the verified address on passkey add and remove, identity link, password change and session-key grant: what, when, network and device, with a one-time link', async () => {
      const account = await verifiedAccount('notified');
      let since = Date.now();
      const passkey = await addPasskey(account.token);
      let mail = await waitForMail(server.dataDir, account.email, { since, includes: 'A passkey was added' });
      expect(mail.text).toContain('Network: 127.0.0.0/24');
      expect(mail.text).toContain(`Device: ${AGENT}`);
      // The account's language's date and time, in UTC (English: "Jan 5, 2026, 3:04:05 PM UTC").
      expect(mail.text).toMatch(/When: [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d\d:\d\d\s[AP]M UTC/);
      expect(secureLinkOf(mail.text)).not.toBeNull();

      since = Date.now();
      const removed = await fetch(`${base}/v1/dev-user/passkeys/${passkey.id}`, {
        method: 'DELETE',
        headers: { ...bearer(account.token), 'user-agent': AGENT },
      });
      expect(removed.status).toBe(200);
      await waitForMail(server.dataDir, account.email, { since, includes: 'A passkey was removed' });

      since = Date.now();
      await linkIdentity(account.token, `own-${randomBytes(4).toString('hex')}`);
      mail = await waitForMail(server.dataDir, account.email, {
        since,
        includes: 'upstream account was linked',
      });
      expect(mail.text).toContain('Network: 127.0.0.0/24');

      since = Date.now();
      const changed = await send(
        '/v1/dev-user/password',
        { current_password: PASSWORD, new_password: NEW_PASSWORD },
        account.token,
      );
      expect(changed.status).toBe(200);
      mail = await waitForMail(server.dataDir, account.email, {
        since,
        includes: 'password of your dauth account was changed',
      });
      expect(mail.text).toContain(`Device: ${AGENT}`);

      since = Date.now();
      await playerParts({
        email: account.email,
        password: NEW_PASSWORD,
        nickname: 'x',
        uuid: String(account.uuid),
        loginToken: account.token,
      });
      mail = await waitForMail(server.dataDir, account.email, {
        since,
        includes: 'was granted a session key',
      });
      expect(mail.text).toContain(app.client.clientId);
    }, 120_000);

    it('the secure link: GET changes nothing; POST ends every session, undoes the passkey, refuses sign-in until a reset; a used or foreign-origin post is refused', async () => {
      const account = await verifiedAccount('secured');
      const since = Date.now();
      const passkey = await addPasskey(account.token);
      const mail = await waitForMail(server.dataDir, account.email, {
        since,
        includes: 'A passkey was added',
      });
      const match = secureLinkOf(mail.text);
      const link = match[1]!;
      const secureToken = match[2]!;

      const page = await fetch(link, { headers: { accept: 'text/html' } });
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('<form method="post" action="/account/secure">');
      expect(page.headers.get('content-security-policy')).toContain("form-action 'self'");
      expect(await authed(account.token)).toBe(200);
      expect((await passkeySignIn(passkey)).status).toBe(200);

      const form = (origin?: string) =>
        fetch(`${base}/account/secure`, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            accept: 'text/html',
            ...(origin ? { origin } : {}),
          },
          body: new URLSearchParams({ token: secureToken }).toString(),
        });
      expect((await form('https://evil.example')).status).toBe(403);
      expect(await authed(account.token)).toBe(200);

      const confirmed = await form(new URL(base).origin);
      expect(confirmed.status).toBe(200);
      expect(await confirmed.text()).toContain('Reset your password');
      expect(await authed(account.token)).toBe(401);
      expect((await passkeySignIn(passkey)).status).toBe(401);
      const refused = await login(account.email, PASSWORD);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ success: false, error: 'password_reset_required' });

      const again = await form();
      expect(again.status).toBe(400);
      expect((await fetch(link)).status).toBe(400);

      await resetPassword(account.email);
      expect((await login(account.email, NEW_PASSWORD)).status).toBe(200);
    }, 60_000);
  },
);
