/**
 * The console's wallet-policy and session-key sections (issue 27) in a real Chromium against a real dauth on
 * the embedded chain: the app owner sets the policy in the app page's form (the step-up prompt asks for the
 * password, as the console does it) and the API answers it; the consent page states it in words; a player
 * grants it with the PIN (API), the app runs a session operation, and the player's account page lists the
 * grant with its policy in words and the real use today; Revoke ends it (the API lists nothing, and on chain
 * `sessions(key)` is inactive).
 */
import { dauthAccountAbi } from '@dauth/contracts';
import type { ConsoleMessage, Page } from 'playwright-core';
import { type Address, getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchTestBrowser, type TestBrowser } from '../helpers/browser.js';
import { createUser, type TestClient, type TestUser } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { authorizeUrl } from '../oauth/support.js';
import { chainClient } from '../pin/pinHelpers.js';
import {
  DAY,
  grant,
  newApp,
  newPlayer,
  type Player,
  request,
  sessionState,
  TRANSFER,
  transferData,
} from '../sessionKeys/support.js';
import { fillWalletPolicy } from './walletPolicyForm.js';

/** The consent page's date in English (`{until, date, medium}`): "Dec 24, 2026". */
const englishDay = (ms: number) =>
  new Intl.DateTimeFormat('en', { year: 'numeric', month: 'short', day: 'numeric' }).format(ms);

// A login older than four seconds needs the password again for the policy (the step-up rule, STEP_UP_MAX_AGE).
// Not one second: on a loaded CI machine the retry after the password took longer than that, so the fresh
// login was stale again and the policy was never saved.
const server: TestServer | undefined = chromiumAvailable
  ? await startTestServer({ env: { STEP_UP_MAX_AGE: '4', CALLBACK_ALLOW_PRIVATE: 'true' } })
  : undefined;

