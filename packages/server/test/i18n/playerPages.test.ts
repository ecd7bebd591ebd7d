import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUES, type MessageKey, NAMESPACES } from '../../src/i18n/catalogues/index.js';
import { type Locale, SUPPORTED_LOCALES } from '../../src/i18n/locales.js';
import { translatorFor } from '../../src/i18n/translator.js';
import { bearer, createUser, post, type TestClient, type TestUser } from '../helpers/http.js';
import { waitForMail } from '../helpers/outbox.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createOidcClient } from '../oidc/support.js';

/**
 * The consent, device, account-link and error pages in the player's language (decisions §9, issue 41), over
 * real HTTP: for each of the ten locales, `<html lang dir>` and no English sentence of these pages'
 * catalogues (`consent`, `device`, `account`, `errors`) left in the page. The locale comes from the flow's
 * `ui_locales` (device page), `Accept-Language` (consent, error, mailed-link pages) or the `dauth_locale`
 * cookie.
 */
const OWN_NAMESPACES = ['consent', 'device', 'account', 'errors'] as const;
const REDIRECT_URI = 'http://127.0.0.1:9/callback';
const GAME_CONTRACT = '0x00000000000000000000000000000000000000Bb';

/** The literal text of an ICU message: what a page shows of it whatever the values. */
function literals(elements: MessageFormatElement[], into: string[] = []): string[] {
  for (const element of elements) {
    if (element.type === TYPE.literal) into.push(element.value);
    if (element.type === TYPE.tag) literals(element.children, into);
    if (element.type === TYPE.plural || element.type === TYPE.select) {
      for (const option of Object.values(element.options)) literals(option.value, into);
    }
  }
  return into;
}

/**
 * The English text of our namespaces a page in `locale` must not show: each literal run of an English
 * message longer than 3 characters that its translation does not contain ("Code" stays "Code" in German).
 */
function englishOf(locale: Locale): string[] {
  const own = CATALOGUES[locale];
  const english = new Set<string>();
  for (const namespace of OWN_NAMESPACES) {
    for (const [key, message] of Object.entries(NAMESPACES[namespace].en)) {
      for (const run of literals(parse(message))) {
        const text = run.trim();
        if (text.length > 3 && !own[key as MessageKey].includes(text)) english.add(text);
      }
    }
  }
  return [...english];
}

const unescapeHtml = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The page is in `locale`: its `<html>` says so (right to left for Arabic) and no English of ours is left. */
function expectInLocale(page: string, locale: Locale, title: MessageKey): void {
  const dir = locale === 'ar' ? 'rtl' : 'ltr';
  expect(page).toContain(`<html lang="${locale}" dir="${dir}">`);
  const text = unescapeHtml(page);
  expect(text).toContain(`<title>${translatorFor(locale).t(title)} · dauth</title>`);
  const leaks = englishOf(locale).filter((english) => text.includes(english));
  expect(leaks, `English left in the ${locale} page`).toEqual([]);
}

const hiddenField = (page: string, name: string) =>
  new RegExp(`<input type="hidden" name="${name}" value="([^"]*)"`).exec(page)?.[1];

/** A browser reduced to a cookie jar; every request may carry its own headers (Accept-Language, Accept). */
class Browser {
  readonly cookies = new Map<string, string>();

  constructor(private readonly base: string) {}

