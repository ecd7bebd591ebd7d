import { randomBytes } from 'node:crypto';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUES, type MessageKey } from '../../src/i18n/catalogues/index.js';
import en from '../../src/i18n/catalogues/signin/en.js';
import { type Locale, SUPPORTED_LOCALES } from '../../src/i18n/locales.js';
import { translatorFor } from '../../src/i18n/translator.js';
import { escapeHtml } from '../../src/http/pages/html.js';
import { bearer, createClient, createUser, post, type TestClient, type TestUser } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { stepNow, totpCode, totpSecretOf } from '../helpers/totp.js';

/**
 * The sign-in pages in the player's language (decisions §9, issue 41): the login, sign-up, reset and
 * second-step pages, a wrong password's answer, the enrolment and recovery codes, the popup's ending and
 * the logout pages, each in the locale `ui_locales` names (kept through the flow's forms), else the
 * `dauth_locale` cookie, else `Accept-Language` — over real HTTP against a running dauth.
 */

const REDIRECT_URI = 'https://game.example/cb';
const CONSOLE = { clientId: 'dauth:console' };

/** The literal text of an ICU message (its arguments and tags left out), in pieces as they appear. */
function literalPieces(elements: MessageFormatElement[]): string[] {
  return elements.flatMap((element) => {
    if (element.type === TYPE.literal) return [element.value];
    if (element.type === TYPE.tag) return literalPieces(element.children);
    return ['\u0000']; // an argument splits the text around it
  });
}

/**
 * The English text of the signin catalogue a page in `locale` must not show: each message the locale
 * translates differently, in its literal pieces longer than 3 characters.
 */
function englishLeftovers(locale: Locale): string[] {
  const own = CATALOGUES[locale];
  const pieces = new Set<string>();
  for (const key of Object.keys(en) as MessageKey[]) {
    if (own[key] === CATALOGUES.en[key]) continue;
    for (const piece of literalPieces(parse(CATALOGUES.en[key])).join('').split('\u0000')) {
      const text = piece.trim();
      if (text.length > 3) pieces.add(text);
    }
  }
  return [...pieces];
}

/** The English pieces found in `page` as words of their own (not inside a longer word, as "Continue" in "Continuer"). */
function englishIn(page: string, locale: Locale): string[] {
  if (locale === 'en') return [];
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return englishLeftovers(locale).filter((text) =>
    [text, escapeHtml(text)].some((shown) =>
      new RegExp(`(?<![\\p{L}\\p{N}])${escape(shown)}(?![\\p{L}\\p{N}])`, 'u').test(page),
    ),
  );
}

/** A message of `locale` as the page's HTML shows it (escaped). */
const shown = (locale: Locale, key: MessageKey, values?: Record<string, string | number>) =>
  escapeHtml(translatorFor(locale).t(key, values));

function expectInLocale(page: string, locale: Locale, titleKey: MessageKey) {
  const dir = locale === 'ar' ? 'rtl' : 'ltr';
  expect(page).toContain(`<html lang="${locale}" dir="${dir}">`);
  expect(page).toContain(`<title>${shown(locale, titleKey)} · dauth</title>`);
  expect(englishIn(page, locale), `English text on the ${locale} page`).toEqual([]);
}

const decode = (value: string) =>
  value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The hidden fields and the CSRF token of the page's form that posts to `action`. */
function formOf(page: string, action: string): Record<string, string> {
  const start = page.indexOf(`action="${action}"`);
  expect(start, `a form posting to ${action}`).toBeGreaterThan(0);
  const form = page.slice(start, page.indexOf('</form>', start));
  const fields: Record<string, string> = {};
  for (const match of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) {
    fields[match[1]!] = decode(match[2]!);
  }
  return fields;
}

