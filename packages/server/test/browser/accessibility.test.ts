import { randomBytes } from 'node:crypto';
import * as client from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  axeViolations,
  blocking,
  describeViolations,
  type FocusedElement,
  focusedElement,
  focusVisible,
  outOfVisualOrder,
  pageLanguage,
  tabSequence,
} from '../helpers/accessibility.js';
import { chromiumAvailable, launchChromium } from '../helpers/browser.js';
import { bearer, type CallbackServer, post, startCallbackServer, type TestUser } from '../helpers/http.js';
import { waitForMail } from '../helpers/outbox.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { stepNow, totpCode, totpSecretOf, wrongCode } from '../helpers/totp.js';
import { createOidcClient, discover, startAuthorization } from '../oidc/support.js';
import { SafeHtml } from '../../src/http/pages/html.js';
import { renderPage } from '../../src/http/pages/layout.js';
import { translatorFor } from '../../src/i18n/translator.js';

/** The console's first-party binding: only its login JWTs enrol a second factor or change the password. */
const CONSOLE = 'dauth:console';
const PASSWORD = 'correct horse battery';

/**
 * Decisions §9: every player-facing page passes axe-core (WCAG 2.0/2.1 A and AA, colour contrast included)
 * with no serious or critical violation, and works from the keyboard alone, in English and in a right-to-left
 * language (Arabic: the browser's `Accept-Language` through the context's `locale`). Each page is the real
 * one, reached the way a player reaches it (a wrong password, a mailed link, a device code), in a real
 * Chromium; each also has its tab sequence walked: every stop shows a focus indicator, in reading order.
 *
 * Slow (about a minute and a half on an idle machine): one dauth and one Chromium for the file, started
 * once, but some sixty page views, each audited by axe (a few hundred ms of a core) and walked with Tab,
 * plus the sign-ins' scrypt.
 * `BOT_CHALLENGE=signup` puts the ALTCHA widget on the sign-up page, so its markup is audited too (the
 * accounts are therefore created through the account service, not the challenged HTTP route).
 */
