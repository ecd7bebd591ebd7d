import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createClient, createUser, type TestUser } from '../helpers/http.js';
import { waitForMail } from '../helpers/outbox.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { stepNow, totpCode, totpSecretOf, wrongCode } from '../helpers/totp.js';

/** The console's first-party binding: only its fresh login JWTs change an account's ways in (decisions §9). */
const CONSOLE = { clientId: 'dauth:console' };

async function send(
  server: TestServer,
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      ...(token ? bearer(token) : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

interface Enrolled {
  user: TestUser;
  secret: Buffer;
  /** The secret as the enrolment answered it (base32). */
  base32: string;
  recoveryCodes: string[];
  /** The step of the code that confirmed; later sign-ins use codes of later steps. */
  confirmedStep: number;
}

for (const database of ['sqlite', 'postgres'] as const) {
  describe(`TOTP second factor (${database})`, () => {
    let server: TestServer;

    beforeAll(async () => {
      if (database === 'postgres') {
        const { postgresAvailable } = await import('../helpers/environment.js');
        if (!postgresAvailable) return;
      }
      server = await startTestServer({ postgres: database === 'postgres' });
    });
    afterAll(() => server?.close());

    const login = (user: TestUser, extra: Record<string, unknown> = {}) =>
      send(server, 'POST', '/v1/dev-user/login_devuser', undefined, {
        email: user.email,
        password: user.password,
        ...extra,
      });
    const secondStep = (mfaToken: unknown, code: string) =>
      send(server, 'POST', '/v1/dev-user/login/mfa', undefined, { mfa_token: mfaToken, code });

    async function enrolled(): Promise<Enrolled> {
      const user = await createUser(server.url, undefined, CONSOLE);
      const started = await send(server, 'POST', '/v1/dev-user/mfa/totp', user.loginToken);
      expect(started.status).toBe(201);
      const uri = started.body.otpauth_uri as string;
      const secret = totpSecretOf(uri);
      expect(secret.length).toBeGreaterThanOrEqual(20);
      expect(new URL(uri).searchParams.get('secret')).toBe(started.body.secret);
      expect(decodeURIComponent(new URL(uri).pathname)).toContain(user.email);
      const confirmedStep = stepNow();
      const confirmed = await send(server, 'POST', '/v1/dev-user/mfa/totp/confirm', user.loginToken, {
        code: totpCode(secret, confirmedStep),
      });
      expect(confirmed.status).toBe(200);
      const recoveryCodes = confirmed.body.recovery_codes as string[];
      expect(recoveryCodes).toHaveLength(10);
      expect(new Set(recoveryCodes).size).toBe(10);
      return { user, secret, base32: started.body.secret as string, recoveryCodes, confirmedStep };
    }

    it('an account without TOTP logs in exactly as before: a token at once, amr pwd', async (ctx) => {
      if (!server) return ctx.skip();
      const user = await createUser(server.url);
      const res = await login(user);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['success', 'token', 'uuid']);
      expect(decodeJwt(res.body.token as string).amr).toEqual(['pwd']);
      const status = await send(server, 'GET', '/v1/dev-user/mfa', user.loginToken);
      expect(status).toEqual({
        status: 200,
        body: { success: true, totp: false, recovery_codes_left: 0, passkeys: 0 },
      });
    });

    it('enrol, confirm, then login answers mfa_required without a token; a code gives the token (pwd otp mfa)', async (ctx) => {
      if (!server) return ctx.skip();
      const { user, secret, confirmedStep } = await enrolled();
      expect((await send(server, 'GET', '/v1/dev-user/mfa', user.loginToken)).body).toEqual({
        success: true,
        totp: true,
        recovery_codes_left: 10,
        passkeys: 0,
      });

      const first = await login(user, { client_id: CONSOLE.clientId });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({
        success: true,
        mfa_required: true,
        mfa_token: expect.any(String),
        methods: ['totp', 'recovery_code'],
        expires_in: 300,
      });
      expect(first.body.token).toBeUndefined();
      const firstAt = Math.floor(Date.now() / 1000);

      const code = totpCode(secret, confirmedStep + 1);
      const done = await secondStep(first.body.mfa_token, code);
      expect(done.status).toBe(200);
      expect(done.body).toEqual({ success: true, token: expect.any(String), uuid: user.uuid });
      const claims = decodeJwt(done.body.token as string);
      expect(claims.sub).toBe(user.uuid);
      expect(claims.azp).toBe(CONSOLE.clientId);
      expect(claims.amr).toEqual(['pwd', 'otp', 'mfa']);
      expect(Math.abs((claims.auth_time as number) - firstAt)).toBeLessThanOrEqual(2);
      // The token works as a login JWT.
      expect((await send(server, 'GET', '/v1/dev-user/mfa', done.body.token as string)).status).toBe(200);

      // The mfa_token was single use.
      expect((await secondStep(first.body.mfa_token, totpCode(secret, confirmedStep + 2))).body.error).toBe(
        'invalid_mfa_token',
      );
    });

    it('the same code (or an earlier one) is refused once a code of its step was accepted', async (ctx) => {
      if (!server) return ctx.skip();
      const { user, secret, confirmedStep } = await enrolled();
      const code = totpCode(secret, confirmedStep + 1);
      const first = await login(user);
      expect((await secondStep(first.body.mfa_token, code)).status).toBe(200);

      const again = await login(user);
      const replay = await secondStep(again.body.mfa_token, code);
      expect(replay).toMatchObject({ status: 401, body: { success: false, error: 'invalid_mfa_code' } });
      const earlier = await secondStep(again.body.mfa_token, totpCode(secret, confirmedStep));
      expect(earlier).toMatchObject({ status: 401, body: { error: 'invalid_mfa_code' } });
    });

    it('two concurrent second steps with one code: exactly one gets a token', async (ctx) => {
      if (!server) return ctx.skip();
      const { user, secret, confirmedStep } = await enrolled();
      const [a, b] = await Promise.all([login(user), login(user)]);
      const code = totpCode(secret, confirmedStep + 1);
      const answers = await Promise.all([
        secondStep(a.body.mfa_token, code),
        secondStep(b.body.mfa_token, code),
      ]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 401]);
    });

    it('a recovery code works once, then is refused', async (ctx) => {
      if (!server) return ctx.skip();
      const { user, recoveryCodes } = await enrolled();
      const code = recoveryCodes[3]!;
      const first = await login(user);
      const done = await secondStep(first.body.mfa_token, code.toUpperCase());
      expect(done.status).toBe(200);
      expect(decodeJwt(done.body.token as string).amr).toEqual(['pwd', 'otp', 'mfa']);
      expect(decodeJwt(done.body.token as string).azp).toBeUndefined();

      const again = await login(user);
      expect(await secondStep(again.body.mfa_token, code)).toMatchObject({
        status: 401,
        body: { error: 'invalid_mfa_code' },
      });
      expect((await send(server, 'GET', '/v1/dev-user/mfa', user.loginToken)).body.recovery_codes_left).toBe(
        9,
      );
    });

    it('5 wrong codes end the mfa_token: the right code after them is refused, and left unused', async (ctx) => {
      if (!server) return ctx.skip();
      const { user, secret, recoveryCodes } = await enrolled();
      const first = await login(user);
      for (let i = 0; i < 5; i++) {
        expect(await secondStep(first.body.mfa_token, wrongCode(secret))).toMatchObject({
          status: 401,
          body: { success: false, error: 'invalid_mfa_code' },
        });
      }
      expect(await secondStep(first.body.mfa_token, recoveryCodes[0]!)).toMatchObject({
        status: 401,
        body: { success: false, error: 'invalid_mfa_token' },
      });
      // The code itself was never checked: it still signs in with a new mfa_token.
      const fresh = await login(user);
      expect((await secondStep(fresh.body.mfa_token, recoveryCodes[0]!)).status).toBe(200);
    });

    it('a wrong password answers as for an account without TOTP', async (ctx) => {
      if (!server) return ctx.skip();
      const { user } = await enrolled();
      const plain = await createUser(server.url);
      const withTotp = await login({ ...user, password: 'wrong password!' });
      const without = await login({ ...plain, password: 'wrong password!' });
      expect(withTotp).toEqual(without);
      expect(withTotp.status).toBe(401);
    });

    it('enrol, confirm and remove refuse an unbound and an app-bound JWT (403 first_party_required)', async (ctx) => {
      if (!server) return ctx.skip();
      const owner = await createUser(server.url);
      const app = await createClient(server.url, owner, ['http://127.0.0.1:9/cb']);
      const unbound = await createUser(server.url);
      const appBound = (await login(unbound, { client_id: app.clientId })).body.token as string;
      for (const token of [unbound.loginToken, appBound]) {
        for (const [method, path, body] of [
          ['POST', '/v1/dev-user/mfa/totp', undefined],
          ['POST', '/v1/dev-user/mfa/totp/confirm', { code: '123456' }],
          ['DELETE', '/v1/dev-user/mfa/totp', { code: '123456' }],
        ] as const) {
          expect(await send(server, method, path, token, body)).toMatchObject({
            status: 403,
            body: { success: false, error: 'first_party_required' },
          });
        }
      }
      const row = await server.services.database.db
        .selectFrom('mfa_totp')
        .selectAll()
        .where('user_uuid', '=', Number(unbound.uuid))
        .executeTakeFirst();
      expect(row).toBeUndefined();
    });

    it('the secret is sealed at rest and the recovery codes stored hashed', async (ctx) => {
      if (!server) return ctx.skip();
      const { user, base32, recoveryCodes } = await enrolled();
      const db = server.services.database.db;
      const row = await db
        .selectFrom('mfa_totp')
        .selectAll()
        .where('user_uuid', '=', Number(user.uuid))
        .executeTakeFirstOrThrow();
      expect(row.secret_sealed).toMatch(/^v1\./);
      expect(row.secret_sealed).not.toContain(base32);
      expect(server.services.secretBox.open(row.secret_sealed, `totp_secret:${user.uuid}`).toString()).toBe(
        base32,
      );
      const stored = await db
        .selectFrom('mfa_recovery_codes')
        .selectAll()
        .where('user_uuid', '=', Number(user.uuid))
        .execute();
      expect(stored).toHaveLength(10);
      for (const code of recoveryCodes) {
        expect(JSON.stringify(stored)).not.toContain(code);
        expect(JSON.stringify(stored)).not.toContain(code.replace('-', ''));
      }
    });

    it('a pending enrolment is replaced by a new one and confirms only with its own secret; a confirmed one is not replaced', async (ctx) => {
      if (!server) return ctx.skip();
      const user = await createUser(server.url, undefined, CONSOLE);
      const a = await send(server, 'POST', '/v1/dev-user/mfa/totp', user.loginToken);
      const b = await send(server, 'POST', '/v1/dev-user/mfa/totp', user.loginToken);
      expect(b.body.secret).not.toBe(a.body.secret);
      const oldSecret = totpSecretOf(a.body.otpauth_uri as string);
      expect(
        await send(server, 'POST', '/v1/dev-user/mfa/totp/confirm', user.loginToken, {
          code: totpCode(oldSecret, stepNow()),
        }),
      ).toMatchObject({ status: 400, body: { error: 'invalid_mfa_code' } });
      const newSecret = totpSecretOf(b.body.otpauth_uri as string);
      const ok = await send(server, 'POST', '/v1/dev-user/mfa/totp/confirm', user.loginToken, {
        code: totpCode(newSecret, stepNow()),
      });
      expect(ok.status).toBe(200);
      expect(await send(server, 'POST', '/v1/dev-user/mfa/totp', user.loginToken)).toMatchObject({
        status: 409,
        body: { error: 'totp_already_enabled' },
      });
    });

    it('a pending secret expires after 10 minutes: its code no longer confirms (404 totp_not_pending)', async (ctx) => {
      if (!server) return ctx.skip();
      const user = await createUser(server.url, undefined, CONSOLE);
      const started = await send(server, 'POST', '/v1/dev-user/mfa/totp', user.loginToken);
      const secret = totpSecretOf(started.body.otpauth_uri as string);
      // Made 10 minutes and a second ago.
      await server.services.database.db
        .updateTable('mfa_totp')
        .set({ created_at: Date.now() - 601_000 })
        .where('user_uuid', '=', Number(user.uuid))
        .execute();
      expect(
        await send(server, 'POST', '/v1/dev-user/mfa/totp/confirm', user.loginToken, {
          code: totpCode(secret, stepNow()),
        }),
      ).toMatchObject({ status: 404, body: { success: false, error: 'totp_not_pending' } });
      expect((await send(server, 'GET', '/v1/dev-user/mfa', user.loginToken)).body.totp).toBe(false);
    });

    it('remove with a wrong code changes nothing; with a code, login is single-step again', async (ctx) => {
      if (!server) return ctx.skip();
      const { user, secret, recoveryCodes } = await enrolled();
      expect(
        await send(server, 'DELETE', '/v1/dev-user/mfa/totp', user.loginToken, { code: wrongCode(secret) }),
      ).toMatchObject({ status: 400, body: { success: false, error: 'invalid_mfa_code' } });
      expect((await login(user)).body.mfa_required).toBe(true);

      const removed = await send(server, 'DELETE', '/v1/dev-user/mfa/totp', user.loginToken, {
        code: recoveryCodes[9]!,
      });
      expect(removed).toEqual({ status: 200, body: { success: true } });
      const after = await login(user);
      expect(after.status).toBe(200);
      expect(Object.keys(after.body).sort()).toEqual(['success', 'token', 'uuid']);
      expect(decodeJwt(after.body.token as string).amr).toEqual(['pwd']);
      expect((await send(server, 'GET', '/v1/dev-user/mfa', user.loginToken)).body).toMatchObject({
        totp: false,
        recovery_codes_left: 0,
      });
    });

    it('an authenticator enrolled before the first mailbox proof goes with it: after the reset the owner signs in with the password alone (decisions §9)', async (ctx) => {
      if (!server) return ctx.skip();
      // The squatter signed up with the owner's address (never verified) and enrolled its own authenticator.
      const { user } = await enrolled();
      expect((await login(user)).body.mfa_required).toBe(true);
      const since = Date.now();
      expect(
        (await send(server, 'POST', '/v1/dev-user/password/reset-request', undefined, { email: user.email }))
          .status,
      ).toBe(200);
      const { text } = await waitForMail(server.dataDir, user.email, { since, includes: 'reset code' });
      const code = /reset code is (\d{8})/.exec(text)![1]!;
      const password = 'the owner chose this one';
      expect(
        (
          await send(server, 'POST', '/v1/dev-user/password/reset', undefined, {
            email: user.email,
            code,
            new_password: password,
          })
        ).status,
      ).toBe(200);
      const purged = await waitForMail(server.dataDir, user.email, {
        since,
        includes: 'confirmed for your dauth account for the first time',
      });
      expect(purged.text).toContain('the authenticator app (TOTP) and its recovery codes');
      const after = await login({ ...user, password });
      expect(after.status).toBe(200);
      expect(after.body.mfa_required).toBeUndefined();
      expect(after.body.token).toEqual(expect.any(String));
      const rows = await server.services.database.db
        .selectFrom('mfa_totp')
        .select('user_uuid')
        .where('user_uuid', '=', Number(user.uuid))
        .execute();
      expect(rows).toEqual([]);
    });

    it('enrolling and removing an authenticator mails the verified owner; deleting the account erases the secret', async (ctx) => {
      if (!server) return ctx.skip();
      const { user, recoveryCodes } = await enrolled();
      // Mail only goes to a verified address: verify it, as the owner would, then enrol again.
      await server.services.database.db
        .updateTable('users')
        .set({ email_verified_at: Date.now() })
        .where('user_uuid', '=', Number(user.uuid))
        .execute();
      const since = Date.now();
      expect(
        (await send(server, 'DELETE', '/v1/dev-user/mfa/totp', user.loginToken, { code: recoveryCodes[0]! }))
          .status,
      ).toBe(200);
      const removedMail = await waitForMail(server.dataDir, user.email, {
        since,
        includes: 'authenticator app',
      });
      expect(removedMail.text).toContain('/account/secure?token=');
      const started = await send(server, 'POST', '/v1/dev-user/mfa/totp', user.loginToken);
      const secret = totpSecretOf(started.body.otpauth_uri as string);
      const again = Date.now();
      expect(
        (
          await send(server, 'POST', '/v1/dev-user/mfa/totp/confirm', user.loginToken, {
            code: totpCode(secret, stepNow()),
          })
        ).status,
      ).toBe(200);
      const enabledMail = await waitForMail(server.dataDir, user.email, {
        since: again,
        includes: 'was turned on',
      });
      expect(enabledMail.text).toContain('/account/secure?token=');

      const deleted = await send(server, 'DELETE', '/v1/dev-user/account', user.loginToken, {
        confirm: user.email,
      });
      expect(deleted.status).toBe(200);
      const db = server.services.database.db;
      const uuid = Number(user.uuid);
      expect(await db.selectFrom('mfa_totp').selectAll().where('user_uuid', '=', uuid).execute()).toEqual([]);
      expect(
        await db.selectFrom('mfa_recovery_codes').selectAll().where('user_uuid', '=', uuid).execute(),
      ).toEqual([]);
    });
  });
}