const recipient = getAddress(`0x${'cd'.repeat(20)}`);
/** 300 and 120 of the platform token (18 decimals), in base units. */
const PER_DAY = 300n * 10n ** 18n;
const USED = 120n * 10n ** 18n;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!chromiumAvailable)('console session keys and wallet policy in a real Chromium', () => {
  let browser: TestBrowser;
  let dev: TestUser;
  let client: TestClient;
  let token: Address;
  let player: Player;
  let sessionKey: Address;
  const policyPath = () => `/v1/dev-user/clients/${client.clientId}/wallet-policy`;

  beforeAll(async () => {
    browser = await launchTestBrowser();
    token = server!.services.chainInfo.contracts.token;
    ({ dev, client } = await newApp(server!));
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  interface Watched {
    page: Page;
    /** Every API answer of 400 or more, as `status method path`. */
    failures: string[];
    /** Errors the browser logged (a failed request is logged as one too) and uncaught page errors. */
    errors: string[];
  }

  /** Opens the console signed in as `user` (the login JWT in sessionStorage, as the console keeps it). */
  async function openAs(user: TestUser, hash: string): Promise<Watched> {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 960, height: 900 });
    const watched: Watched = { page, failures: [], errors: [] };
    page.on('response', (r) => {
      const { pathname } = new URL(r.url());
      if (r.status() >= 400) {
        watched.failures.push(`${r.status()} ${r.request().method()} ${pathname}`);
      }
    });
    page.on('console', (m: ConsoleMessage) => {
      if (m.type() !== 'error') return;
      const at = m.location().url ? new URL(m.location().url).pathname : '';
      watched.errors.push(`${m.text()} ${at}`);
    });
    page.on('pageerror', (e) => watched.errors.push(e.message));
    await page.goto(`${server!.url}/console#/signin`);
    await page.evaluate(
      `sessionStorage.setItem('dauth.console.session', ${JSON.stringify(
        JSON.stringify({ token: user.loginToken, uuid: String(user.uuid), email: user.email }),
      )})`,
    );
    await page.goto(`${server!.url}/console${hash}`);
    return watched;
  }

  it('sets the wallet policy in the app page, after the password prompt; the API answers it', async () => {
    const { page, failures, errors } = await openAs(dev, `#/apps/${client.clientId}`);
    await page.waitForSelector('#wallet-policy #policy-open');
    await page.waitForLoadState('networkidle');
    // The app has no policy: opening the page does not ask for it (no logged 404 on every app page).
    expect(failures).toEqual([]);
    expect(errors).toEqual([]);

    await page.click('#policy-open');
    await page.waitForSelector('#policy-calls');
    expect(await page.textContent('#policy-current')).toBe('No policy yet.');
    expect(await page.isHidden('#policy-delete')).toBe(true);
    // Asked once the owner opens it: the API's 404 `wallet_policy_not_found` is the answer for "none".
    expect(failures).toEqual([`404 GET ${policyPath()}`]);

    await fillWalletPolicy(page, { token, perDay: String(PER_DAY), days: 3 });
    await sleep(4_100); // the console's login is now older than STEP_UP_MAX_AGE
    await page.click('#policy-submit');
    await page.waitForSelector('#stepup-password');
    await page.fill('#stepup-password', dev.password);
    await page.click('#stepup-submit');
    await page.locator('#policy-current', { hasText: 'Tokens per day' }).waitFor();
    expect(await page.locator('#policy-current dt').allTextContents()).toEqual([
      'May call',
      'Per call',
      'Per day',
      'Tokens per day',
      'Granted for',
    ]);
    expect(await page.locator('#policy-current dd').allTextContents()).toEqual([
      `${token}: functions ${TRANSFER}`,
      'up to 0 ETH',
      'up to 0 ETH',
      `${token}: up to 300 DAUTH`,
      '3 days',
    ]);
    expect(await page.isVisible('#policy-delete')).toBe(true);
    // The first try was refused for a stale login (nothing stored), the retry after the password saved it.
    expect(failures).toEqual([`404 GET ${policyPath()}`, `401 PUT ${policyPath()}`]);
    expect(errors.filter((e) => !/status of (404|401)/.test(e))).toEqual([]);

    const got = await request(server!, 'GET', policyPath(), dev.loginToken);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      calls: [{ to: getAddress(token), selectors: [TRANSFER] }],
      max_value_per_call_wei: '0',
      max_value_per_day_wei: '0',
      token_limits: [{ token: getAddress(token), per_day: String(PER_DAY) }],
      valid_for_seconds: 3 * DAY,
    });

    // Opened again, the form starts from the stored policy, without a failed request.
    const again = await openAs(dev, `#/apps/${client.clientId}`);
    await again.page.click('#policy-open');
    await again.page.waitForSelector('#policy-calls');
    expect(await again.page.inputValue('#policy-calls')).toBe(`${getAddress(token)} ${TRANSFER}`);
    expect(await again.page.inputValue('#policy-tokens')).toBe(`${getAddress(token)} ${PER_DAY}`);
    expect(await again.page.inputValue('#policy-days')).toBe('3');
    expect(again.failures).toEqual([]);
    expect(again.errors).toEqual([]);
    await again.page.close();
    await page.close();
  });

  it('states the policy in words on the consent page', async () => {
    const user = await createUser(server!.url);
    const page = await browser.context.newPage();
    await page.goto(
      authorizeUrl(server!.url, {
        client_id: client.clientId,
        redirect_uri: client.redirectUri,
        response_type: 'code',
        state: 's',
      }),
    );
    await page.fill('#email', user.email);
    await page.fill('#password', user.password);
    await Promise.all([
      page.waitForResponse((r) => r.url() === `${server!.url}/oauth/authorize/login`),
      page.click('#sign-in'),
    ]);
    await page.waitForSelector('#wallet-policy');
    const words = (await page.textContent('#wallet-policy'))!.replace(/\s+/g, ' ');
    expect(words).toContain('If you later grant it wallet access with your PIN, Gem game:');
    expect(words).toMatch(
      new RegExp(
        `may spend up to 300 \\S+ a day from your wallet until ${englishDay(Date.now() + 3 * DAY * 1000)}`,
      ),
    );
    expect(await page.isVisible('#wallet-policy')).toBe(true);
    await page.close();
  });

  it("lists the player's grant with its policy and today's use, and revokes it on chain", async () => {
    player = await newPlayer(server!, client, String(1000n * 10n ** 18n));
    const granted = await grant(server!, player, client.clientId);
    expect(granted.status).toBe(201);
    sessionKey = granted.body.session_key as Address;
    // The app acts without the PIN: 120 of the 300 DAUTH a day.
    const op = await request(server!, 'POST', '/v1/wallet/session-operations', player.accessToken, {
      calls: [{ to: token, data: transferData(recipient, USED) }],
    });
    expect(op.status).toBe(200);

    const { page, failures, errors } = await openAs(player.user, '#/account');
    const card = page.locator(`[data-session-key="${client.clientId}"]`);
    await card.waitFor();
    await page.waitForLoadState('networkidle');
    expect(await card.locator('h3').textContent()).toBe('Gem game');
    const grantFacts = card.locator('dl').first();
    expect(await grantFacts.locator('dt').allTextContents()).toEqual([
      'Session key',
      'Granted',
      'Valid until',
      'Transaction',
    ]);
    const dds = await grantFacts.locator('dd').allTextContents();
    expect(dds[0]).toBe(sessionKey);
    const until = new Date(granted.body.valid_until as string).toISOString();
    expect(dds[2]).toBe(`${until.slice(0, 10)} ${until.slice(11, 16)} UTC`);
    expect(dds[3]).toMatch(/^0x[0-9a-f]{64}$/);
    const policy = card.locator('dl').nth(1);
    expect(await policy.locator('dd').allTextContents()).toEqual([
      `${getAddress(token)}: functions ${TRANSFER}`,
      'up to 0 ETH',
      'up to 0 ETH (0 ETH used today)',
      `${getAddress(token)}: up to 300 DAUTH (120 DAUTH used today)`,
      '3 days',
    ]);
    // The exact base units on hover.
    expect(await policy.locator('.amount').last().getAttribute('title')).toBe(
      `${USED} base units (18 decimals)`,
    );
    // The wallet history records the grant and the app's operation (issue 41: 1000 → 880 DAUTH, no record).
    const appOperation = page.locator('#operations [data-action="session_key.operation"]');
    await appOperation.waitFor();
    expect(await appOperation.locator('h3').textContent()).toBe('Operation by an app’s session key');
    const operationFacts = await appOperation.locator('dd').allTextContents();
    expect(operationFacts).toContain(client.clientId);
    expect(operationFacts).toContain(op.body.tx_hash as string);
    expect(await page.locator('#operations [data-action="session_key.grant"]').count()).toBe(1);
    expect(failures).toEqual([]);
    expect(errors).toEqual([]);

    await card.locator(`[data-revoke-session-key="${client.clientId}"]`).click();
    await card.locator('[data-confirm="yes"]').click();
    await page
      .locator('#session-key-list', { hasText: 'No app may use your wallet without your PIN.' })
      .waitFor();
    expect(await page.textContent('[role=status]')).toContain('Gem game can no longer use your wallet');
    expect(failures).toEqual([]);
    expect(errors).toEqual([]);

    const listed = await request(server!, 'GET', '/v1/wallet/session-keys', player.user.loginToken);
    expect(listed.body).toEqual({ session_keys: [] });
    const account = (await chainClient(server!).readContract({
      address: player.wallet.address,
      abi: dauthAccountAbi,
      functionName: 'owner',
    })) as Address;
    expect((await sessionState(server!, account, sessionKey)).active).toBe(false);
    // The app's next session operation is refused.
    const after = await request(server!, 'POST', '/v1/wallet/session-operations', player.accessToken, {
      calls: [{ to: token, data: transferData(recipient, 1n) }],
    });
    expect(after.status).toBeGreaterThanOrEqual(400);
    await page.close();
  });
});
