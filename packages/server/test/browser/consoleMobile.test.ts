import type { CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchTestBrowser, type TestBrowser } from '../helpers/browser.js';
import { bearer, createClient, createUser, post, type TestClient, type TestUser } from '../helpers/http.js';
import { freePort, startTestServer, type TestServer } from '../helpers/server.js';
import { WebhookReceiver } from '../webhooks/receiver.js';

/**
 * The console on a 390 × 844 phone (issue 41), in a real Chromium against a real dauth with real data: every
 * page fits the screen (`scrollWidth <= innerWidth`, tables scrolling inside their own box), the pages speak
 * from the message catalogue with `<html lang>` set, and a newcomer's four points hold — a chart without
 * data is a sentence under its title, webhook deliveries have a time column, passkey cards are named, and
 * the guest upgrade is offered to guests only.
 *
 * PUBLIC_URL names `localhost`: WebAuthn (the passkey cards) refuses an IP address as relying party id.
 */
const PHONE = { width: 390, height: 844 };
const LONG = 'a-rather-long-name-without-any-space-to-break-at-'.repeat(2);

/** Page-side code is a string: this file is type-checked without the DOM library. */
const textsOf = (page: Page, selector: string) =>
  page.evaluate(
    `[...document.querySelectorAll(${JSON.stringify(selector)})].map((e) => e.textContent.trim())`,
  ) as Promise<string[]>;

/** How far the page is wider than the screen, and the elements that stick out (for the failure message). */
const overflowOf = (page: Page) =>
  page.evaluate(`(() => {
    const width = window.innerWidth;
    const out = [...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > width + 0.5 && !e.closest('.scroll'))
      .map((e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && typeof e.className === 'string' ? '.' + e.className.split(' ').join('.') : '') + ' ' + Math.round(e.getBoundingClientRect().right))
      .slice(0, 12);
    return { over: document.documentElement.scrollWidth - width, out };
  })()`) as Promise<{ over: number; out: string[] }>;