  async send(path: string, init: RequestInit & { headers?: Record<string, string> } = {}) {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(new URL(path, this.base), {
      ...init,
      redirect: 'manual',
      headers: { ...init.headers, ...(cookie ? { cookie } : {}) },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    return res;
  }

  get(path: string, headers: Record<string, string> = {}) {
    return this.send(path, { headers });
  }

  postForm(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
    return this.send(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  }
}

describe('the catalogues of these pages', () => {
  /** Messages that are the same words in English and the locale: "Code" in French and German, "Error" in Spanish. */
  const SAME_AS_ENGLISH: ReadonlySet<string> = new Set([
    'fr device.code.label',
    'de device.code.label',
    'es errors.technical',
  ]);

  it.each(SUPPORTED_LOCALES.filter((locale) => locale !== 'en'))(
    '%s translates every message (no English copied in)',
    (locale) => {
      const copied = OWN_NAMESPACES.flatMap((namespace) =>
        Object.entries(NAMESPACES[namespace].en)
          .filter(([key, english]) => CATALOGUES[locale][key as MessageKey] === english)
          .map(([key]) => `${locale} ${key}`),
      );
      expect(copied.filter((entry) => !SAME_AS_ENGLISH.has(entry))).toEqual([]);
    },
  );
});

describe('consent, device, account-link and error pages in ten languages', () => {
  let server: TestServer;
  let player: TestUser;
  let app: TestClient;
  /** The player's browser, signed in on the device page (its session also serves the consent page). */
  let browser: Browser;

  const startDevice = async () => {
    const res = await post(`${server.url}/oauth/device_authorization`, {
      client_id: app.clientId,
      client_secret: app.clientSecret,
      scope: 'openid email profile',
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { user_code: string }).user_code;
  };

  beforeAll(async () => {
    server = await startTestServer();
    const dev = await createUser(server.url);
    player = await createUser(server.url);
    app = await createOidcClient(server.url, dev, [REDIRECT_URI], { name: 'Space Game' });
    // A wallet policy, so the consent page words one (a value cap with a per-call cap, two functions).
    const policy = await fetch(`${server.url}/v1/dev-user/clients/${app.clientId}/wallet-policy`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', ...bearer(dev.loginToken) },
      body: JSON.stringify({
        calls: [{ to: GAME_CONTRACT, selectors: ['0x12345678', '0x9abcdef0'] }],
        max_value_per_call_wei: '10000000000000000',
        max_value_per_day_wei: '1500000000000000000',
        token_limits: [],
        valid_for_seconds: 3 * 86_400,
      }),
    });
    expect(policy.status).toBe(200);
    browser = new Browser(server.url);
  });
  afterAll(() => server?.close());

  describe('the device page keeps the flow’s ui_locales', () => {
    it('GET /device passes ui_locales on; sign-in (a wrong password first) stays in that language', async () => {
      const userCode = await startDevice();
      const start = await browser.get(`/device?user_code=${userCode}&ui_locales=ja`);
      expect(start.status).toBe(302);
      expect(start.headers.get('location')).toBe(`/oauth/device?user_code=${userCode}&ui_locales=ja`);

      const login = await browser.get(start.headers.get('location')!);
      expect(login.status).toBe(200);
      const loginPage = await login.text();
      expectInLocale(loginPage, 'ja', 'device.title');
      expect(loginPage).toContain(translatorFor('ja').t('device.login.intro'));
      expect(hiddenField(loginPage, 'ui_locales')).toBe('ja');
      // The switcher returns to the page with its code and language (the switch replaces ui_locales).
      expect(loginPage).toContain(
        `name="return_to" value="/oauth/device?user_code=${userCode}&amp;ui_locales=ja"`,
      );

      const form = {
        csrf_token: hiddenField(loginPage, 'csrf_token')!,
        user_code: userCode,
        ui_locales: 'ja',
        email: player.email,
        password: 'not the password',
      };
      const wrong = await browser.postForm('/oauth/device/login', form);
      expect(wrong.status).toBe(401);
      const wrongPage = await wrong.text();
      expectInLocale(wrongPage, 'ja', 'device.title');
      // The error, announced and tied to the form it is about.
      expect(wrongPage).toContain(
        `<div class="error" id="login-error" role="alert">${translatorFor('ja').t('device.login.wrongPassword')}</div>`,
      );
      expect(wrongPage).toContain('aria-describedby="login-error"');
      expect(hiddenField(wrongPage, 'ui_locales')).toBe('ja');

      const right = await browser.postForm('/oauth/device/login', {
        ...form,
        csrf_token: hiddenField(wrongPage, 'csrf_token')!,
        password: player.password,
      });
      expect(right.status).toBe(303);
      expect(right.headers.get('location')).toBe(`/oauth/device?user_code=${userCode}&ui_locales=ja`);
    });

    it.each(SUPPORTED_LOCALES)('%s: the confirmation after a device authorization', async (locale) => {
      const userCode = await startDevice();
      const start = await browser.get(
        `/device?${new URLSearchParams({ user_code: userCode, ui_locales: locale })}`,
      );
      const res = await browser.get(start.headers.get('location')!);
      expect(res.status).toBe(200);
      const page = await res.text();
      expectInLocale(page, locale, 'device.title');
      const tr = translatorFor(locale);
      const text = unescapeHtml(page);
      // The code to check, the app and what it receives as the locale lists them.
      expect(page).toContain(`<strong id="shown-code"><bdi>${userCode}</bdi></strong>`);
      expect(text).toContain(tr.t('consent.item.email'));
      expect(text).toContain(tr.t('consent.item.name'));
      expect(page).toContain(`<button type="submit" name="decision" value="allow" id="allow">`);
      expect(text).toContain(tr.t('device.confirm.allow'));
      expect(hiddenField(page, 'ui_locales')).toBe(locale);
    });

    it('a wrong code says so in the flow’s language, tied to the field; the decision page too', async () => {
      const wrong = await browser.get('/oauth/device?user_code=BCDF-GHJK&ui_locales=ru');
      expect(wrong.status).toBe(400);
      const page = await wrong.text();
      expectInLocale(page, 'ru', 'device.title');
      expect(page).toContain(
        `<div class="error" id="user-code-error" role="alert">${translatorFor('ru').t('device.code.wrong')}</div>`,
      );
      expect(page).toContain('aria-describedby="user-code-help user-code-error"');
      expect(page).toContain('<label for="user_code">Код</label>');
      // The switcher goes back to the empty form: switching must not submit the wrong code again.
      expect(page).toContain('name="return_to" value="/oauth/device?ui_locales=ru"');

      const userCode = await startDevice();
      const confirm = await (await browser.get(`/oauth/device?user_code=${userCode}&ui_locales=ar`)).text();
      const denied = await browser.postForm('/oauth/device/decision', {
        csrf_token: hiddenField(confirm, 'csrf_token')!,
        user_code: userCode,
        ui_locales: 'ar',
        decision: 'deny',
      });
      expect(denied.status).toBe(200);
      const done = await denied.text();
      expectInLocale(done, 'ar', 'device.title');
      expect(done).toContain(`<h1 id="done">${translatorFor('ar').t('device.done.denied')}</h1>`);
      // A POST's answer: no switcher (its GET address would show the code as used).
      expect(done).not.toContain('id="language-switcher"');
    });
  });

  describe('the consent page', () => {
    it.each(SUPPORTED_LOCALES)('%s: what the app receives and its wallet policy', async (locale) => {
      const query = new URLSearchParams({
        client_id: app.clientId,
        redirect_uri: REDIRECT_URI,
        response_type: 'code',
        scope: 'openid email profile',
        state: 's',
        ui_locales: locale,
      });
      const res = await browser.get(`/oauth/authorize?${query}`, { 'accept-language': locale });
      expect(res.status).toBe(200);
      const page = await res.text();
      expectInLocale(page, locale, 'consent.title');
      const tr = translatorFor(locale);
      const text = unescapeHtml(page);
      const list = new Intl.ListFormat(locale, { type: 'conjunction' });
      const items = list.format([
        tr.t('consent.item.userId'),
        tr.t('consent.item.email'),
        tr.t('consent.item.name'),
        tr.t('consent.item.tokens'),
      ]);
      expect(text).toContain(items);
      expect(page).toContain('<span class="app"><bdi>Space Game</bdi></span>');
      // The policy's terms: ICU numbers and dates in the locale, the plural of "2 functions".
      expect(page).toContain('id="wallet-policy"');
      const until = new Date(Date.now() + 3 * 86_400_000);
      const day = new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'short', day: 'numeric' }).format(
        until,
      );
      expect(text).toContain(day);
      expect(text).toContain(tr.t('consent.policy.contractFunctions', { count: 2, contract: '0x0000…00bb' }));
      expect(text).toContain(tr.t('consent.policy.revocable'));
      expect(page).toContain('id="language-switcher"');
    });

    it('English by default: the sentence as before, an Oxford list and the policy in words', async () => {
      const query = new URLSearchParams({
        client_id: app.clientId,
        redirect_uri: REDIRECT_URI,
        response_type: 'code',
        scope: 'openid email',
        state: 's',
      });
      const page = unescapeHtml(await (await browser.get(`/oauth/authorize?${query}`)).text()).replace(
        /\s+/g,
        ' ',
      );
      expect(page).toContain('<html lang="en" dir="ltr">');
      expect(page).toContain(
        'asks to use your dauth account: it will receive your user id, your e-mail address, and tokens to act for you with this app.',
      );
      expect(page).toMatch(
        /may send up to 1\.5 ETH a day \(at most 0\.01 ETH at a time\) from your wallet until/,
      );
      expect(page).toContain('may call 2 functions of 0x0000…00bb from your wallet until');
    });
  });

  describe('the error page', () => {
    it.each(SUPPORTED_LOCALES)(
      '%s: a bad redirect_uri, explained; the API message only on the technical line',
      async (locale) => {
        const query = new URLSearchParams({
          client_id: app.clientId,
          redirect_uri: 'https://evil.example/steal',
          response_type: 'code',
          ui_locales: locale,
        });
        const res = await fetch(`${server.url}/oauth/authorize?${query}`, {
          headers: { accept: 'text/html', 'accept-language': locale },
          redirect: 'manual',
        });
        expect(res.status).toBe(401);
        const page = await res.text();
        expectInLocale(page, locale, 'errors.title');
        const tr = translatorFor(locale);
        expect(page).toContain(`<h1>${tr.t('errors.heading')}</h1>`);
        expect(unescapeHtml(page)).toContain(tr.t('errors.explanation.redirectUriMismatch'));
        expect(unescapeHtml(page)).toContain(
          `<p class="origin" id="error-code">${tr.t('errors.technical', {
            status: '401',
            code: 'redirect_uri_mismatch',
            message: 'redirect_uri mismatch',
          })}</p>`,
        );
        // No switcher: it would reflect the failed request (its unregistered redirect_uri) in its return_to.
        expect(page).not.toContain('id="language-switcher"');
        expect(page).not.toContain('evil.example');
      },
    );

    it('the dauth_locale cookie chooses when the request names no language; an unlisted code gets the general words', async () => {
      const res = await fetch(
        `${server.url}/oauth/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri: 'x', response_type: 'code' })}`,
        { headers: { accept: 'text/html', cookie: 'dauth_locale=ko', 'accept-language': 'de' } },
      );
      const page = await res.text();
      expectInLocale(page, 'ko', 'errors.title');
      expect(page).toContain(translatorFor('ko').t('errors.explanation.redirectUriMismatch'));

      const forged = await fetch(`${server.url}/account/secure`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'text/html',
          origin: 'https://evil.example',
          'accept-language': 'pt-BR',
        },
        body: new URLSearchParams({ token: 'A'.repeat(43) }).toString(),
      });
      expect(forged.status).toBe(403);
      const forgedPage = await forged.text();
      expectInLocale(forgedPage, 'pt-BR', 'errors.title');
      expect(unescapeHtml(forgedPage)).toContain(
        translatorFor('pt-BR').t('errors.explanation.invalidOrigin'),
      );
      expect(forgedPage).not.toContain('id="language-switcher"');
    });
  });