// Each test walks several pages through axe: twice the suites' 60 s when the machine's cores are shared.
describe.skipIf(!chromiumAvailable)(
  'accessibility of the player-facing pages in a real Chromium',
  { timeout: 120_000 },
  () => {
    let server: TestServer;
    let callback: CallbackServer;
    let config: client.Configuration;
    let chromium: Browser;

    beforeAll(async () => {
      server = await startTestServer({
        env: { BOT_CHALLENGE: 'signup', RATE_LIMITS: 'login_address=1000/1m,password_reset=1000/1m' },
      });
      callback = await startCallbackServer();
      const owner = await newAccount();
      const app = await createOidcClient(server.url, owner, [callback.url()], { name: 'Space Game' });
      config = await discover(server.url, app);
      chromium = await launchChromium();
    });
    afterAll(async () => {
      await chromium?.close();
      await callback?.close();
      await server?.close();
    });

    /**
     * An account made by the account service (the HTTP route wants an ALTCHA solution here), signed in over
     * HTTP with the console's binding, which may change its ways in. Its sign-up mail is in the outbox.
     */
    async function newAccount(): Promise<TestUser> {
      const email = `a11y-${randomBytes(5).toString('hex')}@example.com`;
      const user = await server.services.accounts.register({ email, password: PASSWORD });
      return { email, password: PASSWORD, nickname: user.nickname, ...(await loginJwt(email, PASSWORD)) };
    }

    async function loginJwt(email: string, password: string) {
      const login = await post(`${server.url}/v1/dev-user/login_devuser`, {
        email,
        password,
        client_id: CONSOLE,
      });
      expect(login.status).toBe(200);
      const { token, uuid } = (await login.json()) as { token: string; uuid: string };
      return { uuid, loginToken: token };
    }

    /** TOTP turned on over the API; codes after `step` are still unused. */
    async function enrolTotp(user: TestUser): Promise<{ secret: Buffer; step: number }> {
      const started = await post(`${server.url}/v1/dev-user/mfa/totp`, {}, bearer(user.loginToken));
      expect(started.status).toBe(201);
      const secret = totpSecretOf(((await started.json()) as { otpauth_uri: string }).otpauth_uri);
      const step = stepNow();
      const confirmed = await post(
        `${server.url}/v1/dev-user/mfa/totp/confirm`,
        { code: totpCode(secret, step) },
        bearer(user.loginToken),
      );
      expect(confirmed.status).toBe(200);
      return { secret, step };
    }

    /** Clicks (or presses) and waits for the page the click loads. */
    async function submit(page: Page, selector: string) {
      await Promise.all([page.waitForEvent('load'), page.click(selector)]);
    }

    async function signIn(page: Page, user: { email: string; password: string }) {
      await page.fill('#email', user.email);
      await page.fill('#password', user.password);
      await submit(page, '#sign-in');
    }

    /** A new account's sign-up mail link, and (once that verified the address) a security mail's link. */
    async function mailedLinks() {
      const user = await newAccount();
      const signup = await waitForMail(server.dataDir, user.email, { includes: 'verify-email?token=' });
      const verify = /(http\S+\/v1\/dev-user\/verify-email\?token=[A-Za-z0-9_-]{43})/.exec(signup.text)![1]!;
      const secure = async () => {
        // The first verification ended the older login JWTs: a fresh one changes the password, and the
        // verified address gets the security mail with its "this wasn't me" link.
        const { loginToken } = await loginJwt(user.email, PASSWORD);
        const since = Date.now();
        const changed = await post(
          `${server.url}/v1/dev-user/password`,
          { current_password: PASSWORD, new_password: 'another horse battery' },
          bearer(loginToken),
        );
        expect(changed.status).toBe(200);
        const mail = await waitForMail(server.dataDir, user.email, {
          since,
          includes: '/account/secure?token=',
        });
        return /(http\S+\/account\/secure\?token=[A-Za-z0-9_-]{43})/.exec(mail.text)![1]!;
      };
      return { user, verify, secure };
    }

    describe.each(['en', 'ar'] as const)('in %s', (locale) => {
      let context: BrowserContext;
      beforeAll(async () => {
        context = await chromium.newContext({ locale });
      });
      afterAll(async () => {
        await context?.close();
      });
      beforeEach(async () => {
        await context.clearCookies();
      });

      /**
       * The page as it is now: its language and direction on `<html>`, axe's violations (the serious and
       * critical ones fail, each printed with its id, impact, elements and help), then its tab sequence
       * (every stop visibly focused, in reading order). Soft assertions: one run reports every page.
       */
      async function audit(page: Page, what: string) {
        const label = `${what} (${locale}, ${new URL(page.url()).pathname})`;
        const root = await pageLanguage(page);
        if (locale === 'en') expect.soft(root.lang, `${label}: <html lang>`).toBe('en');
        // Until a page's Arabic catalogue lands it answers in English; once it says lang="ar" it is right to left.
        if (root.lang === 'ar') expect.soft(root.dir, `${label}: <html dir>`).toBe('rtl');
        else expect.soft(root.dir ?? 'ltr', `${label}: <html dir>`).toBe('ltr');

        const serious = blocking(await axeViolations(page));
        expect.soft(serious, `${label}: axe violations\n${describeViolations(serious)}`).toEqual([]);

        const stops = await tabSequence(page);
        const unseen = stops.filter((s) => !focusVisible(s)).map((s) => s.name);
        expect.soft(unseen, `${label}: focus without a visible indicator`).toEqual([]);
        expect
          .soft(outOfVisualOrder(stops, root.direction), `${label}: tab order against reading order`)
          .toEqual([]);
      }

      it('sign-in: the login page, a wrong password, sign-up (with the ALTCHA widget), the reset request and the reset code page', async () => {
        const user = await newAccount();
        const page = await context.newPage();
        const start = await startAuthorization(config, callback.url());
        await page.goto(start.url.href);
        expect(await page.locator('#email').count()).toBe(1);
        await audit(page, 'login');

        await signIn(page, { email: user.email, password: 'not the password' });
        await expect.soft(page.locator('.error[role=alert]').isVisible()).resolves.toBe(true);
        expect(await page.inputValue('#email')).toBe(user.email);
        await audit(page, 'login, wrong password');

        await submit(page, '#signup-link');
        expect(new URL(page.url()).pathname).toBe('/oauth/authorize/signup');
        // The widget (the module this service serves) defined, so axe sees its markup, not an empty element.
        expect(await page.evaluate("customElements.whenDefined('altcha-widget').then(() => true)")).toBe(
          true,
        );
        expect(await page.locator('altcha-widget input[type=checkbox]').count()).toBe(1);
        await audit(page, 'sign-up');

        await submit(page, '#back-to-sign-in');
        await submit(page, '#reset-link');
        expect(new URL(page.url()).pathname).toBe('/oauth/authorize/reset');
        await audit(page, 'reset request');

        await page.fill('#email', user.email);
        await submit(page, '#send-code');
        expect(await page.locator('#new_password').count()).toBe(1);
        expect(await page.locator('.notice[role=status]').isVisible()).toBe(true);
        await audit(page, 'reset code');

        await page.fill('#code', '00000000');
        await page.fill('#new_password', 'a brand new passphrase');
        await submit(page, '#set-password');
        expect(await page.locator('.error[role=alert]').isVisible()).toBe(true);
        await audit(page, 'reset code, wrong code');
        await page.close();
      });

      it('the second step (an account with TOTP, then a wrong code), consent, the logout page and signed out', async () => {
        const user = await newAccount();
        const totp = await enrolTotp(user);
        const page = await context.newPage();
        const start = await startAuthorization(config, callback.url());
        await page.goto(start.url.href);
        await signIn(page, user);
        expect(await page.locator('#code').getAttribute('autocomplete')).toBe('one-time-code');
        await audit(page, 'second step');

        await page.fill('#code', wrongCode(totp.secret));
        await submit(page, '#verify-code');
        expect(await page.locator('#code-error').isVisible()).toBe(true);
        expect(await page.getAttribute('#code', 'aria-invalid')).toBe('true');
        await audit(page, 'second step, wrong code');

        await page.fill('#code', totpCode(totp.secret, Math.max(totp.step + 1, stepNow())));
        await submit(page, '#verify-code');
        expect(await page.locator('#allow').count()).toBe(1);
        await audit(page, 'consent');

        await page.goto(
          `${server.url}/oauth/end_session?client_id=${encodeURIComponent(config.clientMetadata().client_id)}`,
        );
        expect(await page.locator('#sign-out').count()).toBe(1);
        await audit(page, 'logout');
        await submit(page, '#sign-out');
        expect(await page.locator('#status').isVisible()).toBe(true);
        await audit(page, 'signed out');
        await page.close();
      });

      it('a second factor asked for (acr_values=mfa): the enrolment page with its QR code, then the recovery codes', async () => {
        const user = await newAccount();
        const page = await context.newPage();
        const start = await startAuthorization(config, callback.url(), { acr_values: 'mfa' });
        await page.goto(start.url.href);
        await signIn(page, user);
        expect(await page.locator('.qr svg').count()).toBe(1);
        await audit(page, 'second factor enrolment');

        const secret = totpSecretOf((await page.textContent('#otpauth-uri'))!.trim());
        await page.fill('#code', totpCode(secret, stepNow()));
        await submit(page, '#confirm-enrolment');
        expect(await page.locator('#recovery-codes li').count()).toBe(10);
        await audit(page, 'recovery codes');
        await page.close();
      });

      it('the device pages: GET /device signed out, the code form, a wrong code, the confirm page, done', async () => {
        const user = await newAccount();
        const started = await client.initiateDeviceAuthorization(config, { scope: 'openid' });
        const page = await context.newPage();
        await page.goto(`${server.url}/device`);
        expect(new URL(page.url()).pathname).toBe('/oauth/device');
        expect(await page.locator('#password').count()).toBe(1);
        await audit(page, 'device sign-in');

        await signIn(page, user);
        expect(await page.locator('#user_code').count()).toBe(1);
        await audit(page, 'device code');

        await page.fill('#user_code', 'BCDF-GHJK');
        await submit(page, '#continue');
        expect(await page.locator('.error[role=alert]').isVisible()).toBe(true);
        await audit(page, 'device code, wrong code');

        await page.fill('#user_code', started.user_code);
        await submit(page, '#continue');
        expect(await page.textContent('#shown-code')).toBe(started.user_code);
        await audit(page, 'device confirm');

        await submit(page, '#allow');
        expect(await page.locator('#done').count()).toBe(1);
        await audit(page, 'device connected');
        await page.close();
      });

      it('the error page: an authorize request with an unregistered redirect_uri', async () => {
        const page = await context.newPage();
        const start = await startAuthorization(config, 'https://elsewhere.example/callback');
        expect(answerStatus(await page.goto(start.url.href))).toBe(401);
        expect(await page.textContent('#error-code')).toContain('redirect_uri_mismatch');
        await audit(page, 'error page');
        await page.close();
      });

      it("the mailed links: the verify-email confirm page and its answer, the secure link's confirm page and its answer, both links once used", async () => {
        const { user, verify, secure } = await mailedLinks();
        const page = await context.newPage();
        await page.goto(verify);
        expect(await page.locator('#confirm').count()).toBe(1);
        await audit(page, 'verify-email confirm');
        await submit(page, '#confirm');
        expect(await server.services.users.emailVerified(Number(user.uuid))).toBe(true);
        await audit(page, 'e-mail verified');
        expect(answerStatus(await page.goto(verify))).toBe(400);
        await audit(page, 'verify-email link used');

        const link = await secure();
        await page.goto(link);
        expect(await page.locator('#secure').count()).toBe(1);
        await audit(page, 'secure link confirm');
        await submit(page, '#secure');
        expect(await page.locator('#reset').count()).toBe(1);
        await audit(page, 'account secured');
        expect(answerStatus(await page.goto(link))).toBe(400);
        await audit(page, 'secure link used');
        await page.close();
      });

      it('the frame of the translated pages (layout.ts renderPage: its STYLE, lang/dir, the language switcher) around the login and consent pages', async () => {
        const user = await newAccount();
        const page = await context.newPage();
        const start = await startAuthorization(config, callback.url());
        await page.goto(start.url.href);
        const login = await page.innerHTML('main');
        await signIn(page, user);
        const consent = await page.innerHTML('main');
        expect(consent).toContain('id="allow"');
        const returnTo = `${start.url.pathname}${start.url.search}`;
        const tr = translatorFor(locale);
        // A blank page of its own: content set into the dauth page would stay under that page's CSP nonce.
        const framed = await context.newPage();
        for (const [what, body] of [
          ['login in the new frame', login],
          ['consent in the new frame', consent],
        ] as const) {
          // The pages' own markup (as the templates make it) in the frame they move to once translated.
          await framed.setContent(
            renderPage({ translator: tr, nonce: 'n', title: what, returnTo }, new SafeHtml(body)),
          );
          expect(await framed.getAttribute('html', 'dir')).toBe(locale === 'ar' ? 'rtl' : 'ltr');
          expect(await framed.locator('#language-select').count()).toBe(1);
          await audit(framed, what);
          // Addresses read left to right inside a right-to-left sentence or field (STYLE: bidi isolation).
          const address = what.startsWith('login') ? '#email' : '.email';
          expect(
            await framed.evaluate(`getComputedStyle(document.querySelector('${address}')).direction`),
          ).toBe('ltr');
        }
        await framed.close();
        await page.close();
      });

      it('keyboard only: Tab to the e-mail, type, Tab to the password, type, Enter; on the consent page Tab to Allow and press it', async () => {
        const user = await newAccount();
        const start = await startAuthorization(config, callback.url());
        const page = await context.newPage();
        await page.goto(start.url.href);
        const dir = (await pageLanguage(page)).direction;
        expect(await focusedElement(page)).toBeUndefined();

        // From the top of the page the first Tab stop is the e-mail field.
        const visited: FocusedElement[] = [];
        const tab = async (key = 'Tab') => {
          await page.keyboard.press(key);
          const el = await focusedElement(page);
          expect(el, 'focus left the page').toBeDefined();
          expect(
            focusVisible(el!),
            `${el!.name}: no visible focus indicator (${el!.outline}, ${el!.boxShadow})`,
          ).toBe(true);
          visited.push(el!);
          return el!;
        };
        expect((await tab()).name).toBe('input#email');
        await page.keyboard.type(user.email);
        expect((await tab()).name).toBe('input#password');
        await page.keyboard.type(user.password);
        expect(outOfVisualOrder(visited, dir)).toEqual([]);
        await Promise.all([page.waitForEvent('load'), page.keyboard.press('Enter')]);

        // The consent page: Tab until Allow (Deny comes first, beside it), then Enter or Space presses it.
        expect(await page.locator('#allow').count()).toBe(1);
        visited.length = 0;
        for (let i = 0; i < 10 && visited.at(-1)?.name !== 'button#allow'; i++) await tab();
        expect(visited.map((v) => v.name)).toEqual(['button#deny', 'button#allow']);
        expect(outOfVisualOrder(visited, dir)).toEqual([]);
        await Promise.all([
          page.waitForURL(`${callback.url()}?**`),
          page.keyboard.press(locale === 'en' ? 'Enter' : 'Space'),
        ]);
        const tokens = await client.authorizationCodeGrant(config, new URL(page.url()), {
          pkceCodeVerifier: start.verifier,
          expectedNonce: start.nonce,
          expectedState: start.state,
        });
        expect(tokens.claims()!.sub).toBe(user.uuid);
        await page.close();
      });
    });
    /** The audit can fail: what it looks for, taken off a real page, is found missing. */
    describe('the audit itself', () => {
      let context: BrowserContext;
      beforeAll(async () => {
        context = await chromium.newContext();
      });
      afterAll(async () => {
        await context?.close();
      });

      it('axe sees a field without a label and text below AA contrast; the Tab walk sees a hidden focus ring and a jump back up', async () => {
        const page = await context.newPage();
        await page.goto((await startAuthorization(config, callback.url())).url.href);
        await page.evaluate(`(() => {
          document.querySelector('label[for=email]').remove();
          // Through the CSSOM: the page's CSP refuses style attributes.
          document.querySelector('h1').style.color = '#999';
          document.getElementById('password').style.outline = 'none';
          document.getElementById('email').tabIndex = 2; // before everything else, then back to the top
          document.getElementById('sign-in').tabIndex = 1;
        })()`);
        const found = blocking(await axeViolations(page));
        expect(found.map((v) => [v.id, v.impact, v.targets])).toEqual(
          expect.arrayContaining([
            ['label', 'critical', ['#email']],
            ['color-contrast', 'serious', ['h1']],
          ]),
        );
        const stops = await tabSequence(page);
        expect(stops.slice(0, 3).map((s) => s.name)).toEqual([
          'button#sign-in',
          'input#email',
          'input#password',
        ]);
        expect(stops.filter((s) => !focusVisible(s)).map((s) => s.name)).toEqual(['input#password']);
        expect(outOfVisualOrder(stops, 'ltr')).toContain('button#sign-in → input#email');
        await page.close();
      });
    });

    /**
     * Found by this suite: the confirm pages were served with `Referrer-Policy: no-referrer`, under which a
     * browser sends `Origin: null` with the form's POST (Fetch, "serializing a request origin"), and the two
     * routes refuse every Origin but their own, so the buttons failed in every browser. The pages now say
     * `same-origin` (html.ts `pageHeaders`): the buttons work unaided, and the POST carries our Origin.
     */
    describe('the mailed links pressed in a browser', () => {
      let context: BrowserContext;
      beforeAll(async () => {
        context = await chromium.newContext();
      });
      afterAll(async () => {
        await context?.close();
      });

      /** Presses the page's confirm button: the POST's answer and the Origin the browser sent with it. */
      async function press(page: Page, button: string) {
        const [answer] = await Promise.all([
          page.waitForResponse((r) => r.request().method() === 'POST'),
          page.click(button),
        ]);
        await page.waitForLoadState('load');
        return { status: answer.status(), origin: await answer.request().headerValue('origin') };
      }

      it('the sign-up mail link: "Yes, this is my address" verifies the address, the POST carrying our Origin', async () => {
        const { user, verify } = await mailedLinks();
        const page = await context.newPage();
        await page.goto(verify);
        expect(await press(page, '#confirm')).toEqual({ status: 200, origin: new URL(server.url).origin });
        expect(await server.services.users.emailVerified(Number(user.uuid))).toBe(true);
      });

      it('the security mail link: "Yes, secure my account" secures it once; the used link no longer works', async () => {
        const { verify, secure } = await mailedLinks();
        const verifying = await context.newPage();
        await verifying.goto(verify);
        expect((await press(verifying, '#confirm')).status).toBe(200);
        const page = await context.newPage();
        const link = await secure();
        await page.goto(link);
        expect(await press(page, '#secure')).toEqual({ status: 200, origin: new URL(server.url).origin });
        expect(answerStatus(await page.goto(link))).toBe(400);
      });
    });
  },
);

/** The HTTP status of a navigation's answer. */
const answerStatus = (answer: Awaited<ReturnType<Page['goto']>>) => answer?.status();
