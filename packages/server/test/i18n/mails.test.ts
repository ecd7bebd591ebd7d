import { randomBytes } from 'node:crypto';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mailCatalogue from '../../src/i18n/catalogues/mail/index.js';
import { type Locale, SUPPORTED_LOCALES } from '../../src/i18n/locales.js';
import { translatorFor } from '../../src/i18n/translator.js';
import type { MailMessage, Mailer } from '../../src/services/mail/mailer.js';
import {
  AccountSecurityService,
  type SecurityChange,
} from '../../src/services/security/accountSecurityService.js';
import type { AccountSecurityStore } from '../../src/stores/accountSecurityStore.js';
import { bearer } from '../helpers/http.js';
import { mailsTo, type OutboxMail } from '../helpers/outbox.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Decisions §9 "Player-facing pages in the player's language", for mails (docs/account.md "Language"): every
 * mail is written in the recipient account's saved language — saved at sign-up from the page's or the
 * request's language (or the API's `locale`), changed with `PUT /v1/dev-user/account/locale` — and English
 * when it is unknown; an invitation to an address without an account is written in the inviter's.
 */

type MailKey = keyof (typeof mailCatalogue)['en'];
const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a brand new passphrase';

/** Literal runs of an ICU message (plural and select options and tags included), each trimmed. */
function literalRuns(elements: MessageFormatElement[], into: string[] = []): string[] {
  for (const element of elements) {
    if (element.type === TYPE.literal) into.push(element.value.trim());
    if (element.type === TYPE.tag) literalRuns(element.children, into);
    if (element.type === TYPE.plural || element.type === TYPE.select) {
      for (const option of Object.values(element.options)) literalRuns(option.value, into);
    }
  }
  return into;
}

/**
 * The English words of the mail catalogue left in a mail of `locale`: each English run longer than 3
 * characters of a message whose translation differs and does not itself contain that run (a brand name, the
 * French "minutes"), found in the mail's subject or body.
 */
function englishIn(mail: { subject: string; body: string }, locale: Locale): string[] {
  const english = mailCatalogue.en;
  const own = mailCatalogue[locale];
  const text = `${mail.subject}\n${mail.body}`;
  const found: string[] = [];
  for (const key of Object.keys(english) as MailKey[]) {
    if (english[key] === own[key]) continue;
    for (const run of literalRuns(parse(english[key]))) {
      if (run.length <= 3 || own[key].includes(run)) continue;
      // As words: "on dauth" is not in French "vérification dauth".
      const escaped = run.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      if (new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'u').test(text)) {
        found.push(`${key}: "${run}"`);
      }
    }
  }
  return found;
}

const t = (locale: Locale, key: MailKey, values?: Record<string, string | number | Date>) =>
  translatorFor(locale).t(key, values);

