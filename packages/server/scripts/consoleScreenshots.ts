/**
 * `npm run screenshots`: one PNG per web-console page in docs/console/, taken by Debian's Chromium
 * (playwright-core) from a live dauth. By default it starts its own service (SQLite and the embedded
 * chain in a temporary directory); `DAUTH_URL=http://host:port` points it at a running one instead.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getFreePort } from '@dauth/contracts';
import pino from 'pino';
import { chromium, type Page } from 'playwright-core';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';

const OUT_DIR = fileURLToPath(new URL('../../../docs/console/', import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const PASSWORD = 'correct horse battery';
const VIEWPORT = { width: 960, height: 720 };

interface Service {
  url: string;
  /** For the faucet that funds the account page's wallet: ours, or ADMIN_API_KEY for DAUTH_URL. */
  adminKey: string | undefined;
  close(): Promise<void>;
}

async function liveService(): Promise<Service> {
  if (process.env.DAUTH_URL) {
    return {
      url: process.env.DAUTH_URL.replace(/\/$/, ''),
      adminKey: process.env.ADMIN_API_KEY,
      close: async () => {},
    };
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-screenshots-'));
  const port = await getFreePort('127.0.0.1');
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
  });
  const server = await startServer(config, { logger: pino({ level: 'silent' }) });
  return {
    url: server.url,
    adminKey: server.services.secrets.adminApiKey,
    close: async () => {
      await server.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A JSON call to the service; throws with the answer when it is not 2xx. */
async function api(url: string, method: string, body?: unknown, bearer?: string): Promise<string> {
  const res = await fetch(url, {
    method,
    headers: {
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return text;
}

/**
 * Gives the signed-in developer what the account page shows: a PIN wallet with funds, a slot of the
 * app made by the backend-integration authorize, content tokens bought for it (a wallet operation).
 */
async function accountData(service: Service, token: string, clientId: string, cuid: string): Promise<void> {
  const uuid = Number(JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')).sub);
  const salt = randomBytes(32).toString('hex');
  const pin = { pin_hash: createHash('sha256').update(`123456${salt}`).digest('hex'), pin_salt: salt };
  const registered = JSON.parse(
    await api(`${service.url}/v1/pin/register`, 'POST', { user_uuid: uuid, ...pin }, token),
  ) as { data: [{ address: string; key_share_user: string }] };
  const { address, key_share_user } = registered.data[0];
  if (service.adminKey) {
    await api(
      `${service.url}/v1/admin/faucet`,
      'POST',
      { address, native: '2000000000000000000', token: '5000' },
      service.adminKey,
    );
  }
  // The app's registered callback is not reachable from here: the slot is made all the same, and the
  // undelivered code is invalidated (docs/backend-integration.md).
  const authorize = new URL(`${service.url}/v1/oauth-meta/authorize`);
  for (const [k, v] of Object.entries({
    client_id: clientId,
    redirect_uri: 'https://game.example.com/oauth/callback',
    respose_type: 'code',
    state: randomBytes(16).toString('hex'),
  }))
    authorize.searchParams.set(k, v);
  const slotText = await api(authorize.toString(), 'GET', undefined, token);
  const slotId = /"id":"?(\d+)/.exec(slotText)![1]!; // 19 digits: read as text, never as a number
  if (service.adminKey) {
    await api(
      `${service.url}/v1/development-api/user_buy_content_token`,
      'POST',
      { client_id: clientId, user_dbkey: slotId, amount: '250000', cuid, ...pin, key_share_user },
      token,
    );
  }
}

/** `fullPage`: the whole scrolling page (the account page is taller than the viewport). */
async function shoot(page: Page, name: string, fullPage = false): Promise<void> {
  // Focus rings and the caret would differ between runs; blur before taking the picture.
  // (Page-side code is a string: this file is type-checked without the DOM library.)
  await page.evaluate('document.activeElement?.blur()');
  await page.screenshot({ path: path.join(OUT_DIR, `${name}.png`), fullPage });
  console.log(`docs/console/${name}.png`);
}

async function main(): Promise<void> {
  const service = await liveService();
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
  try {
    fs.mkdirSync(OUT_DIR, { recursive: true });
    const page = await browser.newPage({ viewport: VIEWPORT });
    const open = async (hash: string, selector: string) => {
      await page.goto(`${service.url}/console${hash}`);
      await page.waitForSelector(selector);
    };

    await open('#/signin', '#signin-form');
    await shoot(page, 'sign-in');
    await open('#/reset', '#reset-request-form');
    await shoot(page, 'password-reset-request');
    await open('#/reset/confirm?email=dev%40example.com', '#reset-confirm-form');
    await shoot(page, 'password-reset-confirm');

    await open('#/signup', '#signup-form');
    await page.fill('#signup-email', `dev-${Date.now()}@example.com`);
    await page.fill('#signup-nickname', 'Studio dev');
    await shoot(page, 'sign-up');
    await page.fill('#signup-password', PASSWORD);
    await page.click('#signup-submit');
    await page.waitForSelector('#app-list');

    await page.click('#new-app');
    await page.fill('#app-name', 'Space Game');
    await page.fill('#app-redirect-uris', 'https://game.example.com/oauth/callback');
    await shoot(page, 'app-new');
    await page.click('#new-app-submit');
    await page.waitForSelector('#created-client-secret');
    await shoot(page, 'app-created-secret-once');

    await page.click('#created-continue');
    await page.waitForSelector('#provider-form');
    await shoot(page, 'app-detail');
    await page.fill('#provider-cuid', 'space-game');
    await page.fill('#provider-owner', '0x5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a');
    await page.click('#provider-submit');
    await page.waitForSelector('#provider-key', { timeout: 60_000 });
    await page.evaluate("document.getElementById('provider-result')?.scrollIntoView({ block: 'end' })");
    await shoot(page, 'app-content-provider');

    // Approve the app once (the login JWT on the authorize endpoint), so the account page lists it.
    const token = (await page.evaluate(
      "JSON.parse(sessionStorage.getItem('dauth.console.session') ?? '{}').token",
    )) as string;
    const clientId = await page.textContent('#app-client-id');
    await accountData(service, token, clientId ?? '', 'space-game');
    const authorize = new URL(`${service.url}/oauth/authorize`);
    for (const [k, v] of Object.entries({
      client_id: clientId ?? '',
      redirect_uri: 'https://game.example.com/oauth/callback',
      response_type: 'code',
    }))
      authorize.searchParams.set(k, v);
    await fetch(authorize, { headers: { authorization: `Bearer ${token}` }, redirect: 'manual' });

    await open('#/apps', '#app-list');
    await shoot(page, 'apps');
    await open('#/account', '#consents');
    await page.waitForSelector('#consents button'); // the approved app and its Revoke button
    await page.waitForLoadState('networkidle'); // and every other section's data
    await shoot(page, 'account', true);
    await open('#/password', '#password-form');
    await shoot(page, 'change-password');

    await page.setViewportSize({ width: 360, height: 740 });
    await open('#/apps', '#app-list');
    await shoot(page, 'apps-phone');
  } finally {
    await browser.close();
    await service.close();
  }
}

await main();
