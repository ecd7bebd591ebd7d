import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchTestBrowser, type TestBrowser } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { WebhookReceiver } from '../webhooks/receiver.js';

const PASSWORD = 'correct horse battery';

/**
 * The console's webhooks section in a real Chromium against a real dauth: add an endpoint (its secret
 * shown once), see its deliveries, see it marked failing once a delivery's retries are spent, delete it.
 */
describe.skipIf(!chromiumAvailable)('console: webhooks of an app', () => {
  let browser: TestBrowser;
  let server: TestServer;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    await receiver.start();
    // Retries give up after 1 s, so "failing" shows within the test.
    server = await startTestServer({
      env: {
        WEBHOOK_RETRY_WINDOW_SECONDS: '1',
        WEBHOOK_RETRY_BASE_MS: '50',
        WEBHOOK_RETRY_MAX_MS: '100',
        WEBHOOK_WORKER_INTERVAL_MS: '25',
      },
    });
    browser = await launchTestBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await receiver.close();
  });

  it('adds an endpoint, shows its secret once, its deliveries, the failing state, and deletes it', async () => {
    const page: Page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.url}/console#/signup`);
    await page.fill('#signup-email', `w${Date.now().toString(36)}@example.com`);
    await page.fill('#signup-password', PASSWORD);
    await page.click('#signup-submit');
    await page.waitForSelector('#app-list');
    await page.click('#new-app');
    await page.fill('#app-name', 'Hooked');
    await page.fill('#app-redirect-uris', 'https://hooked.example/cb');
    await page.click('#new-app-submit');
    const clientId = (await page.textContent('#created-client-id'))!;
    await page.click('#created-continue');
    await page.waitForSelector('#new-webhook-form');

    await page.fill('#webhook-url', `${receiver.url}/console`);
    await page.check('#webhook-event-status\\.changed');
    await page.click('#new-webhook-submit');
    await page.waitForSelector('#created-webhook-secret');
    const secret = (await page.textContent('#created-webhook-secret'))!;
    expect(secret).toMatch(/^whsec_/);
    receiver.secrets.set('/console', secret);

    // The receiver refuses everything: the delivery is retried, then given up, and the endpoint fails.
    receiver.behaviours.set('/console', { statuses: [503] });
    const owner = (await server.services.clients.findClient(clientId))!.ownerUuid;
    await server.services.loginStatus.setStatus(owner, clientId, 'logged_out');
    await receiver.waitFor((all) => all.some((r) => r.path === '/console' && r.verified));
    await expect
      .poll(
        async () =>
          (await server.services.webhooks.list({ kind: 'user', userId: owner }, clientId))[0]?.failingSince,
        {
          timeout: 15_000,
        },
      )
      .toBeGreaterThan(0);

    await page.reload();
    await page.waitForSelector('[data-webhook]', { timeout: 10_000 }).catch(async (e: unknown) => {
      throw new Error(
        `${String(e)}\n${errors.join('\n')}\n${(await page.textContent('main'))?.slice(0, 2000)}`,
      );
    });
    const card = await page.textContent('[data-webhook]');
    expect(card).toContain(`${receiver.url}/console`);
    expect(card).toContain('Failing since');
    expect(card).not.toContain(secret);
    expect(await page.getAttribute('[data-delivery]', 'data-state')).toBe('failed');

    await page.click('[data-webhook-delete]');
    await page.click('[data-webhook] [data-confirm=yes]');
    await page.waitForSelector('[data-webhook]', { state: 'detached' });
    expect(await server.services.webhooks.list({ kind: 'user', userId: owner }, clientId)).toEqual([]);
    expect(errors).toEqual([]);
  }, 120_000);
});