describe('mails in the account’s language (real server, outbox)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({
      env: {
        RATE_LIMITS: [
          'login_address=1000/1m',
          'login=1000/1m',
          'register=1000/1m',
          'password_reset=1000/1m',
          'account_locale=1000/1m',
          'orgs_manage=1000/1m',
          'org_invite=1000/1m',
          // A second wrong password already puts the account under guessing (its mail is one of the kinds).
          'login_account=2/15m',
        ].join(','),
      },
    });
  });
  afterAll(async () => server?.close());

  /** A fresh address, lower case as the service stores it (`pt-BR` in a label would not match its mail). */
  const newEmail = (label: string) => `${label}-${randomBytes(5).toString('hex')}@example.com`.toLowerCase();

  async function call(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }

  /** Signs up (`headers`: Accept-Language; `locale`: the API's field) and signs in: the uuid and a login JWT. */
  async function signUp(
    email: string,
    options: { headers?: Record<string, string>; locale?: string; clientId?: string } = {},
  ): Promise<{ uuid: string; token: string }> {
    const registered = await call(
      'POST',
      '/v1/dev-user/register',
      { email, password: PASSWORD, ...(options.locale !== undefined ? { locale: options.locale } : {}) },
      options.headers,
    );
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    return login(email, PASSWORD, options.clientId);
  }

  async function login(email: string, password: string, clientId?: string) {
    const res = await call('POST', '/v1/dev-user/login_devuser', {
      email,
      password,
      ...(clientId !== undefined ? { client_id: clientId } : {}),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { uuid: res.body.uuid as string, token: res.body.token as string };
  }

  /** The newest mail to `email` since `since` whose subject is `subject` (waits up to 10 s). */
  async function mailWithSubject(email: string, subject: string, since: number): Promise<OutboxMail> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const mail = mailsTo(server.dataDir, email).find((m) => m.at >= since && m.subject === subject);
      if (mail) return mail;
      if (Date.now() > deadline) {
        const seen = mailsTo(server.dataDir, email).map((m) => m.subject);
        throw new Error(`no mail "${subject}" to ${email}; seen: ${JSON.stringify(seen)}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** The 6- or 8-digit code of a mail: the digits on a line without a link. */
  const codeOf = (mail: OutboxMail, digits: 6 | 8): string => {
    const lines = mail.body.split('\n').filter((line) => !line.includes('http'));
    const code = new RegExp(`(?<!\\d)\\d{${digits}}(?!\\d)`).exec(lines.join('\n'))?.[0];
    expect(code, mail.body).toBeDefined();
    return code!;
  };

  const profileOf = async (email: string) => {
    const { token } = await login(email, PASSWORD, 'dauth:console');
    const res = await fetch(`${server.url}/v1/dev-user/account/export`, { headers: bearer(token) });
    expect(res.status).toBe(200);
    return ((await res.json()) as { profile: Record<string, unknown> }).profile;
  };

  it('an account that signs up with Accept-Language ja gets its verification mail in Japanese, its code intact', async () => {
    const email = newEmail('ja');
    const since = Date.now();
    const { token } = await signUp(email, { headers: { 'accept-language': 'ja-JP,ja;q=0.9,en;q=0.5' } });
    const mail = await mailWithSubject(email, t('ja', 'mail.address.subjectSignup'), since);
    expect(mail.subject).toBe('dauth のメールアドレスを確認してください');
    expect(mail.language).toBe('ja');
    expect(mail.body).toContain(t('ja', 'mail.address.intro'));
    expect(mail.body).toContain(t('ja', 'mail.address.validity', { hours: 24 }));
    expect(mail.body).toContain('24時間');
    expect(englishIn(mail, 'ja')).toEqual([]);
    // The code and the link survive the Japanese around them.
    expect(mail.body).toMatch(/\/v1\/dev-user\/verify-email\?token=[A-Za-z0-9_-]{43}\n/);
    const verified = await call(
      'POST',
      '/v1/dev-user/verify-email',
      { code: codeOf(mail, 6) },
      bearer(token),
    );
    expect(verified).toMatchObject({ status: 200, body: { success: true, email_verified: true } });
    expect(await profileOf(email)).toMatchObject({ email, locale: 'ja' });
  });

  it('an account that sets PUT /v1/dev-user/account/locale ar gets its reset mail in Arabic, and its code resets', async () => {
    const email = newEmail('ar');
    const { token } = await signUp(email);
    const set = await call('PUT', '/v1/dev-user/account/locale', { locale: 'ar' }, bearer(token));
    expect(set).toEqual({ status: 200, body: { success: true, locale: 'ar' } });

    const since = Date.now();
    expect((await call('POST', '/v1/dev-user/password/reset-request', { email })).status).toBe(200);
    const mail = await mailWithSubject(email, t('ar', 'mail.reset.subject'), since);
    expect(mail.subject).toBe('أعد تعيين كلمة مرور dauth');
    expect(mail.language).toBe('ar');
    expect(mail.body).toContain(t('ar', 'mail.reset.notYou'));
    // 30 minutes, Arabic plural ("many") and all.
    expect(mail.body).toContain(t('ar', 'mail.reset.enter', { minutes: 30 }));
    expect(englishIn(mail, 'ar')).toEqual([]);
    const reset = await call('POST', '/v1/dev-user/password/reset', {
      email,
      code: codeOf(mail, 8),
      new_password: NEW_PASSWORD,
    });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    expect((await call('POST', '/v1/dev-user/login_devuser', { email, password: NEW_PASSWORD })).status).toBe(
      200,
    );
  });

  it('an account whose language is unknown gets its mails in English (Node’s Accept-Language: * names none)', async () => {
    const email = newEmail('plain');
    const since = Date.now();
    await signUp(email);
    const signup = await mailWithSubject(email, 'Confirm your dauth e-mail address', since);
    expect(signup.language).toBe('en');
    expect(signup.body).toContain('Both work once, for 24 hours.');
    expect(await profileOf(email)).toMatchObject({ email, locale: null });

    const resetSince = Date.now();
    expect((await call('POST', '/v1/dev-user/password/reset-request', { email })).status).toBe(200);
    const reset = await mailWithSubject(email, 'Reset your dauth password', resetSince);
    expect(reset.body).toMatch(/^Your dauth password reset code is \d{8}\.$/m);
    expect(reset.body).toContain('Enter it within 30 minutes on the reset form, or open:');
  });

  it('an invitation is written in the invitee account’s language, and in the inviter’s for an address without an account', async () => {
    const inviter = await signUp(newEmail('inviter'), { headers: { 'accept-language': 'de-AT, en;q=0.2' } });
    const org = await call('POST', '/v1/orgs', { name: 'Sternenfabrik' }, bearer(inviter.token));
    expect(org.status).toBe(201);
    const orgId = org.body.id as string;

    const stranger = newEmail('stranger');
    let since = Date.now();
    const invited = await call(
      'POST',
      `/v1/orgs/${orgId}/invitations`,
      { email: stranger, role: 'developer' },
      bearer(inviter.token),
    );
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    const german = await mailWithSubject(stranger, 'Du bist zu Sternenfabrik auf dauth eingeladen', since);
    expect(german.language).toBe('de');
    expect(german.body).toContain(
      'Du bist eingeladen, der Organisation „Sternenfabrik“ auf dauth als Entwickler beizutreten.',
    );
    expect(englishIn(german, 'de')).toEqual([]);
    // The token stands alone on its line, as before.
    const token = /\/console\/invitations\?token=([A-Za-z0-9_-]+)/.exec(german.body)![1]!;
    expect(german.body.split('\n')).toContain(token);

    const korean = newEmail('korean');
    await signUp(korean, { locale: 'ko' });
    since = Date.now();
    expect(
      (
        await call(
          'POST',
          `/v1/orgs/${orgId}/invitations`,
          { email: korean, role: 'viewer' },
          bearer(inviter.token),
        )
      ).status,
    ).toBe(201);
    const mail = await mailWithSubject(
      korean,
      t('ko', 'mail.invite.subject', { org: 'Sternenfabrik' }),
      since,
    );
    expect(mail.body).toContain('뷰어로 참여하도록');
    expect(englishIn(mail, 'ko')).toEqual([]);
  });

  it('the security mail ("was this you") is written in the account’s language', async () => {
    const email = newEmail('fr');
    let since = Date.now();
    const { token } = await signUp(email, { headers: { 'accept-language': 'fr-CA' } });
    const signup = await mailWithSubject(email, t('fr', 'mail.address.subjectSignup'), since);
    since = Date.now();
    expect(
      (await call('POST', '/v1/dev-user/verify-email', { code: codeOf(signup, 6) }, bearer(token))).status,
    ).toBe(200);
    // The first proof of the mailbox: its own notice.
    await mailWithSubject(email, t('fr', 'mail.security.waysInRemoved.subject'), since);

    since = Date.now();
    const changed = await call(
      'POST',
      '/v1/dev-user/password',
      { current_password: PASSWORD, new_password: NEW_PASSWORD },
      { ...bearer(token), 'user-agent': 'Navigateur de test' },
    );
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const mail = await mailWithSubject(email, 'Votre mot de passe dauth a été modifié', since);
    expect(mail.language).toBe('fr');
    expect(mail.body).toContain(t('fr', 'mail.security.passwordChanged.body'));
    expect(mail.body).toContain('Réseau : 127.0.0.0/24');
    expect(mail.body).toContain('Appareil : Navigateur de test');
    // The date in French, in UTC: "Quand : 5 janv. 2026, 14:03:04 UTC".
    expect(mail.body).toMatch(/^Quand : \d{1,2} \S+ \d{4}, \d\d:\d\d:\d\d UTC$/m);
    expect(mail.body).toContain(t('fr', 'mail.security.linkValidity', { days: 7 }));
    expect(mail.body).toContain('pendant 7 jours');
    expect(mail.body).toMatch(/\/account\/secure\?token=[A-Za-z0-9_-]{43}\n/);
    expect(englishIn(mail, 'fr')).toEqual([]);
  });

  it('a guest keeps the language of its creation request', async () => {
    const owner = await signUp(newEmail('studio'));
    const client = await call(
      'POST',
      '/v1/dev-user/clients',
      { name: 'Game', redirect_uris: ['https://game.example/cb'] },
      bearer(owner.token),
    );
    expect(client.status).toBe(201);
    const guest = await call(
      'POST',
      '/v1/dev-user/guest',
      { client_id: client.body.client_id },
      { 'accept-language': 'pt-PT,pt;q=0.8' },
    );
    expect(guest.status).toBe(201);
    expect((await server.services.users.findById(Number(guest.body.uuid)))?.locale).toBe('pt-BR');
  });

  it('an unsupported locale is a 400 that changes nothing, on the locale route and at sign-up', async () => {
    const email = newEmail('strict');
    const { token } = await signUp(email, { locale: 'ru' });
    for (const locale of ['xx', 'ja-JP', 'EN', '']) {
      const refused = await call('PUT', '/v1/dev-user/account/locale', { locale }, bearer(token));
      expect(refused.status, locale).toBe(400);
      expect(refused.body).toMatchObject({ error: 'invalid_request', field: 'locale' });
    }
    expect((await call('PUT', '/v1/dev-user/account/locale', { locale: 'de' })).status).toBe(401);
    expect(await profileOf(email)).toMatchObject({ locale: 'ru' });

    const refusedSignup = newEmail('refused');
    const res = await call('POST', '/v1/dev-user/register', {
      email: refusedSignup,
      password: PASSWORD,
      locale: 'tlh',
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_request', field: 'locale' });
    expect(mailsTo(server.dataDir, refusedSignup)).toEqual([]);
    // Nothing was created: the address is still free.
    expect(
      (await call('POST', '/v1/dev-user/register', { email: refusedSignup, password: PASSWORD })).status,
    ).toBe(201);
  });

  it('both discovery documents list ui_locales_supported: the ten languages', async () => {
    for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
      const doc = (await (await fetch(`${server.url}${path}`)).json()) as Record<string, unknown>;
      expect(doc.ui_locales_supported, path).toEqual([
        'en',
        'es',
        'pt-BR',
        'fr',
        'de',
        'ja',
        'ko',
        'zh-Hans',
        'ru',
        'ar',
      ]);
    }
  });

  it.each(SUPPORTED_LOCALES.filter((locale) => locale !== 'en'))(
    'in %s, every kind of mail has no English message of the mail catalogue',
    async (locale) => {
      const email = newEmail(`all-${locale}`);
      let since = Date.now();
      const { token } = await signUp(email, { locale });
      const mails: OutboxMail[] = [];

      // The sign-up mail, then the sensitive-action code.
      const signup = await mailWithSubject(email, t(locale, 'mail.address.subjectSignup'), since);
      mails.push(signup);
      since = Date.now();
      expect(
        (await call('POST', '/v1/auth/email/send-code', { purpose: 'pin_recover' }, bearer(token))).status,
      ).toBe(200);
      mails.push(await mailWithSubject(email, t(locale, 'mail.code.subject'), since));

      // The address verified: the first mailbox proof's notice.
      since = Date.now();
      const verified = await call(
        'POST',
        '/v1/dev-user/verify-email',
        { code: codeOf(signup, 6) },
        bearer(token),
      );
      expect(verified.status).toBe(200);
      mails.push(await mailWithSubject(email, t(locale, 'mail.security.waysInRemoved.subject'), since));

      // An invitation to an address without an account: the inviter's language.
      const org = await call('POST', '/v1/orgs', { name: `Org ${locale}` }, bearer(token));
      expect(org.status).toBe(201);
      const invitee = newEmail(`invitee-${locale}`);
      since = Date.now();
      const invited = await call(
        'POST',
        `/v1/orgs/${org.body.id as string}/invitations`,
        { email: invitee, role: 'admin' },
        bearer(token),
      );
      expect(invited.status).toBe(201);
      mails.push(
        await mailWithSubject(invitee, t(locale, 'mail.invite.subject', { org: `Org ${locale}` }), since),
      );

      // Password reset, then a security notice (the password changed).
      since = Date.now();
      expect((await call('POST', '/v1/dev-user/password/reset-request', { email })).status).toBe(200);
      mails.push(await mailWithSubject(email, t(locale, 'mail.reset.subject'), since));
      since = Date.now();
      const changed = await call(
        'POST',
        '/v1/dev-user/password',
        { current_password: PASSWORD, new_password: NEW_PASSWORD },
        bearer(token),
      );
      expect(changed.status).toBe(200);
      mails.push(await mailWithSubject(email, t(locale, 'mail.security.passwordChanged.subject'), since));

      // Wrong passwords until the account is under guessing: its owner is mailed a sign-in code.
      since = Date.now();
      let refused = false;
      for (let i = 0; i < 6 && !refused; i++) {
        const res = await call('POST', '/v1/dev-user/login_devuser', { email, password: 'not the password' });
        refused = res.body.error === 'challenge_required';
      }
      expect(refused).toBe(true);
      const guessing = await mailWithSubject(email, t(locale, 'mail.guessing.subject'), since);
      expect(codeOf(guessing, 8)).toMatch(/^\d{8}$/);
      mails.push(guessing);

      for (const mail of mails) {
        expect(mail.language, mail.subject).toBe(locale);
        expect(englishIn(mail, locale), mail.subject).toEqual([]);
        expect(mail.body, mail.subject).not.toContain(mailCatalogue.en['mail.unknown']);
      }
    },
    60_000,
  );
});

describe('the English detector', () => {
  it('finds an English message in a translated mail, as words only', () => {
    expect(
      englishIn(
        { subject: 'Reset your dauth password', body: 'パスワード: Your dauth password reset code is 1.' },
        'ja',
      ),
    ).toEqual([
      'mail.reset.subject: "Reset your dauth password"',
      'mail.reset.code: "Your dauth password reset code is"',
      // A run of a message's own ("Your {provider} account…"): English all the same.
      'mail.security.identityLinked.body: "Your"',
    ]);
    expect(
      englishIn(
        { subject: t('fr', 'mail.code.subject'), body: t('fr', 'mail.code.code', { code: '1' }) },
        'fr',
      ),
    ).toEqual([]);
  });
});

describe('security notices: every change in every language', () => {
  /** A security service whose account speaks `locale` and whose mailer keeps what it is given. */
  function serviceIn(locale: Locale) {
    const sent: MailMessage[] = [];
    const mailer: Mailer = {
      send: async (message) => void sent.push(message),
      close: async () => undefined,
    };
    const store = { insertLink: async () => undefined } as unknown as AccountSecurityStore;
    const service = new AccountSecurityService(
      store,
      {
        findUser: async () => ({ email: 'player@example.com', locale }),
        emailVerified: async () => true,
      },
      { revokeAppGrants: async () => undefined, sweepSessionKeys: () => undefined },
      mailer,
      Buffer.alloc(32, 7),
      'https://auth.example',
      pino({ level: 'silent' }),
      () => Date.UTC(2026, 0, 5, 14, 3, 4),
    );
    return { service, sent };
  }

  const added = Date.UTC(2025, 11, 24, 9, 30, 0);
  const changes: SecurityChange[] = [
    { kind: 'passkey_added', passkeyId: 'pk_0123456789abcdefXYZ' },
    { kind: 'passkey_removed', passkeyId: 'pk_0123456789abcdefXYZ' },
    { kind: 'identity_linked', provider: 'Steam' },
    { kind: 'identity_unlinked', identityId: 'fid_1' },
    { kind: 'guest_upgraded' },
    { kind: 'password_changed' },
    { kind: 'password_reset' },
    { kind: 'session_key_granted', clientId: 'space-game' },
    { kind: 'totp_enabled' },
    { kind: 'totp_removed' },
    {
      kind: 'ways_in_removed',
      removed: {
        passkeys: [{ id: 'pk_squatter_0123456789', createdAt: added }],
        identities: [
          { id: 'fid_2', provider: 'discord', displayName: 'Squatter', createdAt: added },
          { id: 'fid_3', provider: 'steam', displayName: null, createdAt: added },
        ],
        guestSecret: true,
        totp: true,
      },
    },
    { kind: 'ways_in_removed', removed: { passkeys: [], identities: [], guestSecret: false, totp: false } },
  ];

  it.each(SUPPORTED_LOCALES)(
    '%s: each notice is in the language, with its link, values and UTC date',
    async (locale) => {
      const { service, sent } = serviceIn(locale);
      for (const change of changes) {
        service.notify(1, change, { ip: '198.51.100.7', userAgent: 'Firefox' });
      }
      for (let i = 0; i < 100 && sent.length < changes.length; i++)
        await new Promise((r) => setTimeout(r, 10));
      expect(sent).toHaveLength(changes.length);
      // Each change has a subject of its own.
      expect(new Set(sent.map((m) => m.subject)).size).toBe(changes.length - 1);
      for (const mail of sent) {
        const body = mail.text;
        expect(mail.language).toBe(locale);
        expect(body).toContain(t(locale, 'mail.security.notYou'));
        expect(body).toContain(t(locale, 'mail.when', { at: new Date(Date.UTC(2026, 0, 5, 14, 3, 4)) }));
        expect(body).toContain(t(locale, 'mail.network', { network: '198.51.100.0/24' }));
        expect(body).toMatch(/^https:\/\/auth\.example\/account\/secure\?token=[A-Za-z0-9_-]{43}$/m);
        if (locale !== 'en')
          expect(englishIn({ subject: mail.subject, body }, locale), mail.subject).toEqual([]);
      }
      const purge = sent.find(
        (m) => m.subject === t(locale, 'mail.security.waysInRemoved.subject') && m.text.includes('Squatter'),
      )!;
      expect(purge.text).toContain(
        `- ${t(locale, 'mail.security.removed.passkey', { credential: 'pk_squatter_0123', added: new Date(added) })}`,
      );
      expect(purge.text).toContain(
        `- ${t(locale, 'mail.security.removed.namedIdentity', { provider: 'discord', name: 'Squatter', added: new Date(added) })}`,
      );
      expect(purge.text).toContain(`- ${t(locale, 'mail.security.removed.totp')}`);
      expect(sent.at(-1)!.text).toContain(t(locale, 'mail.security.waysInRemoved.nothing'));
      if (locale === 'en') {
        expect(purge.text).toContain(
          '- a passkey (credential pk_squatter_0123…, added Dec 24, 2025, 9:30:00',
        );
        expect(sent[0]!.text).toContain('When: Jan 5, 2026, 2:03:04');
      }
    },
  );
});