  describe('the mailed links’ pages', () => {
    let verifyLink: string;
    let secureLink: string;
    let mailUser: TestUser;

    beforeAll(async () => {
      mailUser = await createUser(server.url);
      const signup = await waitForMail(server.dataDir, mailUser.email, {
        includes: '/v1/dev-user/verify-email?token=',
      });
      verifyLink = /https?:\/\/\S+\/v1\/dev-user\/verify-email\?token=[A-Za-z0-9_-]+/.exec(signup.text)![0];
    });

    it.each(SUPPORTED_LOCALES)(
      '%s: the verify-email and security confirm pages, without a switcher',
      async (locale) => {
        const verify = await fetch(verifyLink, { headers: { 'accept-language': locale } });
        expect(verify.status).toBe(200);
        const verifyPage = await verify.text();
        expectInLocale(verifyPage, locale, 'account.verify.title');
        expect(verifyPage).toContain(translatorFor(locale).t('account.verify.confirm'));
        // The link's token is a capability: never in a switcher's return_to, so no switcher at all.
        expect(verifyPage).not.toContain('id="language-switcher"');
        expect(verifyPage).not.toContain('return_to');

        const failed = await fetch(`${server.url}/account/secure?token=${'A'.repeat(43)}`, {
          headers: { 'accept-language': locale },
        });
        expect(failed.status).toBe(400);
        expectInLocale(await failed.text(), locale, 'account.linkFailed.title');
      },
    );

    it('verifying sends the security link; its confirm page and the secured page follow the language', async () => {
      const token = new URL(verifyLink).searchParams.get('token')!;
      const since = Date.now();
      const verified = await fetch(`${server.url}/v1/dev-user/verify-email/confirm`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: new URL(server.url).origin,
          'accept-language': 'zh-CN,zh;q=0.9',
        },
        body: new URLSearchParams({ token }).toString(),
      });
      expect(verified.status).toBe(200);
      const verifiedPage = await verified.text();
      expectInLocale(verifiedPage, 'zh-Hans', 'account.verified.title');

      // The first proof of the mailbox mails the "this wasn't me" link to the now verified address.
      const mail = await waitForMail(server.dataDir, mailUser.email, {
        since,
        includes: '/account/secure?token=',
      });
      secureLink = /https?:\/\/\S+\/account\/secure\?token=([A-Za-z0-9_-]{43})/.exec(mail.text)![0];
      for (const locale of SUPPORTED_LOCALES) {
        const page = await fetch(secureLink, { headers: { cookie: `dauth_locale=${locale}` } });
        expect(page.status).toBe(200);
        const html = await page.text();
        expectInLocale(html, locale, 'account.secure.title');
        expect(html).toContain(translatorFor(locale).t('account.secure.confirm'));
        expect(html).not.toContain('id="language-switcher"');
      }

      const secured = await fetch(`${server.url}/account/secure`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: new URL(server.url).origin,
          'accept-language': 'ar-EG',
        },
        body: new URLSearchParams({ token: new URL(secureLink).searchParams.get('token')! }).toString(),
      });
      expect(secured.status).toBe(200);
      const securedPage = await secured.text();
      expectInLocale(securedPage, 'ar', 'account.secured.title');
      expect(securedPage).toContain(translatorFor('ar').t('account.resetPassword'));
    });
  });
});