/** A browser: its cookies kept between requests, and the headers it always sends (Accept-Language). */
class Browser {
  readonly #cookies = new Map<string, string>();
  constructor(
    private readonly base: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  setCookie(name: string, value: string) {
    this.#cookies.set(name, value);
  }

  async request(path: string, form?: Record<string, string>) {
    const res = await fetch(`${this.base}${path}`, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        ...this.headers,
        cookie: [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const at = pair.indexOf('=');
      this.#cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return { status: res.status, location: res.headers.get('location'), page: await res.text() };
  }
}

describe('the sign-in pages in the player’s language', () => {
  let server: TestServer;
  let client: TestClient;
  /** An account with TOTP on: its sign-in shows the second step. */
  let withTotp: TestUser;

  beforeAll(async () => {
    // Twenty sign-ins of one account's second step, wrong codes included, from one address.
    server = await startTestServer({
      env: { RATE_LIMITS: 'login=1000/1m,login_address=1000/1m,login_mfa=1000/1m,login_mfa_account=1000/1m' },
    });
    const owner = await createUser(server.url);
    client = await createClient(server.url, owner, [REDIRECT_URI], { name: 'Star Quest' });
    withTotp = await createUser(server.url, undefined, CONSOLE);
    const started = await post(`${server.url}/v1/dev-user/mfa/totp`, {}, bearer(withTotp.loginToken));
    expect(started.status).toBe(201);
    const { otpauth_uri: uri } = (await started.json()) as { otpauth_uri: string };
    const confirmed = await post(
      `${server.url}/v1/dev-user/mfa/totp/confirm`,
      { code: totpCode(totpSecretOf(uri), stepNow()) },
      bearer(withTotp.loginToken),
    );
    expect(confirmed.status).toBe(200);
  });
  afterAll(async () => server?.close());

  const authorizeQuery = (extra: Record<string, string> = {}) =>
    new URLSearchParams({
      client_id: client.clientId,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      state: 'st',
      ...extra,
    }).toString();

  /** Every page of the sign-in in `locale`, the browser telling it by `ui_locales` or by its headers. */
  async function everyPage(browser: Browser, locale: Locale, extra: Record<string, string>) {
    const query = authorizeQuery(extra);

    const login = await browser.request(`/oauth/authorize?${query}`);
    expect(login.status).toBe(200);
    expectInLocale(login.page, locale, 'signin.title');
    expect(login.page).toContain(`<h1>${shown(locale, 'signin.heading')}</h1>`);
    expect(login.page).toContain(`<label for="password">${shown(locale, 'signin.password')}</label>`);
    expect(login.page).toContain(`id="sign-in">${shown(locale, 'signin.submit')}</button>`);
    expect(login.page).toContain(shown(locale, 'signin.usePasskey'));
    // The app's name sits in the translator's sentence, isolated for right-to-left text.
    expect(login.page).toContain('<span class="app"><bdi>Star Quest</bdi></span>');
    // The language switcher goes back to this very request.
    expect(login.page).toContain(
      `<input type="hidden" name="return_to" value="${escapeHtml(`/oauth/authorize?${query}`)}" />`,
    );

    const signup = await browser.request(`/oauth/authorize/signup?${query}`);
    expect(signup.status).toBe(200);
    expectInLocale(signup.page, locale, 'signin.signup.title');
    // The plural and the number in the locale's own forms and digits.
    expect(signup.page).toContain(
      `<label for="password">${shown(locale, 'signin.signup.password', { min: 8 })}</label>`,
    );
    expect(signup.page).toContain(
      `name="return_to" value="${escapeHtml(`/oauth/authorize/signup?${query}`)}"`,
    );

    const reset = await browser.request(`/oauth/authorize/reset?${query}`);
    expect(reset.status).toBe(200);
    expectInLocale(reset.page, locale, 'signin.reset.title');
    expect(reset.page).toContain(`id="send-code">${shown(locale, 'signin.reset.submit')}</button>`);

    // A wrong password: the answer in the same language, the error tied to the password field.
    const hidden = formOf(login.page, '/oauth/authorize/login');
    expect(hidden.ui_locales).toBe(extra.ui_locales);
    const wrong = await browser.request('/oauth/authorize/login', {
      ...hidden,
      email: `nobody-${randomBytes(4).toString('hex')}@example.com`,
      password: 'not the password',
    });
    expect(wrong.status).toBe(401);
    expectInLocale(wrong.page, locale, 'signin.title');
    expect(wrong.page).toContain(
      `<div class="error" id="form-error" role="alert">${shown(locale, 'signin.error.wrongPassword')}</div>`,
    );
    expect(wrong.page).toMatch(/id="password"[^>]*aria-invalid="true" aria-describedby="form-error"/);
    // ui_locales survives the POST: the answer's forms carry it on.
    expect(formOf(wrong.page, '/oauth/authorize/login').ui_locales).toBe(extra.ui_locales);

    // The second step of an account with TOTP.
    const second = await browser.request('/oauth/authorize/login', {
      ...formOf(wrong.page, '/oauth/authorize/login'),
      email: withTotp.email,
      password: withTotp.password,
    });
    expect(second.status).toBe(200);
    expectInLocale(second.page, locale, 'signin.mfa.title');
    expect(second.page).toContain(`<h1>${shown(locale, 'signin.mfa.heading')}</h1>`);
    expect(second.page).toContain(`<label for="code">${shown(locale, 'signin.mfa.codeLabel')}</label>`);
    expect(second.page).toContain(shown(locale, 'signin.mfa.codeHelp', { digits: 6 }));
    expect(formOf(second.page, '/oauth/authorize/mfa').ui_locales).toBe(extra.ui_locales);
    // Shown by a POST: a switch would go back to the sign-in form and lose the step, so there is none.
    expect(second.page).not.toContain('id="language-switcher"');

    // A wrong code: the step again, in the language, the error read with the field.
    const wrongCode = await browser.request('/oauth/authorize/mfa', {
      ...formOf(second.page, '/oauth/authorize/mfa'),
      code: '000000',
    });
    expect(wrongCode.status).toBe(401);
    expectInLocale(wrongCode.page, locale, 'signin.mfa.title');
    expect(wrongCode.page).toContain(shown(locale, 'signin.error.mfaWrongCode'));
    expect(wrongCode.page).toContain('aria-describedby="code-help code-error"');
  }

  it.each(SUPPORTED_LOCALES)('%s by ui_locales (an unknown tag first is passed over)', async (locale) => {
    await everyPage(new Browser(server.url), locale, { ui_locales: `tlh ${locale}` });
  });

  it.each(SUPPORTED_LOCALES)('%s by Accept-Language', async (locale) => {
    const browser = new Browser(server.url, { 'accept-language': `${locale}, en;q=0.5` });
    await everyPage(browser, locale, {});
  });

  it('by the dauth_locale cookie, which Accept-Language does not outrank and ui_locales does', async () => {
    const browser = new Browser(server.url, { 'accept-language': 'de-DE,de;q=0.9' });
    browser.setCookie('dauth_locale', 'ko');
    const byCookie = await browser.request(`/oauth/authorize?${authorizeQuery()}`);
    expectInLocale(byCookie.page, 'ko', 'signin.title');
    const wrong = await browser.request('/oauth/authorize/login', {
      ...formOf(byCookie.page, '/oauth/authorize/login'),
      email: `nobody-${randomBytes(4).toString('hex')}@example.com`,
      password: 'not the password',
    });
    expectInLocale(wrong.page, 'ko', 'signin.title');
    expect(wrong.page).toContain(shown('ko', 'signin.error.wrongPassword'));
    const byUiLocales = await browser.request(`/oauth/authorize?${authorizeQuery({ ui_locales: 'ar' })}`);
    expectInLocale(byUiLocales.page, 'ar', 'signin.title');
  });

  it('the switcher’s choice reaches the page: /locale rewrites ui_locales and the page follows', async () => {
    const browser = new Browser(server.url);
    const query = authorizeQuery({ ui_locales: 'fr' });
    const switched = await browser.request(
      `/locale?${new URLSearchParams({ locale: 'ja', return_to: `/oauth/authorize?${query}` }).toString()}`,
    );
    expect(switched.status).toBe(303);
    expect(switched.location).toContain('ui_locales=ja');
    const page = await browser.request(switched.location!);
    expectInLocale(page.page, 'ja', 'signin.title');
  });

  it('keeps ui_locales tidy: ten well-formed tags at most, junk dropped, nothing refused', async () => {
    const messy = `fr <script> ${'x'.repeat(40)} ${Array.from({ length: 12 }, () => 'de').join(' ')}`;
    const res = await new Browser(server.url).request(
      `/oauth/authorize?${authorizeQuery({ ui_locales: messy })}`,
    );
    expect(res.status).toBe(200);
    expectInLocale(res.page, 'fr', 'signin.title');
    expect(formOf(res.page, '/oauth/authorize/login').ui_locales).toBe(
      ['fr', ...Array.from({ length: 9 }, () => 'de')].join(' '),
    );
    const none = await new Browser(server.url).request(
      `/oauth/authorize?${authorizeQuery({ ui_locales: '!!' })}`,
    );
    expectInLocale(none.page, 'en', 'signin.title');
    expect(formOf(none.page, '/oauth/authorize/login').ui_locales).toBeUndefined();
  });

  it('reset: the code form and its errors in the language', async () => {
    const browser = new Browser(server.url);
    const reset = await browser.request(`/oauth/authorize/reset?${authorizeQuery({ ui_locales: 'pt-BR' })}`);
    const sent = await browser.request('/oauth/authorize/reset', {
      ...formOf(reset.page, '/oauth/authorize/reset'),
      email: withTotp.email,
    });
    expect(sent.status).toBe(200);
    expectInLocale(sent.page, 'pt-BR', 'signin.resetConfirm.title');
    expect(sent.page).toContain(shown('pt-BR', 'signin.notice.resetCodeSent'));
    const wrong = await browser.request('/oauth/authorize/reset/confirm', {
      ...formOf(sent.page, '/oauth/authorize/reset/confirm'),
      email: withTotp.email,
      code: '00000000',
      new_password: 'a brand new passphrase',
    });
    expect(wrong.status).toBe(400);
    expectInLocale(wrong.page, 'pt-BR', 'signin.resetConfirm.title');
    expect(wrong.page).toContain(shown('pt-BR', 'signin.error.resetCodeWrong'));
    expect(wrong.page).toMatch(/id="code"[^>]*aria-invalid="true" aria-describedby="form-error"/);
  });

  it('sign-up: a short or a common password is told in the language, the number in its digits', async () => {
    const browser = new Browser(server.url);
    const signup = await browser.request(`/oauth/authorize/signup?${authorizeQuery({ ui_locales: 'ar' })}`);
    const short = await browser.request('/oauth/authorize/signup', {
      ...formOf(signup.page, '/oauth/authorize/signup'),
      email: `new-${randomBytes(4).toString('hex')}@example.com`,
      password: 'short',
    });
    expect(short.status).toBe(400);
    expectInLocale(short.page, 'ar', 'signin.signup.title');
    const message = shown('ar', 'signin.error.passwordTooShort', { min: 8 });
    expect(message).toContain(new Intl.NumberFormat('ar').format(8));
    expect(short.page).toContain(message);
    expect(short.page).toMatch(/id="password"[^>]*aria-invalid="true" aria-describedby="form-error"/);
    const common = await browser.request('/oauth/authorize/signup', {
      ...formOf(short.page, '/oauth/authorize/signup'),
      email: `new-${randomBytes(4).toString('hex')}@example.com`,
      password: 'password123',
    });
    expect(common.status).toBe(400);
    expect(common.page).toContain(shown('ar', 'signin.error.commonPassword'));
  });

  it('a step-up’s code step, shown by the request’s own GET, offers the switcher back to it', async () => {
    const user = await createUser(server.url, undefined, CONSOLE);
    const browser = new Browser(server.url);
    const login = await browser.request(`/oauth/authorize?${authorizeQuery({ ui_locales: 'ko' })}`);
    const signedIn = await browser.request('/oauth/authorize/login', {
      ...formOf(login.page, '/oauth/authorize/login'),
      email: user.email,
      password: user.password,
    });
    expect(signedIn.status).toBe(303); // a one-factor session: the account has no TOTP yet
    const started = await post(`${server.url}/v1/dev-user/mfa/totp`, {}, bearer(user.loginToken));
    const { otpauth_uri: uri } = (await started.json()) as { otpauth_uri: string };
    const confirmed = await post(
      `${server.url}/v1/dev-user/mfa/totp/confirm`,
      { code: totpCode(totpSecretOf(uri), stepNow()) },
      bearer(user.loginToken),
    );
    expect(confirmed.status).toBe(200);
    const query = authorizeQuery({ ui_locales: 'ko', acr_values: 'mfa' });
    const stepUp = await browser.request(`/oauth/authorize?${query}`);
    expect(stepUp.status).toBe(200);
    expectInLocale(stepUp.page, 'ko', 'signin.mfa.title');
    // The switcher goes back to the same request (the flow's own order of its parameters).
    const back = decode(/name="return_to" value="([^"]+)"/.exec(stepUp.page)![1]!);
    expect(back.startsWith('/oauth/authorize?')).toBe(true);
    const params = (text: string) => Object.fromEntries([...new URLSearchParams(text)].sort());
    expect(params(back.slice('/oauth/authorize?'.length))).toEqual(params(query));
  });

  it('enrolment, recovery codes and the popup’s ending in the language (acr_values=mfa, display=popup)', async () => {
    const user = await createUser(server.url);
    const browser = new Browser(server.url);
    const query = authorizeQuery({ ui_locales: 'ru', acr_values: 'mfa', display: 'popup', scope: 'openid' });
    const login = await browser.request(`/oauth/authorize?${query}`);
    const signedIn = await browser.request('/oauth/authorize/login', {
      ...formOf(login.page, '/oauth/authorize/login'),
      email: user.email,
      password: user.password,
    });
    expect(signedIn.status).toBe(303);
    const enrol = await browser.request(signedIn.location!);
    expect(enrol.status).toBe(200);
    expectInLocale(enrol.page, 'ru', 'signin.enrol.heading');
    expect(enrol.page).toContain(`aria-label="${shown('ru', 'signin.enrol.qr')}"`);
    // Shown by the request's GET, so the switcher goes back there.
    expect(enrol.page).toContain('id="language-switcher"');
    const uri = decode(/id="otpauth-uri">([^<]+)</.exec(enrol.page)![1]!);
    const recovery = await browser.request('/oauth/authorize/mfa/enrol', {
      ...formOf(enrol.page, '/oauth/authorize/mfa/enrol'),
      code: totpCode(totpSecretOf(uri), stepNow()),
    });
    expect(recovery.status).toBe(200);
    expectInLocale(recovery.page, 'ru', 'signin.recovery.title');
    expect(recovery.page).toContain(shown('ru', 'signin.recovery.continue'));
    const next = decode(/href="([^"]+)" id="continue"/.exec(recovery.page)![1]!);
    const consent = await browser.request(next);
    expect(consent.status).toBe(200);
    const done = await browser.request('/oauth/authorize/consent', {
      ...formOf(consent.page, '/oauth/authorize/consent'),
      decision: 'allow',
    });
    expect(done.status).toBe(200);
    expectInLocale(done.page, 'ru', 'signin.completion.title');
    expect(done.page).toContain(`<p id="status">${shown('ru', 'signin.completion.returning')}</p>`);
    // The script's own text comes in its data block, translated.
    const data = JSON.parse(
      /<script type="application\/json" id="dauth-result">\s*([^<]+)<\/script>/.exec(done.page)![1]!,
    ) as { doneText: string };
    expect(data.doneText).toBe(translatorFor('ru').t('signin.completion.done'));
  });

  it.each(SUPPORTED_LOCALES)(
    '%s: the logout confirmation (ui_locales) and the signed-out page',
    async (locale) => {
      const browser = new Browser(server.url);
      const query = new URLSearchParams({ client_id: client.clientId, ui_locales: locale }).toString();
      const confirm = await browser.request(`/oauth/end_session?${query}`);
      expect(confirm.status).toBe(200);
      expectInLocale(confirm.page, locale, 'signin.logout.title');
      expect(confirm.page).toContain(`<h1>${shown(locale, 'signin.logout.heading')}</h1>`);
      expect(confirm.page).toContain('<span class="app"><bdi>Star Quest</bdi></span>');
      expect(confirm.page).toContain(`name="return_to" value="${escapeHtml(`/oauth/end_session?${query}`)}"`);
      const out = await browser.request(
        '/oauth/end_session/confirm',
        formOf(confirm.page, '/oauth/end_session/confirm'),
      );
      expect(out.status).toBe(200);
      expectInLocale(out.page, locale, 'signin.loggedOut.title');
      expect(out.page).toContain(shown(locale, 'signin.loggedOut.body'));
    },
  );

  it('an account under guessing: the error, the mailed-code field and the browser check in the language', async () => {
    const browser = new Browser(server.url);
    const email = `guessed-${randomBytes(4).toString('hex')}@example.com`;
    let page = (await browser.request(`/oauth/authorize?${authorizeQuery({ ui_locales: 'de' })}`)).page;
    // login_account: 10 failures of one account in 15 minutes, then every sign-in of it needs more.
    for (let i = 0; i < 10; i++) {
      const wrong = await browser.request('/oauth/authorize/login', {
        ...formOf(page, '/oauth/authorize/login'),
        email,
        password: `wrong ${i}`,
      });
      expect(wrong.status).toBe(401);
      page = wrong.page;
    }
    const guarded = await browser.request('/oauth/authorize/login', {
      ...formOf(page, '/oauth/authorize/login'),
      email,
      password: 'wrong again',
    });
    expect(guarded.status).toBe(401);
    expectInLocale(guarded.page, 'de', 'signin.title');
    expect(guarded.page).toContain(shown('de', 'signin.error.accountUnderGuessing'));
    expect(guarded.page).toContain(`<label for="email_code">${shown('de', 'signin.emailCode')}</label>`);
    expect(guarded.page).toMatch(/id="email_code"[^>]*aria-invalid="true" aria-describedby="form-error"/);
    // The browser check: the widget told the language, the status line's and the widget's texts in it.
    expect(guarded.page).toMatch(/<altcha-widget[^>]*language="de"/);
    const texts = JSON.parse(decode(/data-messages="([^"]+)"/.exec(guarded.page)![1]!)) as {
      status: Record<string, string>;
      widget: Record<string, string>;
    };
    const de = translatorFor('de');
    expect(texts.status).toEqual({
      unavailable: de.t('signin.check.unavailable'),
      verifying: de.t('signin.check.verifying'),
      verified: de.t('signin.check.verified'),
      failed: de.t('signin.check.failed'),
      expired: de.t('signin.check.expired'),
    });
    expect(texts.widget.label).toBe(de.t('signin.check.label'));
    expect(texts.widget.verified).toBe(de.t('signin.check.done'));
  });
});
