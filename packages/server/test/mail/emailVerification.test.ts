import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { decodeJwt } from 'jose';
import { call, latestMailTo, newUser, type TestUser } from '../pin/pinHelpers.js';

const decodeJti = (token: string) => String(decodeJwt(token).jti);

describe.each([{ postgres: false }, { postgres: true }])(
  'e-mail verification (postgres: $postgres)',
  (opts) => {
    let server: TestServer;
    beforeAll(async () => {
      const { postgresAvailable } = await import('../helpers/environment.js');
      if (opts.postgres && !postgresAvailable) return;
      server = await startTestServer(opts);
    });
    afterAll(() => server?.close());

    const send = (user: TestUser) =>
      call(server, '/v1/auth/email/send-code', { purpose: 'pin_recover' }, user.token);
    const verify = (user: TestUser, code: string) =>
      call<{ success: boolean; verification_token: string; expires_in: number; error?: string }>(
        server,
        '/v1/auth/email/verify',
        { purpose: 'pin_recover', code },
        user.token,
      );
    /** Pretends the last code was sent more than a minute ago (the resend interval). */
    const ageCodes = (user: TestUser, ms: number) =>
      server.services.database.db
        .updateTable('email_codes')
        .set((eb) => ({ created_at: eb('created_at', '-', ms) }))
        .where('user_uuid', '=', user.uuid)
        .execute();
    const codeIn = (text: string) => /code is (\d{6})/.exec(text)![1]!;
    const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

    it('mails a 6-digit code as an .eml file (0600) and exchanges it once for a verification token', async (ctx) => {
      if (!server) return ctx.skip();
      const user = await newUser(server, 'mail');
      const sent = await send(user);
      expect(sent).toEqual({ status: 200, body: { success: true, expires_in: 600 } });

      const mail = await latestMailTo(server, user.email);
      expect((await fs.stat(mail.file)).mode & 0o777).toBe(0o600);
      expect((await fs.stat(path.dirname(mail.file))).mode & 0o777).toBe(0o700);
      expect(mail.text).toMatch(/^From: dauth <no-reply@dauth\.local>$/m);
      expect(mail.text).toMatch(/^Subject: Your dauth verification code$/m);
      const code = codeIn(mail.text);
      expect(code).toMatch(/^\d{6}$/);
      // Only a keyed hash of the code is stored.
      const rows = await server.services.database.db
        .selectFrom('email_codes')
        .selectAll()
        .where('user_uuid', '=', user.uuid)
        .where('purpose', '=', 'pin_recover')
        .execute();
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows)).not.toContain(code);

      const wrong = await verify(user, wrongCode(code));
      expect(wrong.status).toBe(400);
      expect(wrong.body).toMatchObject({ error: 'invalid_code', attempts_remaining: 4 });

      const ok = await verify(user, code);
      expect(ok.status).toBe(200);
      expect(ok.body.expires_in).toBe(600);
      expect(ok.body.verification_token).toMatch(/^[A-Za-z0-9_-]{43}$/);

      // The code is used up, and the token is bound to its user and purpose and works once.
      expect((await verify(user, code)).body.error).toBe('code_expired');
      const other = await newUser(server, 'mail');
      await expect(
        server.services.emailVerification.consumeToken(other.uuid, 'pin_recover', ok.body.verification_token),
      ).rejects.toMatchObject({ status: 401, code: 'invalid_verification_token' });
      await server.services.emailVerification.consumeToken(
        user.uuid,
        'pin_recover',
        ok.body.verification_token,
      );
      await expect(
        server.services.emailVerification.consumeToken(user.uuid, 'pin_recover', ok.body.verification_token),
      ).rejects.toMatchObject({ status: 401, code: 'invalid_verification_token' });
    });

    it('limits resending (one a minute, five an hour), supersedes older codes, and expires codes after 10 minutes', async (ctx) => {
      if (!server) return ctx.skip();
      const user = await newUser(server, 'mail');
      expect((await send(user)).status).toBe(200);
      const first = codeIn((await latestMailTo(server, user.email)).text);
      const tooSoon = await fetch(`${server.url}/v1/auth/email/send-code`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${user.token}` },
        body: JSON.stringify({ purpose: 'pin_recover' }),
      });
      expect(tooSoon.status).toBe(429);
      expect(Number(tooSoon.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(((await tooSoon.json()) as { error: string }).error).toBe('rate_limited');

      await ageCodes(user, 61_000);
      expect((await send(user)).status).toBe(200);
      const second = codeIn((await latestMailTo(server, user.email)).text);
      // The first code no longer works once a newer one was sent (unless both happen to be equal).
      if (first !== second) expect((await verify(user, first)).body.error).toBe('invalid_code');

      // Expired after 10 minutes.
      await server.services.database.db
        .updateTable('email_codes')
        .set({ expires_at: Date.now() - 1 })
        .where('user_uuid', '=', user.uuid)
        .execute();
      expect((await verify(user, second)).body.error).toBe('code_expired');

      // Five codes an hour: three more (each a minute apart), then 429.
      for (let i = 0; i < 3; i++) {
        await ageCodes(user, 61_000);
        expect((await send(user)).status).toBe(200);
      }
      await ageCodes(user, 61_000);
      const sixth = await send(user);
      expect(sixth.status).toBe(429);
      expect(String(sixth.body.message)).toContain('hour');
    });

    it('allows 5 wrong guesses per code, even in parallel, then refuses the right one', async (ctx) => {
      if (!server) return ctx.skip();
      const user = await newUser(server, 'mail');
      expect((await send(user)).status).toBe(200);
      const code = codeIn((await latestMailTo(server, user.email)).text);
      const guesses = await Promise.all(Array.from({ length: 8 }, () => verify(user, wrongCode(code))));
      expect(guesses.filter((g) => g.status === 400 && g.body.error === 'invalid_code')).toHaveLength(5);
      expect(guesses.filter((g) => g.status === 429 && g.body.error === 'too_many_attempts')).toHaveLength(3);
      const right = await verify(user, code);
      expect(right.status).toBe(429);
      expect(right.body.error).toBe('too_many_attempts');
      const tokens = await server.services.database.db
        .selectFrom('verification_tokens')
        .select('token_hash')
        .where('user_uuid', '=', user.uuid)
        .where('purpose', '=', 'pin_recover')
        .execute();
      expect(tokens).toEqual([]);
    });

    it('a second holder of the user’s login (a relayed JWT) cannot supersede, burn or use up the user’s code', async (ctx) => {
      if (!server) return ctx.skip();
      const user = await newUser(server, 'mail');
      const relayed = {
        ...user,
        token: (await server.services.tokens.issueLoginToken(String(user.uuid))).token,
      };
      // The user asks for a code in their own session.
      expect((await send(user)).status).toBe(200);
      const code = codeIn((await latestMailTo(server, user.email)).text);

      // The hostile backend sends its own codes (superseding only its own), spams wrong guesses (against
      // its own code), and exhausts its hourly allowance.
      for (let i = 0; i < 5; i++) {
        expect((await send(relayed)).status).toBe(200);
        await server.services.database.db
          .updateTable('email_codes')
          .set((eb) => ({ created_at: eb('created_at', '-', 61_000) }))
          .where('user_uuid', '=', user.uuid)
          .where('session_id', '!=', decodeJti(user.token))
          .execute();
      }
      // Guessing without the user's code counts against its own code only.
      for (let i = 0; i < 6; i++) await verify(relayed, wrongCode(code));
      expect((await send(relayed)).status).toBe(429);

      // The user's code still works, in the user's session; their own allowance is intact.
      const ok = await verify(user, code);
      expect(ok.status).toBe(200);
      expect(ok.body.verification_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      await ageCodes(user, 61_000);
      expect((await send(user)).status).toBe(200);
    });

    it('validates purpose and code, and requires a login JWT', async (ctx) => {
      if (!server) return ctx.skip();
      const user = await newUser(server, 'mail');
      const badPurpose = await call(server, '/v1/auth/email/send-code', { purpose: 'other' }, user.token);
      expect(badPurpose.status).toBe(400);
      expect(badPurpose.body.field).toBe('purpose');
      const badCode = await call(
        server,
        '/v1/auth/email/verify',
        { purpose: 'pin_recover', code: '12345' },
        user.token,
      );
      expect(badCode.status).toBe(400);
      expect(badCode.body.field).toBe('code');
      expect((await call(server, '/v1/auth/email/send-code', { purpose: 'pin_recover' })).status).toBe(401);
      const rows = await server.services.database.db
        .selectFrom('email_codes')
        .select('id')
        .where('user_uuid', '=', user.uuid)
        .where('purpose', '=', 'pin_recover')
        .execute();
      expect(rows).toEqual([]);
    });
  },
);
