import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchTestBrowser, type TestBrowser } from '../helpers/browser.js';
import { createUser } from '../helpers/http.js';
import { waitForMail } from '../helpers/outbox.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The console's organizations (docs/orgs.md) in a real Chromium: create an organization, invite a
 * teammate from its page, the teammate opens the mailed link /console/invitations?token=…, signs in and
 * accepts; the switcher shows the org's apps only.
 */
describe.skipIf(!chromiumAvailable)('console: organizations, invitations and the switcher', () => {
  let browser: TestBrowser;
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    browser = await launchTestBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const signIn = async (page: Page, email: string, password: string) => {
    await page.fill('#signin-email', email);
    await page.fill('#signin-password', password);
    await page.click('#signin-submit');
  };

  it('creates an org, invites by mail, the invitee accepts from the link, and the switcher filters apps', async () => {
    const owner = await createUser(server.url, 'owner');
    const invitee = await createUser(server.url, 'invitee');
    const errors: string[] = [];

    const ownerPage = await browser.context.newPage();
    ownerPage.on('pageerror', (e) => errors.push(e.message));
    await ownerPage.goto(`${server.url}/console#/signin`);
    await signIn(ownerPage, owner.email, owner.password);
    await ownerPage.waitForSelector('#app-list');
    await ownerPage.goto(`${server.url}/console#/orgs`);
    await ownerPage.fill('#org-name', 'Browser Studio');
    await ownerPage.click('#new-org-submit');
    await ownerPage.waitForSelector('#invite-form');
    const orgId = (await ownerPage.textContent('#org-id'))!;
    expect(orgId).toMatch(/^org_/);

    const since = Date.now();
    await ownerPage.fill('#invite-email', invitee.email);
    await ownerPage.selectOption('#invite-role', 'viewer');
    await ownerPage.click('#invite-submit');
    await ownerPage.waitForSelector(`#invitation-list li:has-text("${invitee.email}")`);
    const mail = await waitForMail(server.dataDir, invitee.email, {
      since,
      includes: '/console/invitations?token=',
    });
    const link = /(http:\/\/\S+\/console\/invitations\?token=[A-Za-z0-9_-]+)/.exec(mail.text)![1]!;

    // An app in the org, and one in the owner's personal org: the switcher shows one org's apps.
    await ownerPage.goto(`${server.url}/console#/apps/new?org=${orgId}`);
    await ownerPage.fill('#app-name', 'Studio game');
    await ownerPage.fill('#app-redirect-uris', 'https://studio.example/cb');
    await ownerPage.click('#new-app-submit');
    await ownerPage.waitForSelector('#created-client-id');
    await ownerPage.goto(`${server.url}/console#/apps/new`);
    await ownerPage.fill('#app-name', 'Solo game');
    await ownerPage.fill('#app-redirect-uris', 'https://solo.example/cb');
    await ownerPage.click('#new-app-submit');
    await ownerPage.waitForSelector('#created-client-id');
    await ownerPage.goto(`${server.url}/console#/apps`);
    await ownerPage.waitForSelector('#org-switcher');
    await ownerPage.selectOption('#org-switcher', orgId);
    await ownerPage.waitForURL(/#\/apps\?org=/);
    await expect.poll(() => ownerPage.textContent('#app-list')).not.toContain('Solo game');
    expect(await ownerPage.textContent('#app-list')).toContain('Studio game');

    // The invitee opens the link in a browser of their own, signs in and accepts.
    const second = await launchTestBrowser();
    const inviteePage = await second.context.newPage();
    inviteePage.on('pageerror', (e) => errors.push(e.message));
    await inviteePage.goto(link);
    await inviteePage.click('#invitation-signin');
    await signIn(inviteePage, invitee.email, invitee.password);
    await inviteePage.click('#pending-invitation');
    await inviteePage.click('#accept-invitation');
    await inviteePage.waitForSelector('#org-role');
    expect(await inviteePage.textContent('#org-role')).toBe('viewer');
    expect(await inviteePage.textContent('#org-apps')).toContain('Studio game');
    expect(await inviteePage.textContent('#member-list')).toContain(owner.email);
    await second.close();

    await ownerPage.reload();
    await ownerPage.goto(`${server.url}/console#/orgs/${orgId}`);
    await expect.poll(() => ownerPage.textContent('#invitation-list')).toContain('accepted');
    expect(errors).toEqual([]);
  }, 120_000);
});
