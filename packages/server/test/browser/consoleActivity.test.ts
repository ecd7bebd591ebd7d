import type { ConsoleMessage, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newClient, type User } from '../content/contentSupport.js';
import { appActivityFlows, type AppActivityFlows } from '../helpers/appActivityFlows.js';
import { chromiumAvailable, launchTestBrowser, type TestBrowser } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The console shows rather than tells (issue 31), in a real Chromium against a real dauth after real
 * flows (two sign-ins, a sponsored purchase, a consumption, a market sale): the app page's charts are
 * drawn by the vendored uPlot with the exact figures beside them; amounts are in ETH, DAUTH and units
 * with the exact base value on hover; one date format; operation details as fields; no empty label;
 * an app without a content provider causes no failed request; the sign-in form has its padding.
 */
const APP_DAILY_GAS = 3_000_000;
const server: TestServer | undefined = chromiumAvailable
  ? await startTestServer({ env: { SPONSOR_APP_DAILY_GAS: String(APP_DAILY_GAS) } })
  : undefined;

/** Page-side code is a string: this file is type-checked without the DOM library. */
const textsOf = (page: Page, selector: string) =>
  page.evaluate(
    `[...document.querySelectorAll(${JSON.stringify(selector)})].map((e) => e.textContent.trim())`,
  ) as Promise<string[]>;