describe.skipIf(!chromiumAvailable)('console on a 390 px phone, in its catalogue’s words', () => {
  let server: TestServer;
  let base: string;
  let browser: TestBrowser;
  const receiver = new WebhookReceiver();
  let owner: TestUser;
  let app: TestClient;
  let quietApp: TestClient;
  let org: string;
  let teamOrg: string;
  const players: TestUser[] = [];

  /** A player who signs in to `client` (a code flow and its exchange): a sign-in on its activity. */
  async function signInTo(client: TestClient): Promise<TestUser> {
    const user = await createUser(base, undefined, { clientId: client.clientId });
    const query = new URLSearchParams({
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      response_type: 'code',
    });
    const redirect = await fetch(`${base}/oauth/authorize?${query}`, {
      headers: bearer(user.loginToken),
      redirect: 'manual',
    });
    expect(redirect.status).toBe(302);
    const code = new URL(redirect.headers.get('location')!).searchParams.get('code')!;
    const tokens = await post(`${base}/oauth/token`, {
      grant_type: 'authorization_code',
      client_id: client.clientId,
      client_secret: client.clientSecret,
      code,
      redirect_uri: client.redirectUri,
    });
    expect(tokens.status).toBe(200);
    return user;
  }

  beforeAll(async () => {
    await receiver.start();
    const port = await freePort();
    server = await startTestServer({
      env: { PORT: String(port), PUBLIC_URL: `http://localhost:${port}`, WEBHOOK_WORKER_INTERVAL_MS: '25' },
    });
    base = server.config.publicUrl;
    browser = await launchTestBrowser();
    owner = await createUser(base, 'mobile', { clientId: 'dauth:console' });
    // Long names and addresses without a space: they must wrap, not widen the page.
    app = await createClient(base, owner, [`https://game.example/${LONG}/callback`], {
      name: `Game ${LONG}`,
    });
    quietApp = await createClient(base, owner, ['https://quiet.example/cb'], { name: 'Quiet game' });
    org = `org_u${owner.uuid}`;
    for (let i = 0; i < 2; i++) players.push(await signInTo(app));

    // A webhook endpoint with a delivery: a player's status changes, the receiver takes the event.
    const hookPath = `/hooks/${LONG}`;
    const hook = await post(
      `${base}/v1/dev-user/clients/${app.clientId}/webhooks`,
      { url: `${receiver.url}${hookPath}`, events: ['status.changed'] },
      bearer(owner.loginToken),
    );
    expect(hook.status).toBe(201);
    receiver.secrets.set(hookPath, ((await hook.json()) as { secret: string }).secret);
    await server.services.loginStatus.setStatus(Number(players[0]!.uuid), app.clientId, 'logged_out');
    await receiver.waitFor((all) => all.some((r) => r.path === hookPath && r.verified));

    // A second organization with a long name, an invitation and a service account (the admin's cards).
    const created = await post(`${base}/v1/orgs`, { name: `Studio ${LONG}` }, bearer(owner.loginToken));
    expect(created.status).toBe(201);
    teamOrg = ((await created.json()) as { id: string }).id;
    const invited = await post(
      `${base}/v1/orgs/${teamOrg}/invitations`,
      { email: `${LONG}@example.com`, role: 'developer' },
      bearer(owner.loginToken),
    );
    expect(invited.status).toBe(201);
    const machine = await post(
      `${base}/v1/orgs/${org}/service-accounts`,
      { name: `Support tool ${LONG}`, scopes: ['apps:read', 'players:read'] },
      bearer(owner.loginToken),
    );
    expect(machine.status).toBe(201);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await receiver.close();
  });

  interface Watched {
    page: Page;
    errors: string[];
    requests: string[];
  }

  async function phonePage(): Promise<Watched> {
    const page = await browser.context.newPage();
    await page.setViewportSize(PHONE);
    const watched: Watched = { page, errors: [], requests: [] };
    page.on('pageerror', (e) => watched.errors.push(e.message));
    page.on('request', (r) => watched.requests.push(new URL(r.url()).pathname));
    return watched;
  }

  /** The console signed in through its own form: a first-party session with an e-mail. */
  async function signedIn(): Promise<Watched> {
    const watched = await phonePage();
    await watched.page.goto(`${base}/console#/signin`);
    await watched.page.fill('#signin-email', owner.email);
    await watched.page.fill('#signin-password', owner.password);
    await watched.page.click('#signin-submit');
    await watched.page.waitForSelector('#app-list');
    return watched;
  }

  /** Opens a route, waits for what shows it is drawn, opens every fold, and checks nothing sticks out. */
  async function fits(page: Page, hash: string, ready: string): Promise<void> {
    await page.goto(`${base}/console${hash}`);
    await page.waitForSelector(ready);
    await page.waitForLoadState('networkidle');
    // The figures of the charts and the "Can't scan it?" folds count too: open them all.
    await page.evaluate(`document.querySelectorAll('details').forEach((d) => (d.open = true))`);
    const policy = await page.$('#policy-open');
    if (policy) {
      await policy.click();
      await page.waitForSelector('#policy-body');
    }
    const { over, out } = await overflowOf(page);
    expect(over, `${hash} is ${over} px too wide: ${out.join(', ')}`).toBeLessThanOrEqual(0);
  }

  it('fits every console page on a 390 px phone, with <html lang> from the browser and the vendored ICU library', async () => {
    const visitor = await phonePage();
    const signedOut: [string, string][] = [
      ['#/signin', '#signin-form'],
      ['#/signup', '#signup-form'],
      ['#/reset', '#reset-request-form'],
      ['#/reset/confirm?email=someone@example.com', '#reset-confirm-form'],
      ['#/invitations?token=not-a-token', '#invitation-signin'],
    ];
    for (const [hash, ready] of signedOut) await fits(visitor.page, hash, ready);
    expect(await visitor.page.evaluate('document.documentElement.lang')).toBe('en');
    expect(await visitor.page.evaluate('document.documentElement.dir')).toBe('ltr');
    expect(visitor.requests).toContain('/console/assets/vendor/intl-messageformat.js');
    expect(await visitor.page.title()).toBe('Invitation · dauth console');
    expect(visitor.errors).toEqual([]);
    await visitor.page.close();

    const { page, errors } = await signedIn();
    const signedInRoutes: [string, string][] = [
      ['#/apps', '#app-list'],
      ['#/apps/new', '#new-app-form'],
      [`#/apps/${app.clientId}`, '#new-webhook-form'],
      [`#/apps/${quietApp.clientId}`, '#activity-none'],
      ['#/orgs', '#org-list'],
      [`#/orgs/${org}`, '#sa-list'],
      [`#/orgs/${teamOrg}`, '#invitation-list'],
      [`#/orgs/${org}/apps/${app.clientId}/players`, '#player-list li'],
      ['#/account', '#identities'],
      ['#/password', '#password-form'],
      ['#/passkeys', '#passkey-list'],
      ['#/security', '#ways-in-list'],
      ['#/no-such-page', 'h1'],
    ];
    for (const [hash, ready] of signedInRoutes) await fits(page, hash, ready);
    // The nav wraps on the phone instead of running off the side.
    const nav = (await page.evaluate(
      "(() => { const r = document.querySelector('#nav ul').getBoundingClientRect(); return [r.right, r.height]; })()",
    )) as [number, number];
    expect(nav[0]).toBeLessThanOrEqual(PHONE.width);
    expect(await page.textContent('.who')).toBe(`Signed in as ${owner.email}`);
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);

  it('says in a sentence what a chart without data would show, beside the chart that has data', async () => {
    const { page, errors } = await signedIn();
    await page.goto(`${base}/console#/apps/${app.clientId}`);
    await page.waitForSelector('#chart-players canvas');
    // Two players signed in today: their chart is drawn, with today's figures.
    const today = new Date().toISOString().slice(0, 10);
    expect(await textsOf(page, '#chart-players table.figures tbody tr:last-child > *')).toEqual([
      today,
      '2',
      '2',
    ]);
    expect(await page.textContent('#chart-players .hint')).toContain(
      '2 sign-ins over the last 30 days (UTC)',
    );
    // Nothing sponsored, bought or sold: each of those is its title and a sentence, no axes.
    for (const [id, sentence] of [
      ['chart-gas', 'No gas sponsored over the last 30 days (UTC), against a budget of'],
      ['chart-content', 'No content yet: register a cuid under “Content providers” below.'],
      ['chart-market', 'No marketplace sale over the last 30 days (UTC).'],
      ['chart-burn', 'No gas sponsored today yet, against a budget of'],
      ['chart-spenders', 'No player was sponsored today yet.'],
    ] as const) {
      const figure = page.locator(`figure#${id}.chart.empty`);
      expect(await figure.locator('canvas').count(), id).toBe(0);
      expect(await figure.locator('figcaption').textContent(), id).not.toBe('');
      expect(await figure.locator('p.chart-empty').textContent(), id).toContain(sentence);
    }
    expect(await page.textContent('#chart-market figcaption')).toBe('Marketplace sales');
    // The charts and the sentences share one column: each starts at the same left edge, none overflows.
    const edges = (await page.evaluate(
      "[...document.querySelectorAll('#activity figure.chart')].map((f) => { const r = f.getBoundingClientRect(); return [Math.round(r.left), Math.round(r.right)]; })",
    )) as [number, number][];
    expect(edges).toHaveLength(4);
    expect(new Set(edges.map(([left]) => left)).size).toBe(1);
    for (const [, right] of edges) expect(right).toBeLessThanOrEqual(PHONE.width);

    // An app where nothing happened at all: one sentence for the four charts.
    await page.goto(`${base}/console#/apps/${quietApp.clientId}`);
    await page.waitForSelector('#activity-none');
    expect(await page.textContent('#activity-none')).toContain('Nothing yet over the last 30 days (UTC)');
    expect(await page.$('#activity figure')).toBeNull();
    expect(errors).toEqual([]);
    await page.close();
  });

  it("lists a webhook's deliveries with the time each was made", async () => {
    const { page, errors } = await signedIn();
    const listed = (await (
      await fetch(`${base}/v1/dev-user/clients/${app.clientId}/webhooks`, {
        headers: bearer(owner.loginToken),
      })
    ).json()) as { webhooks: { id: string }[] };
    const endpoint = listed.webhooks[0]!.id;
    const answer = (await (
      await fetch(`${base}/v1/dev-user/clients/${app.clientId}/webhooks/${endpoint}/deliveries?limit=10`, {
        headers: bearer(owner.loginToken),
      })
    ).json()) as { deliveries: { id: string; created_at: string; state: string }[] };
    const delivery = answer.deliveries[0]!;
    expect(delivery.state).toBe('delivered');

    await page.goto(`${base}/console#/apps/${app.clientId}`);
    const row = page.locator(`[data-delivery="${delivery.id}"]`);
    await row.waitFor();
    expect(await textsOf(page, 'table.deliveries thead th')).toEqual([
      'Time',
      'Event',
      'State',
      'Attempts',
      'Last answer',
    ]);
    const at = new Date(delivery.created_at).toISOString();
    expect(await row.locator('td').allTextContents()).toEqual([
      `${at.slice(0, 10)} ${at.slice(11, 16)} UTC`,
      'status.changed',
      'delivered',
      '1',
      '200',
    ]);
    expect(await row.locator('time').getAttribute('datetime')).toBe(delivery.created_at);
    // On the phone the table scrolls inside its own box; the page does not.
    const box = (await page.evaluate(
      "(() => { const s = document.querySelector('table.deliveries').closest('.scroll'); return s ? [s.scrollWidth, s.clientWidth, getComputedStyle(s).overflowX] : null; })()",
    )) as [number, number, string] | null;
    expect(box).not.toBeNull();
    expect(box![2]).toBe('auto');
    // Wider than the phone: it scrolls in its box (and the page stays put).
    expect(box![0]).toBeGreaterThan(box![1]);
    expect((await overflowOf(page)).over).toBeLessThanOrEqual(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('names each passkey on its card and in the ways in (virtual authenticators make them)', async () => {
    const { page, errors } = await signedIn();
    const cdp: CDPSession = await browser.context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    /**
     * A new device: the authenticator of the one before is removed (the service excludes the credentials
     * it already holds, so a device makes one passkey of an account). `synced` makes it a password manager's
     * (backed up, on every device of its owner).
     */
    let current: string | undefined;
    const device = async (synced: boolean) => {
      if (current) await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: current });
      ({ authenticatorId: current } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: {
          protocol: 'ctap2',
          transport: 'internal',
          hasResidentKey: true,
          hasUserVerification: true,
          isUserVerified: true,
          automaticPresenceSimulation: true,
          defaultBackupEligibility: synced,
          defaultBackupState: synced,
        },
      }));
    };
    const addPasskey = async (count: number) => {
      await page.click('#add-passkey');
      await expect.poll(() => page.locator('[data-passkey]').count()).toBe(count);
      await page.waitForSelector('#add-passkey:not([disabled])');
    };
    await device(false);
    await page.goto(`${base}/console#/passkeys`);
    await page.waitForSelector('p#passkey-list');
    await addPasskey(1);
    // One passkey kept on this (virtual) device: named for what it is, no number.
    expect(await textsOf(page, '[data-passkey] .passkey-name')).toEqual(['Passkey on one device']);
    expect(await textsOf(page, '[data-passkey] dt')).toEqual(['Added', 'Last used']);
    expect(await textsOf(page, '[data-passkey] dd')).toEqual([
      expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/),
      'Not used yet',
    ]);

    // A synced one from a password manager, then a second device: the two device-bound ones are
    // numbered by age, and the Security page's ways in use the same names.
    await device(true);
    await addPasskey(2);
    await device(false);
    await addPasskey(3);
    const rows = await server.services.database.db
      .selectFrom('passkeys')
      .select(['id', 'backed_up'])
      .where('user_uuid', '=', Number(owner.uuid))
      .orderBy('created_at')
      .execute();
    expect(rows.map((r) => Number(r.backed_up))).toEqual([0, 1, 0]);
    const names = ['Passkey on one device 1', 'Synced passkey', 'Passkey on one device 2'];
    for (const [i, row] of rows.entries()) {
      expect(await page.textContent(`[data-passkey="${row.id}"] .passkey-name`)).toBe(names[i]);
    }
    expect(await page.getAttribute(`[data-delete-passkey="${rows[1]!.id}"]`, 'aria-label')).toBe(
      'Delete Synced passkey',
    );
    expect((await overflowOf(page)).over).toBeLessThanOrEqual(0);
    await page.goto(`${base}/console#/security`);
    await page.waitForSelector('#ways-in-list');
    const ways = await textsOf(page, '#ways-in-list li');
    expect(ways.slice(1)).toEqual(
      names.map((name) => expect.stringMatching(new RegExp(`^${name} \\(added .+ UTC\\): not used yet$`))),
    );
    expect(errors).toEqual([]);
    await page.close();
  });

  it('offers the guest upgrade to a guest account only', async () => {
    // An account with a password: no upgrade form.
    const { page, errors } = await signedIn();
    await page.goto(`${base}/console#/passkeys`);
    await page.waitForSelector('#passkey-list');
    await page.waitForLoadState('networkidle');
    expect(await page.$('#guest-upgrade')).toBeNull();
    expect(await page.$('#guest-upgrade-form')).toBeNull();
    await page.close();

    // A guest of the game handed over to the console: the form, and the page still fits the phone.
    const guest = await post(`${base}/v1/dev-user/guest`, { client_id: app.clientId });
    expect(guest.status).toBe(201);
    const { token, uuid } = (await guest.json()) as { token: string; uuid: string };
    const visitor = await phonePage();
    await visitor.page.goto(`${base}/console#/signin`);
    const handedOver = JSON.stringify(JSON.stringify({ token, uuid, email: '' }));
    await visitor.page.evaluate(`sessionStorage.setItem('dauth.console.session', ${handedOver})`);
    await visitor.page.goto(`${base}/console#/passkeys`);
    await visitor.page.waitForSelector('#guest-upgrade-form');
    expect(await visitor.page.textContent('#guest-upgrade-h')).toBe('Playing as a guest?');
    expect((await overflowOf(visitor.page)).over).toBeLessThanOrEqual(0);
    expect(errors).toEqual([]);
    expect(visitor.errors).toEqual([]);
    await visitor.page.close();
  });
});
