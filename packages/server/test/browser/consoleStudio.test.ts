import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchTestBrowser, type TestBrowser } from '../helpers/browser.js';
import { bearer, createClient, createUser, post, type TestClient, type TestUser } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The console's studio pages (issue 38, docs/machines.md, docs/players.md) in a real Chromium: an
 * organization's service accounts (created with the secret shown once, whose client_credentials token
 * then works; rotated; deleted) and an app's Players page (list, search by e-mail and user id, detail,
 * revoke), at a phone's width without horizontal scroll.
 */
describe.skipIf(!chromiumAvailable)('console: service accounts and the players directory', () => {
  let browser: TestBrowser;
  let server: TestServer;
  let owner: TestUser;
  let app: TestClient;
  let org: string;
  const players: { user: TestUser; email: boolean }[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    browser = await launchTestBrowser();
    owner = await createUser(server.url, 'studio');
    app = await createClient(server.url, owner, ['https://game.example/cb'], { name: 'Studio game' });
    org = `org_u${owner.uuid}`;
    // Two players grant the app: one lets it see the e-mail, the other does not.
    for (const email of [true, false]) players.push({ user: await grant(email), email });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** A new player who signs in to the app (a code flow), with the `email` scope or without. */
  async function grant(email: boolean): Promise<TestUser> {
    const user = await createUser(server.url, undefined, { clientId: app.clientId });
    const query = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: app.redirectUri,
      response_type: 'code',
      ...(email ? { scope: 'openid email', nonce: 'n' } : {}),
    });
    const redirect = await fetch(`${server.url}/oauth/authorize?${query}`, {
      headers: bearer(user.loginToken),
      redirect: 'manual',
    });
    expect(redirect.status).toBe(302);
    const code = new URL(redirect.headers.get('location')!).searchParams.get('code')!;
    const tokens = await post(`${server.url}/oauth/token`, {
      grant_type: 'authorization_code',
      client_id: app.clientId,
      client_secret: app.clientSecret,
      code,
      redirect_uri: app.redirectUri,
    });
    expect(tokens.status).toBe(200);
    return user;
  }

  const clientToken = async (id: string, secret: string) => {
    const res = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });
    const body = (await res.json()) as { access_token?: string };
    return { status: res.status, token: body.access_token };
  };
  const noHorizontalScroll = async (page: Page) =>
    expect(
      await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'),
    ).toBeLessThanOrEqual(0);

  it('creates a service account (secret once, its token works), rotates it and deletes it', async () => {
    const errors: string[] = [];
    const page = await browser.context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/console#/signin`);
    await page.fill('#signin-email', owner.email);
    await page.fill('#signin-password', owner.password);
    await page.click('#signin-submit');
    await page.waitForSelector('#app-list');
    await page.goto(`${server.url}/console#/orgs/${org}`);
    await page.waitForSelector('#sa-form');
    expect(await page.textContent('#sa-list')).toBe('No service accounts.');

    await page.fill('#sa-name', 'Support tool');
    await page.check('#sa-scope-players-read');
    await page.check('#sa-scope-apps-read');
    await page.click('#sa-submit');
    await page.waitForSelector('#sa-created-secret');
    const id = (await page.textContent('#sa-created-id'))!;
    const secret = (await page.textContent('#sa-created-secret'))!;
    expect(id).toMatch(/^sa_/);
    expect(await page.textContent('#created-service-account')).toContain('shown only once');
    const card = page.locator(`li[data-service-account="${id}"]`);
    expect(await card.textContent()).toContain('apps:read, players:read');
    await noHorizontalScroll(page);

    // The secret is a working client_credentials credential: its token reads the players directory.
    const first = await clientToken(id, secret);
    expect(first.status).toBe(200);
    const listed = await fetch(`${server.url}/v1/orgs/${org}/apps/${app.clientId}/players`, {
      headers: bearer(first.token!),
    });
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { players: unknown[] }).players).toHaveLength(2);

    // A reload forgets the secret: it is not shown again.
    await page.reload();
    await page.waitForSelector(`li[data-service-account="${id}"]`);
    expect(await page.textContent('#created-service-account')).toBe('');

    await page.click(`[data-rotate="${id}"]`);
    await card.locator('.confirm:not([hidden]) [data-confirm=yes]').click();
    const rotatedSecret = (await page.locator(`[id="sa-rotated-${id}"]`).textContent())!;
    expect(rotatedSecret).not.toBe(secret);
    expect((await clientToken(id, rotatedSecret)).status).toBe(200);

    await page.click(`[data-delete="${id}"]`);
    await card.locator('.confirm:not([hidden]) [data-confirm=yes]').click();
    await expect.poll(() => page.textContent('#sa-list')).toBe('No service accounts.');
    expect((await clientToken(id, rotatedSecret)).status).toBe(401);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('lists the players who granted the app, finds them, shows one and revokes', async () => {
    const errors: string[] = [];
    const page = await browser.context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/console#/signin`);
    await page.fill('#signin-email', owner.email);
    await page.fill('#signin-password', owner.password);
    await page.click('#signin-submit');
    await page.waitForSelector('#app-list');
    await page.goto(`${server.url}/console#/apps/${app.clientId}`);
    await page.click('#app-players');
    await page.waitForSelector('#player-list li');
    const [shared, hidden] = players.map((p) => p.user) as [TestUser, TestUser];
    const ids = await page
      .locator('#player-list li')
      .evaluateAll((items) => items.map((li) => li.getAttribute('data-player-id')));
    expect(ids.sort()).toEqual([shared.uuid, hidden.uuid].sort());
    expect(await page.textContent(`li[data-player-id="${shared.uuid}"]`)).toContain(shared.email);
    expect(await page.textContent(`li[data-player-id="${hidden.uuid}"]`)).not.toContain(hidden.email);
    await noHorizontalScroll(page);

    const search = async (q: string) => {
      await page.fill('#players-q', q);
      await page.click('#players-search-submit');
    };
    // By e-mail: only where the player shared it with the app.
    await search(shared.email);
    await expect.poll(() => page.locator('#player-list li').count()).toBe(1);
    expect(await page.getAttribute('#player-list li', 'data-player-id')).toBe(shared.uuid);
    await search(hidden.email);
    await page.waitForSelector('#player-empty:not([hidden])');
    // By user id.
    await search(hidden.uuid);
    await page.waitForSelector(`li[data-player-id="${hidden.uuid}"]`);
    await search(shared.uuid);
    await page.waitForSelector(`li[data-player-id="${shared.uuid}"]`);
    expect(await page.locator('#player-list li').count()).toBe(1);

    await page.click(`[data-player="${shared.uuid}"]`);
    const detail = page.locator(`[data-detail="${shared.uuid}"]`);
    await detail.waitFor();
    const text = (await detail.textContent())!;
    expect(text).toContain(shared.email);
    expect(text).toContain('No slots.');
    expect(text).toContain('No live session keys.');
    await noHorizontalScroll(page);

    await page.click(`[data-revoke="${shared.uuid}"]`);
    await page
      .locator(`li[data-player-id="${shared.uuid}"] .confirm:not([hidden]) [data-confirm=yes]`)
      .click();
    await expect
      .poll(() => page.textContent(`li[data-player-id="${shared.uuid}"]`))
      .toContain('Revoked (1 grant).');
    await search('');
    // The list before this search held one player too (the one just revoked): wait for the new list.
    await page.waitForSelector(`li[data-player-id="${hidden.uuid}"]`);
    await expect.poll(() => page.locator('#player-list li').count()).toBe(1);
    expect(await page.getAttribute('#player-list li', 'data-player-id')).toBe(hidden.uuid);

    // Page by page ("More" over the cursor): a third player, one a page.
    const third = await grant(true);
    await page.goto(`${server.url}/console#/orgs/${org}/apps/${app.clientId}/players?limit=1`);
    await page.waitForSelector('#player-list li');
    const seen = [await page.getAttribute('#player-list li', 'data-player-id')];
    await page.click('#players-more');
    await expect.poll(() => page.locator('#player-list li').count()).toBe(2);
    seen.push(await page.getAttribute('#player-list li:nth-child(2)', 'data-player-id'));
    expect(seen).toEqual([hidden.uuid, third.uuid].sort((x, y) => Number(x) - Number(y)));
    // A full last page may still carry a cursor: "More" then finds nothing else and goes away.
    if (await page.isVisible('#players-more')) await page.click('#players-more');
    await page.waitForSelector('#players-more-box[hidden]', { state: 'attached' });
    expect(await page.locator('#player-list li').count()).toBe(2);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});