describe.skipIf(!chromiumAvailable)('console charts and formatting in a real Chromium', () => {
  let browser: TestBrowser;
  let flows: AppActivityFlows;
  const base = () => server!.url;

  beforeAll(async () => {
    browser = await launchTestBrowser();
    flows = await appActivityFlows(server!);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  interface Watched {
    page: Page;
    /** Failed console or API requests (4xx/5xx). */
    failures: string[];
    /** Every request path the page made. */
    requests: string[];
    /** Errors the browser logged (a failed request is logged as one too). */
    errors: string[];
  }

  /** Opens the console signed in as `user` (the login JWT in sessionStorage, as the console keeps it). */
  async function openAs(user: User, hash: string): Promise<Watched> {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 960, height: 900 });
    const watched: Watched = { page, failures: [], requests: [], errors: [] };
    page.on('request', (r) => watched.requests.push(new URL(r.url()).pathname));
    page.on('response', (r) => {
      if (r.status() >= 400) watched.failures.push(`${r.status()} ${new URL(r.url()).pathname}`);
    });
    page.on('console', (m: ConsoleMessage) => {
      if (m.type() !== 'error') return;
      const at = m.location().url ? new URL(m.location().url).pathname : '';
      watched.errors.push(`${m.text()} ${at}`);
    });
    page.on('pageerror', (e) => watched.errors.push(e.message));
    await page.goto(`${base()}/console#/signin`);
    await page.evaluate(
      `sessionStorage.setItem('dauth.console.session', ${JSON.stringify(
        JSON.stringify({ token: user.token, uuid: String(user.uuid), email: '' }),
      )})`,
    );
    await page.goto(`${base()}/console${hash}`);
    return watched;
  }

  /** Every label-like element has text, and every value of a fact list has something in it. */
  async function expectNoEmptyLabels(page: Page): Promise<void> {
    const labels = await textsOf(page, 'dt, th, label, legend, figcaption, h1, h2, h3, button, summary');
    expect(labels.length).toBeGreaterThan(0);
    expect(labels.filter((t) => t === '')).toEqual([]);
    expect((await textsOf(page, 'dd')).filter((t) => t === '' || t === '—')).toEqual([]);
  }

  /** One date format: every date on the page is `YYYY-MM-DD` or `YYYY-MM-DD HH:MM UTC`. */
  async function expectOneDateFormat(page: Page): Promise<void> {
    const text = (await page.textContent('#view'))!;
    // What toLocaleString and raw ISO timestamps look like: 11/23/2026, 23.11.2026, 2026-11-23T23:40:38.258Z.
    expect(text).not.toMatch(/\d{1,2}[/.]\d{1,2}[/.]\d{4}|\d{4}-\d{2}-\d{2}T\d{2}:/);
  }

  it("draws the app's activity with uPlot, the exact figures beside each chart", async () => {
    const { provider, bought, consumed, salePrice } = flows;
    const { page, failures, requests, errors } = await openAs(
      provider.developer,
      `#/apps/${provider.clientId}`,
    );
    await page.waitForSelector('#activity figure.chart canvas');
    // The library is the console's own file, not a CDN's.
    expect(requests).toContain('/console/assets/vendor/uplot.js');
    expect(requests).toContain('/console/assets/vendor/uplot.css');
    for (const id of ['chart-players', 'chart-gas', 'chart-content', 'chart-market']) {
      const size = (await page.evaluate(
        `(() => { const c = document.querySelector('#${id} canvas'); return c ? [c.width, c.height] : null })()`,
      )) as [number, number] | null;
      expect(size, id).not.toBeNull();
      expect(size![0]).toBeGreaterThan(200);
      expect(size![1]).toBeGreaterThan(100);
    }

    const lastRow = async (id: string) => await textsOf(page, `#${id} table.figures tbody tr:last-child > *`);
    const today = new Date().toISOString().slice(0, 10);
    expect(await lastRow('chart-players')).toEqual([today, '2', '2']);
    const gas = await lastRow('chart-gas');
    expect(gas[0]).toBe(today);
    expect(Number(gas[1]!.replace(/,/g, ''))).toBeGreaterThan(0);
    expect(gas[2]).toBe('3,000,000');
    expect(await textsOf(page, '#chart-content table.figures tbody tr > *')).toEqual([
      provider.cuid,
      `${bought.toLocaleString('en-US')} units`,
      `${consumed} units`,
    ]);
    expect(await lastRow('chart-market')).toEqual([today, '1', '0.5 ETH']);
    // The exact wei on hover.
    expect(await page.getAttribute('#chart-market table.figures tbody tr:last-child .amount', 'title')).toBe(
      `${salePrice} wei`,
    );
    expect(await page.textContent('#chart-gas')).toContain('Budget 3,000,000 gas a day');

    // The app has a provider: its payload form is asked for, and shown.
    expect(requests).toContain('/v1/development-api/payload_mode');
    await expectNoEmptyLabels(page);
    await expectOneDateFormat(page);

    // On a phone the charts narrow with the page: no sideways scrolling at 360 px.
    await page.setViewportSize({ width: 360, height: 740 });
    // (Polled with evaluate: the console's CSP refuses the string-eval that waitForFunction uses.)
    const gasWidth = () =>
      page.evaluate(
        "document.querySelector('#chart-gas canvas').getBoundingClientRect().width",
      ) as Promise<number>;
    for (let i = 0; i < 50 && (await gasWidth()) >= 340; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await gasWidth()).toBeLessThan(340);
    expect(
      await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'),
    ).toBeLessThanOrEqual(0);
    expect(failures).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('opens an app without a content provider with no failed request and nothing logged as an error', async () => {
    const { provider } = flows;
    const clientId = await newClient(server!, provider.developer);
    const { page, failures, requests, errors } = await openAs(provider.developer, `#/apps/${clientId}`);
    await page.waitForSelector('#provider-form');
    await page.waitForLoadState('networkidle');
    expect(await page.textContent('#provider-mode')).toContain('none yet');
    // Nothing happened in this app yet: one sentence instead of four empty charts.
    expect(await page.textContent('#activity-none')).toContain('Nothing yet over the last 30 days (UTC)');
    expect(await page.$('#activity canvas')).toBeNull();
    // Before, the page asked for the payload form and got the expected 404, which Chromium logs as an error.
    expect(requests).not.toContain('/v1/development-api/payload_mode');
    // Nor for its wallet policy, which it has none of either (404 wallet_policy_not_found).
    expect(requests).not.toContain(`/v1/dev-user/clients/${clientId}/wallet-policy`);
    expect(failures).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows the buyer's wallet in ETH and DAUTH, content in units, and operations as fields", async () => {
    const [buyer] = flows.players;
    const { page, failures, errors } = await openAs(buyer.user, '#/account');
    await page.waitForSelector('#operations .operation');
    await page.waitForLoadState('networkidle');
    const balance = page.locator('#wallet .amount').first();
    expect(await balance.textContent()).toMatch(/^(≈ )?[\d,]+(\.\d{1,6})? ETH$/);
    expect(await balance.getAttribute('title')).toMatch(/^\d+ wei$/);

    const purchase = page.locator('#operations [data-action="content.purchase"]');
    expect(await purchase.locator('h3').textContent()).toBe('Content purchase');
    expect(await purchase.locator('dt').allTextContents()).toEqual(
      expect.arrayContaining([
        'When',
        'Outcome',
        'App (client id)',
        'Content (cuid)',
        'Slot id',
        'Amount',
        'Transaction',
      ]),
    );
    expect(await purchase.locator('.amount').textContent()).toBe('1,000 units');
    // No raw JSON anywhere on the page.
    expect(await page.textContent('#view')).not.toMatch(/[{[]"/);

    // The slot bought on the market, by its exact 19-digit id (the audit trail once rounded it as a number).
    const bought = page.locator('#operations [data-action="market.purchase"]');
    expect(await bought.locator('h3').textContent()).toBe('Marketplace purchase');
    expect(await bought.locator('dd code').allTextContents()).toContain(flows.players[1].slotId);

    const slot = page.locator(`#slots [data-slot="${buyer.slotId}"] [data-cuid="${flows.provider.cuid}"]`);
    expect(await slot.textContent()).toBe(`${flows.provider.cuid}: 700 units left, 300 units used`);

    // The session-key section lists no grant, the linked-sign-in section no identity.
    expect(await page.textContent('#session-key-list')).toBe('No app may use your wallet without your PIN.');
    expect(await page.$('#identities')).not.toBeNull();
    expect(await page.$('[role=alert]')).toBeNull();
    await expectNoEmptyLabels(page);
    await expectOneDateFormat(page);
    expect(failures).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('gives the sign-in form its padding back and offers no provider buttons the service lacks', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${base()}/console#/signin`);
    await page.waitForSelector('#signin-form');
    expect(await page.evaluate("getComputedStyle(document.getElementById('signin-form')).paddingLeft")).toBe(
      '16px',
    );
    expect(await page.$('#signin-federation')).toBeNull();
    expect(await page.$('[role=alert]')).toBeNull();
    await page.close();
  });

  it('says what a federated sign-in left in the address, and drops a ticket from it', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${base()}/console#federation_error=account_exists_link_required`);
    await page.waitForURL(/#\/signin$/);
    expect(await page.textContent('[role=alert]')).toContain('An account with this e-mail already exists');

    // A ticket is redeemed at once (this service has no federation yet: refused) and leaves no trace.
    await page.goto(`${base()}/console#login_ticket=not-a-real-ticket`);
    await page.waitForURL(/#\/signin$/);
    // (The earlier alert stays until the page renders again: wait for this one.)
    await page.locator('[role=alert]', { hasText: 'The sign-in could not be completed' }).waitFor();
    expect(page.url()).not.toContain('not-a-real-ticket');
    await page.close();

    const { page: signedIn } = await openAs(flows.provider.developer, '#identity_linked=Google');
    await signedIn.waitForURL(/#\/account$/);
    await signedIn.locator('[role=status]', { hasText: 'Google is linked' }).waitFor();
    // The app page's wallet-policy section waits for its owner to open it (consoleSessionKeys.test.ts).
    await signedIn.goto(`${base()}/console#/apps/${flows.provider.clientId}`);
    await signedIn.waitForSelector('#activity');
    expect(await signedIn.isVisible('#wallet-policy #policy-open')).toBe(true);
    await signedIn.close();
  });
});
