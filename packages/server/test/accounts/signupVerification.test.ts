import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call, latestMailTo, newUser, type TestUser } from '../pin/pinHelpers.js';

/** The body of an outbox .eml, quoted-printable decoded (soft line breaks joined, `=XX` bytes restored). */
function mailBody(eml: string): string {
  const body = eml.slice(eml.search(/\r?\n\r?\n/)).trim();
  return body
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

interface SignupMail {
  subject: string;
  code: string;
  link: string;
  token: string;
}

/**
 * Decisions §8: sign-up mails a verification link and a 6-digit code; `POST /v1/dev-user/verify-email`
 * takes the code with the account's login JWT; the link's page verifies by its token when its button is
 * pressed (opening it changes nothing). Codes and links are single-use, expire, and a code allows five guesses.
 */
describe('sign-up e-mail verification', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  const signupMail = async (user: TestUser): Promise<SignupMail> => {
    const { text } = await latestMailTo(server, user.email);
    const body = mailBody(text);
    const link = /(https?:\/\/\S+\/v1\/dev-user\/verify-email\?token=([A-Za-z0-9_-]+))/.exec(body);
    return {
      subject: /^Subject: (.*)$/m.exec(text)![1]!,
      code: /enter the code (\d{6})/.exec(body)![1]!,
      link: link![1]!,
      token: link![2]!,
    };
  };
  const verifyCode = (user: TestUser, code: string) =>
    call<{ success: boolean; email_verified?: boolean; error?: string; attempts_remaining?: number }>(
      server,
      '/v1/dev-user/verify-email',
      { code },
      user.token,
    );
  const resend = (user: TestUser) =>
    call<{ success: boolean; expires_in?: number; error?: string }>(
      server,
      '/v1/dev-user/verify-email/resend',
      {},
      user.token,
    );
  const verified = (user: TestUser) => server.services.users.emailVerified(user.uuid);
  const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');
  /** Pretends the last mail was sent more than a minute ago (the resend interval). */
  const ageMails = (user: TestUser) =>
    server.services.database.db
      .updateTable('email_codes')
      .set((eb) => ({ created_at: eb('created_at', '-', 61_000) }))
      .where('user_uuid', '=', user.uuid)
      .execute();

  it('writes a verification mail with a link and a 6-digit code at sign-up; only their hashes are stored', async () => {
    const user = await newUser(server, 'signup');
    const mail = await signupMail(user);
    expect(mail.subject).toBe('Confirm your dauth e-mail address');
    expect(mail.code).toMatch(/^\d{6}$/);
    expect(mail.link).toBe(`${server.url}/v1/dev-user/verify-email?token=${mail.token}`);
    expect(mail.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await verified(user)).toBe(false);

    const db = server.services.database.db;
    const stored = JSON.stringify([
      await db.selectFrom('email_codes').selectAll().where('user_uuid', '=', user.uuid).execute(),
      await db.selectFrom('verification_tokens').selectAll().where('user_uuid', '=', user.uuid).execute(),
    ]);
    expect(stored).toContain('email_address');
    expect(stored).not.toContain(mail.code);
    expect(stored).not.toContain(mail.token);
  });

  it('an unverified account signs in and works', async () => {
    const user = await newUser(server, 'signup');
    const apps = await fetch(`${server.url}/v1/dev-user/clients`, {
      headers: { authorization: `Bearer ${user.token}` },
    });
    expect(apps.status).toBe(200);
    expect(await verified(user)).toBe(false);
  });

  it('refuses a wrong code, counts the guesses, and a right code verifies once', async () => {
    const user = await newUser(server, 'signup');
    // The link of the same mail (read now: a first verification is followed by the mail saying what it removed).
    const { code, token } = await signupMail(user);

    expect(await verifyCode(user, wrong(code))).toEqual({
      status: 400,
      body: expect.objectContaining({ error: 'invalid_code', attempts_remaining: 4 }),
    });
    expect(await verified(user)).toBe(false);
    const ok = await verifyCode(user, code);
    expect(ok).toEqual({ status: 200, body: { success: true, email_verified: true } });
    expect(await verified(user)).toBe(true);
    // The code is used up, and the link of the same mail died with it.
    expect((await verifyCode(user, code)).body.error).toBe('code_expired');
    expect((await fetch(`${server.url}/v1/dev-user/verify-email?token=${token}`)).status).toBe(400);
    // Nothing more to verify.
    expect(await resend(user)).toMatchObject({ status: 409, body: { error: 'email_already_verified' } });
  });

  it('allows five guesses per code: then even the right code is refused until a new one is mailed', async () => {
    const user = await newUser(server, 'signup');
    const { code } = await signupMail(user);
    for (let left = 4; left >= 0; left--) {
      expect((await verifyCode(user, wrong(code))).body).toMatchObject({
        error: 'invalid_code',
        attempts_remaining: left,
      });
    }
    expect(await verifyCode(user, code)).toMatchObject({ status: 429, body: { error: 'too_many_attempts' } });
    expect(await verified(user)).toBe(false);

    // A resend mails a new code (the old one stays dead); at most one a minute, sign-up's mail included.
    expect(await resend(user)).toMatchObject({ status: 429, body: { error: 'rate_limited' } });
    await ageMails(user);
    const again = await resend(user);
    expect(again).toEqual({ status: 200, body: { success: true, expires_in: 86_400 } });
    expect(await resend(user)).toMatchObject({ status: 429, body: { error: 'rate_limited' } });
    const fresh = await signupMail(user);
    expect(fresh.subject).toBe('Your dauth e-mail verification code');
    expect((await verifyCode(user, code)).status).toBeGreaterThanOrEqual(400);
    expect(await verifyCode(user, fresh.code)).toMatchObject({ status: 200 });
    expect(await verified(user)).toBe(true);
  });

  /** The confirm page's form, as a browser posts it (`Origin` is the page's own unless given). */
  const confirmLink = (token: string, origin = new URL(server.url).origin) =>
    fetch(`${server.url}/v1/dev-user/verify-email/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', origin },
      body: new URLSearchParams({ token }).toString(),
    });

  it('the link verifies once, by its unguessable token, without a login', async () => {
    const user = await newUser(server, 'signup');
    const { link, token } = await signupMail(user);

    const bogus = await fetch(`${server.url}/v1/dev-user/verify-email?token=${'A'.repeat(43)}`);
    expect(bogus.status).toBe(400);
    expect(await bogus.text()).toContain('This link does not work');
    expect((await confirmLink('A'.repeat(43))).status).toBe(400);
    expect(await verified(user)).toBe(false);

    const opened = await fetch(link);
    expect(opened.status).toBe(200);
    expect(opened.headers.get('content-type')).toMatch(/^text\/html/);
    expect(opened.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(opened.headers.get('content-security-policy')).toContain("form-action 'self'");
    // same-origin: the confirm form's POST carries our Origin (under no-referrer a browser sends `null`,
    // which the POST refuses); the token in this page's address still goes to no other origin.
    expect(opened.headers.get('referrer-policy')).toBe('same-origin');
    expect(await opened.text()).toContain('<form method="post" action="/v1/dev-user/verify-email/confirm">');

    const confirmed = await confirmLink(token);
    expect(confirmed.status).toBe(200);
    expect(confirmed.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await confirmed.text()).toContain('E-mail address verified');
    expect(await verified(user)).toBe(true);

    expect((await confirmLink(token)).status).toBe(400);
    expect((await fetch(link)).status).toBe(400);
  });

  it('opening the link changes nothing (mail scanners open links): only its page’s button verifies, from dauth’s own origin', async () => {
    const user = await newUser(server, 'signup');
    const { link, token } = await signupMail(user);
    // A scanner fetches the link, twice, as it pleases.
    expect((await fetch(link)).status).toBe(200);
    expect((await fetch(link, { method: 'HEAD' })).status).toBe(200);
    expect(await verified(user)).toBe(false);

    // A form on another site cannot post it for the owner.
    const foreign = await confirmLink(token, 'https://evil.example');
    expect(foreign.status).toBe(403);
    expect(await verified(user)).toBe(false);
    const json = await fetch(`${server.url}/v1/dev-user/verify-email/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
      body: JSON.stringify({ token }),
    });
    expect(await json.json()).toMatchObject({ success: false, error: 'invalid_origin' });

    // The code-based route is unchanged: the link's token is no code.
    expect((await call(server, '/v1/dev-user/verify-email', { token }, user.token)).status).toBe(400);
    expect((await confirmLink(token)).status).toBe(200);
    expect(await verified(user)).toBe(true);
  });

  it('caps resends at five an hour, and an expired code no longer verifies', async () => {
    const user = await newUser(server, 'signup');
    const first = await signupMail(user);
    for (let i = 0; i < 4; i++) {
      await ageMails(user);
      expect((await resend(user)).status).toBe(200);
    }
    await ageMails(user);
    expect(await resend(user)).toMatchObject({ status: 429, body: { error: 'rate_limited' } });
    // Superseded by the resends.
    expect((await verifyCode(user, first.code)).status).toBe(400);

    const last = await signupMail(user);
    await server.services.database.db
      .updateTable('email_codes')
      .set({ expires_at: Date.now() - 1 })
      .where('user_uuid', '=', user.uuid)
      .execute();
    expect(await verifyCode(user, last.code)).toMatchObject({ status: 400, body: { error: 'code_expired' } });
    expect(await verified(user)).toBe(false);
  });

  it('refuses a malformed code and a code without a login JWT', async () => {
    const user = await newUser(server, 'signup');
    expect((await verifyCode(user, '12345')).status).toBe(400);
    const anonymous = await call(server, '/v1/dev-user/verify-email', { code: '123456' });
    expect(anonymous.status).toBe(401);
  });
});
