import type { Page } from 'playwright-core';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchTestBrowser, type TestBrowser } from '../helpers/browser.js';
import type { TestClient, TestUser } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  grant,
  newApp,
  newPlayer,
  type Player,
  request,
  tokenTransferPolicy,
  transferData,
} from '../sessionKeys/support.js';

/**
 * The app page's sponsorship section (decisions §9, docs/console.md) in a real Chromium against a real
 * dauth after real session operations, at the default budgets: the charts' axes follow what is spent
 * (the budget, far above, no longer flattens the bars to nothing), the top spenders are listed, and the
 * form sets the policy and shows the approval secret once.
 */
const server: TestServer | undefined = chromiumAvailable
  ? await startTestServer({ env: { CALLBACK_ALLOW_PRIVATE: 'true' } })
  : undefined;

const textsOf = (page: Page, selector: string) =>
  page.evaluate(
    `[...document.querySelectorAll(${JSON.stringify(selector)})].map((e) => e.textContent.trim())`,
  ) as Promise<string[]>;

describe.skipIf(!chromiumAvailable)('console sponsorship section in a real Chromium', () => {
  let browser: TestBrowser;
  let dev: TestUser;
  let client: TestClient;
  let player: Player;
  let spent: number;

  beforeAll(async () => {
    browser = await launchTestBrowser();
    ({ dev, client } = await newApp(server!));
    const token = server!.services.chainInfo.contracts.token;
    const policy = await request(
      server!,
      'PUT',
      `/v1/dev-user/clients/${client.clientId}/wallet-policy`,
      dev.loginToken,
      tokenTransferPolicy(token, '1000'),
    );
    expect(policy.status).toBe(200);
    player = await newPlayer(server!, client);
    expect((await grant(server!, player, client.clientId)).status).toBe(201);
    const op = await request(server!, 'POST', '/v1/wallet/session-operations', player.accessToken, {
      calls: [{ to: token, data: transferData(getAddress(`0x${'ef'.repeat(20)}`), 1n) }],
    });
    expect(op.status, JSON.stringify(op.body)).toBe(200);
    const read = await request(
      server!,
      'GET',
      `/v1/dev-user/clients/${client.clientId}/sponsorship`,
      dev.loginToken,
    );
    spent = read.body.today.gas as number;
    expect(spent).toBeGreaterThan(0);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('charts the day’s burn and the top spenders with axes that follow the spend, and sets the policy', async () => {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 960, height: 900 });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server!.url}/console#/signin`);
    await page.evaluate(
      `sessionStorage.setItem('dauth.console.session', ${JSON.stringify(
        JSON.stringify({ token: dev.loginToken, uuid: dev.uuid, email: '' }),
      )})`,
    );
    await page.goto(`${server!.url}/console#/apps/${client.clientId}`);
    await page.waitForSelector('#sponsorship #chart-burn canvas');
    await page.waitForSelector('#activity #chart-gas canvas');

    const axisTop = async (id: string) => Number(await page.getAttribute(`#${id}`, 'data-axis-top'));
    const budget = server!.config.sponsorship.appDailyGas;
    // Today's chart at the default budget (5,000,000,000 gas): the axis follows the gas spent.
    for (const id of ['chart-gas', 'chart-burn']) {
      expect(await axisTop(id), id).toBeGreaterThanOrEqual(spent);
      expect(await axisTop(id), id).toBeLessThan(spent * 2);
      expect(await page.textContent(`#${id}`)).toContain('the budget line is far above it');
    }
    expect(budget).toBeGreaterThan(spent * 2);
    const lastBurn = await textsOf(page, '#chart-burn table.figures tbody tr:last-child > *');
    expect(Number(lastBurn[1]!.replace(/,/g, ''))).toBe(spent);
    expect(lastBurn[2]).toBe(budget.toLocaleString('en-US'));
    expect(await textsOf(page, '#chart-spenders table.figures tbody tr > th')).toEqual([player.user.uuid]);

    // A per-player budget within reach is drawn: the axis stretches to it.
    await page.fill('#sp-player', String(spent + 1000));
    await page.fill('#sp-approval-url', 'http://127.0.0.1:9/approve');
    await page.click('#sp-submit');
    await page.waitForSelector('#sp-approval-secret');
    expect(await page.textContent('#sp-approval-secret')).toMatch(/^whsec_/);
    expect(await axisTop('chart-spenders')).toBeCloseTo((spent + 1000) * 1.1, 0);
    const saved = await request(
      server!,
      'GET',
      `/v1/dev-user/clients/${client.clientId}/sponsorship`,
      dev.loginToken,
    );
    expect(saved.body).toMatchObject({
      daily_gas_per_player: spent + 1000,
      daily_gas_app: null,
      approval_url: 'http://127.0.0.1:9/approve',
      approval_fail_open: false,
    });
    expect(errors).toEqual([]);
    await page.close();
  });
});
